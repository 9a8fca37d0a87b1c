/**
 * The distlock TCK: extend {@code io.distlock.tck.LockVerification} to verify a backend. Real
 * servers to verify it on are in the separate module {@code io.distlock.tck.fixtures}
 * (artifact {@code lock-tck-fixtures}).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.tck {
    requires transitive io.distlock;
    requires transitive org.junit.jupiter.api;
    requires awaitility;
    requires static org.slf4j;
    requires java.logging;
    requires java.management;

    exports io.distlock.tck;
    // JUnit reaches the verification (its rules are default methods of package-private interfaces), its
    // lifecycle members and its verdict extension reflectively.
    opens io.distlock.tck to org.junit.platform.commons;
}
