/**
 * The distlock TCK: extend {@code io.distlock.tck.LockVerification} to verify a backend, and use
 * {@code io.distlock.tck.fixtures} to start real servers on free loopback ports.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.tck {
    requires transitive io.distlock;
    requires transitive org.junit.jupiter.api;
    requires awaitility;
    requires java.net.http;
    requires static testcontainers;
    requires static org.slf4j;
    requires java.logging;
    requires static com.github.dockerjava.api;

    exports io.distlock.tck;
    // JUnit reaches the verification (its rules are default methods of package-private interfaces), its
    // lifecycle members and its verdict extension reflectively.
    opens io.distlock.tck to org.junit.platform.commons;
    exports io.distlock.tck.fixtures;
}
