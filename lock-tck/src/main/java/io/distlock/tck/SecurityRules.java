package io.distlock.tck;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import static io.distlock.tck.LockVerification.SECRET;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Group 6 of {@code lock-tck/SPEC.md}, security: wrong credentials, a principal without rights, an
 * untrusted server certificate, and no secret anywhere. Each rule needs a part of the
 * {@link Security} hook and is skipped by name ("not run") without it.
 * A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface SecurityRules extends RuleGroup {

    /**
     * Rule 6.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("6.1 a wrong password is an authentication error, at once, not unavailable")
    default void required_6_1_wrongPassword() throws InterruptedException {
        Rig rig = Rig.of(this);
        Supplier<LockClient> connector = part(rig, Security::wrongPassword, "wrongPassword()");
        refusedIdentity(rig, connector, "a client with a wrong password", "the wrong password was accepted");
    }

    /**
     * Rule 6.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("6.3 a server certificate the client does not trust is refused")
    default void required_6_3_untrustedServer() throws InterruptedException {
        Rig rig = Rig.of(this);
        Supplier<LockClient> connector = part(rig, Security::untrustedServer, "untrustedServer()");
        refusedIdentity(rig, connector, "a client that does not trust the server's certificate",
                "the client accepted a server whose certificate it does not trust");
    }

    /**
     * Connects, then (if connecting did not refuse) makes a single attempt and a waiting one: the refusal
     * must be an AuthenticationException, from the connect or the first attempt, well before the wait
     * would end (no retry loop); afterwards a good client takes the lock at once.
     */
    private static void refusedIdentity(Rig rig, Supplier<LockClient> connector, String who, String accepted) throws InterruptedException {
        rig.backend(); // the verdict names the backend even if no good client connects before the refusal
        Duration longWait = rig.env.longLease();
        long start = System.nanoTime();
        Throwable refusal = null;
        try {
            LockClient client = rig.track(connector.get());
            DistributedLock lock = client.lock(rig.name);
            try {
                Optional<Lease> single = rig.track(lock.tryAcquire(rig.env.shortLease()));
                fail(rig.msg(accepted + ": " + who + " " + (single.isPresent() ? "was granted the lock" : "was told the lock is busy")));
            } catch (RuntimeException e) {
                refusal = e;
            }
            saw(refusal);
            if (refusal instanceof AuthenticationException) {
                // Authentication that only shows on use: a waiting attempt must end at once as well.
                long waitStart = System.nanoTime();
                Throwable waiting = null;
                try {
                    Optional<Lease> lease = rig.track(lock.tryAcquire(rig.env.shortLease(), longWait));
                    fail(rig.msg(accepted + ": a waiting attempt of " + who + " returned " + lease));
                } catch (RuntimeException e) {
                    waiting = e;
                }
                saw(waiting);
                Duration took = TestEnvironment.since(waitStart);
                assertTrue(waiting instanceof AuthenticationException, rig.msg("a waiting attempt of " + who
                        + " threw " + waiting + " instead of AuthenticationException"));
                assertTrue(took.compareTo(rig.env.defaultTimeout()) < 0, rig.msg("a waiting attempt (maxWait "
                        + TestEnvironment.millis(longWait) + ") of " + who + " took " + TestEnvironment.millis(took)
                        + " to fail: the refusal was retried as if the server were unavailable"));
            }
        } catch (RuntimeException e) {
            if (refusal != null) {
                throw e;
            }
            refusal = e; // the connect refused
            saw(refusal);
        }
        Duration took = TestEnvironment.since(start);
        assertFalse(refusal instanceof BackendUnavailableException, rig.msg(who + " was reported as unavailable, not refused: "
                + masked(rig, refusal)));
        assertTrue(refusal instanceof AuthenticationException, rig.msg(who + " threw " + masked(rig, refusal)
                + " instead of io.distlock.AuthenticationException"));
        AuthenticationException e = (AuthenticationException) refusal;
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), rig.msg("the AuthenticationException has no message"));
        assertTrue(e.endpoint() != null && !e.endpoint().isBlank(), rig.msg("the AuthenticationException names no endpoint"));
        assertNoSecretIn(rig, e, "the AuthenticationException");
        rig.notes.add("refused in " + TestEnvironment.millis(took) + ": " + masked(rig, e));
        Lease lease = rig.acquireNow(rig.client(), rig.env.shortLease());
        lease.release();
    }

    /**
     * Rule 6.2 (see SPEC.md).
     *
     * @throws Exception if the tamper hook fails otherwise than by the server's refusal
     */
    @Test
    @DisplayName("6.2 a principal without rights cannot take, release or extend a lock")
    default void required_6_2_noRightsNoLock() throws Exception {
        Rig rig = Rig.of(this);
        Supplier<LockClient> unprivileged = part(rig, Security::unprivilegedClient, "unprivilegedClient()");
        Optional<Security.Tamper> tamper = rig.hooks.security().orElseThrow().tamper();
        LockClient holderClient = rig.client();
        Lease held = rig.acquireNow(holderClient, rig.env.longLease());
        LockClient other = rig.client();

        if (tamper.isPresent()) {
            tamper.get().tryToTamper(rig.name);
            assertTrue(held.isValid(), rig.msg("after an unprivileged principal tampered with the lock, the holder's lease"
                    + " is no longer valid"));
            Optional<Lease> stolen = rig.track(other.lock(rig.name).tryAcquire(rig.env.shortLease()));
            assertTrue(stolen.isEmpty(), rig.msg("after an unprivileged principal tampered with the lock, another client"
                    + " was granted it while the holder's lease is valid"));
            rig.hooks.lockProbe().ifPresent(probe -> assertTrue(probe.heldFor(rig.name).isPresent(), rig.msg("after an unprivileged"
                    + " principal tampered with the lock, the server no longer holds it")));
            if (rig.backend().has(Feature.LEASE_EXTENSION)) {
                assertTrue(held.extend(rig.env.longLease()), rig.msg("after an unprivileged principal tampered with the lock,"
                        + " the holder could not extend its lease"));
            }
        } else {
            rig.notes.add("no tamper() hook: only distlock's own calls of the unprivileged principal were tried");
        }

        LockClient intruder;
        try {
            intruder = rig.track(unprivileged.get());
        } catch (AccessDeniedException refusedAtConnect) {
            // A backend that checks the principal's rights when it connects (Security: "the rules accept
            // the refusal from the connect or from the first operation"): nothing to attempt through it.
            expectAccessDenied(rig, () -> {
                throw refusedAtConnect;
            }, "the connect");
            rig.notes.add("the principal without rights was refused when it connected");
            assertTrue(held.isValid(), rig.msg("the unprivileged principal's connect ended the holder's lease"));
            held.release();
            expectAccessDenied(rig, () -> rig.track(rig.track(unprivileged.get()).lock(rig.name).tryAcquire(rig.env.shortLease())),
                    "a connect and a single attempt on the free lock");
            Lease next = rig.acquireNow(other, rig.env.shortLease());
            next.release();
            return;
        }
        DistributedLock lock = intruder.lock(rig.name);
        expectAccessDenied(rig, () -> rig.track(lock.tryAcquire(rig.env.shortLease())), "a single attempt on the held lock");
        long start = System.nanoTime();
        expectAccessDenied(rig, () -> rig.track(lock.tryAcquire(rig.env.shortLease(), rig.env.longLease())),
                "a waiting attempt on the held lock");
        Duration took = TestEnvironment.since(start);
        assertTrue(took.compareTo(rig.env.defaultTimeout()) < 0, rig.msg("the unprivileged principal's waiting attempt took "
                + TestEnvironment.millis(took) + " to be refused: the refusal was retried"));
        assertTrue(held.isValid(), rig.msg("the unprivileged principal's attempts ended the holder's lease"));

        held.release();
        expectAccessDenied(rig, () -> rig.track(lock.tryAcquire(rig.env.shortLease())), "a single attempt on the free lock");
        Lease next = rig.acquireNow(other, rig.env.shortLease());
        next.release();
    }

    /**
     * Rule 6.5 (see SPEC.md): revoking is an operator's act. A principal without rights on the lock
     * cannot revoke it: its revoke throws {@link AccessDeniedException} (or its connect does), and
     * the holder's lease stays valid.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("6.5 a principal without rights cannot revoke a lock")
    default void required_6_5_noRightsNoRevoke() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.REVOCATION);
        Supplier<LockClient> unprivileged = part(rig, Security::unprivilegedClient, "unprivilegedClient()");
        Lease held = rig.acquireNow(rig.client(), rig.env.longLease());
        expectAccessDenied(rig, () -> {
            LockClient intruder = rig.track(unprivileged.get());
            Optional<io.distlock.LockInfo> revoked = intruder.revoke(rig.name, "tck 6.5: taken by someone without rights");
            throw new AssertionError(rig.msg("a revoke by a principal without rights on the lock returned "
                    + (revoked.isPresent() ? "the holder it revoked" : "'not held'") + " instead of throwing AccessDeniedException"));
        }, "a revoke");
        assertTrue(held.isValid(), rig.msg("an unprivileged principal's revoke ended the holder's lease"));
        Optional<Lease> other = rig.track(rig.client().lock(rig.name).tryAcquire(rig.env.shortLease()));
        assertTrue(other.isEmpty(), rig.msg("after an unprivileged principal's refused revoke, another client was granted the"
                + " lock while the holder's lease is valid"));
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertTrue(held.extend(rig.env.longLease()), rig.msg("after an unprivileged principal's refused revoke, the holder"
                    + " could not extend its lease"));
        }
        held.release();
    }

    private static void expectAccessDenied(Rig rig, Rig.Call<Optional<Lease>> attempt, String what) throws InterruptedException {
        Throwable thrown = null;
        try {
            Optional<Lease> lease = attempt.call();
            fail(rig.msg(what + " by a principal without rights on the lock returned "
                    + (lease.isPresent() ? "a lease" : "empty (busy)") + " instead of throwing AccessDeniedException"));
        } catch (RuntimeException e) {
            thrown = e;
        }
        saw(thrown);
        assertTrue(thrown instanceof AccessDeniedException, rig.msg(what + " by a principal without rights threw "
                + masked(rig, thrown) + " instead of io.distlock.AccessDeniedException"));
        assertTrue(((AccessDeniedException) thrown).endpoint() != null, rig.msg("AccessDeniedException names no endpoint"));
        assertNoSecretIn(rig, thrown, "the AccessDeniedException");
    }

    /**
     * Rule 6.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("6.4 no secret in any log line, message or toString()")
    default void required_6_4_noSecretAnywhere() throws InterruptedException {
        Rig rig = Rig.of(this);
        Security security = rig.hooks.security().orElse(null);
        assumeTrue(security != null, VerdictExtension.NOT_RUN + "the verification supplies no security() hook");
        boolean slf4jPresent = isPresent("org.slf4j.LoggerFactory");
        assumeTrue(!slf4jPresent || CapturingSlf4jProvider.isSlf4jCaptured(), VerdictExtension.NOT_RUN
                + "SLF4J is on the class path but its logs cannot be captured: run the tests with"
                + " -Dslf4j.provider=io.distlock.tck.CapturingSlf4jProvider");

        // Everything group 6 does once more, with the capture running, collecting every text it meets.
        LockClient client = rig.client();
        saw(client.toString());
        DistributedLock lock = client.lock(rig.name);
        saw(lock.toString());
        Lease lease = rig.acquireNow(client, rig.env.shortLease());
        saw(lease.toString());
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            lease.extend(rig.env.shortLease());
        }
        lease.release();
        for (Function<Security, Optional<Supplier<LockClient>>> part : List.<Function<Security, Optional<Supplier<LockClient>>>>of(
                Security::wrongPassword, Security::untrustedServer, Security::unprivilegedClient)) {
            part.apply(security).ifPresent(connector -> {
                try {
                    LockClient c = rig.track(connector.get());
                    saw(c.toString());
                    rig.track(c.lock(rig.name).tryAcquire(rig.env.shortLease()));
                } catch (RuntimeException e) {
                    saw(e);
                }
            });
        }

        Set<String> secrets = secrets(security);
        List<String> seen = LogCapture.seen();
        List<String> found = new ArrayList<>();
        for (String text : seen) {
            for (String secret : secrets) {
                if (text.contains(secret)) {
                    found.add("a message or toString(): " + LogCapture.mask(text, secrets));
                }
            }
        }
        LogCapture.leaks().forEach(line -> found.add("a log line: " + line));
        assertTrue(found.isEmpty(), rig.msg("a secret (shown here as ***) appears in " + found.size() + " place(s): "
                + String.join(" || ", found.subList(0, Math.min(found.size(), 5)))));
        rig.notes.add(LogCapture.lines() + " log lines at every level (JDK logging" + (slf4jPresent ? " and SLF4J" : "")
                + ") captured from rule " + LogCapture.startedAt() + " on, and " + seen.size()
                + " exception texts and toString()s, hold none of " + secrets.size() + " secrets");
        LogCapture.forgetSeen();
    }

    /** Starts rule 6.4's capture at the first rule of a verification with a security hook. */
    static void startCapture(Rig rig) {
        rig.hooks.security().ifPresent(s -> LogCapture.start(secrets(s), rig.rule));
    }

    private static Set<String> secrets(Security security) {
        Set<String> all = new LinkedHashSet<>(security.secrets());
        all.add(SECRET);
        all.removeIf(s -> s == null || s.isEmpty());
        return all;
    }

    private static Supplier<LockClient> part(Rig rig, Function<Security, Optional<Supplier<LockClient>>> part, String name) {
        Optional<Security> security = rig.hooks.security();
        assumeTrue(security.isPresent(), VerdictExtension.NOT_RUN + "the verification supplies no security() hook");
        Optional<Supplier<LockClient>> connector = part.apply(security.get());
        assumeTrue(connector.isPresent(), VerdictExtension.NOT_RUN + "the security() hook offers no " + name);
        return connector.get();
    }

    private static void saw(Object thing) {
        if (thing instanceof Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            LogCapture.saw(trace.toString());
            if (t instanceof BackendUnavailableException b) {
                LogCapture.saw(b.endpoint());
            } else if (t instanceof AuthenticationException a) {
                LogCapture.saw(a.endpoint());
            } else if (t instanceof AccessDeniedException a) {
                LogCapture.saw(a.endpoint());
            }
        } else if (thing != null) {
            LogCapture.saw(thing.toString());
        }
    }

    private static void assertNoSecretIn(Rig rig, Throwable e, String what) {
        Set<String> secrets = secrets(rig.hooks.security().orElseThrow());
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        for (String secret : secrets) {
            assertFalse(trace.toString().contains(secret), rig.msg(what + " (its message, causes or stack trace) shows a"
                    + " secret: " + LogCapture.mask(trace.toString(), secrets)));
        }
    }

    private static String masked(Rig rig, Throwable e) {
        return e == null ? "nothing" : LogCapture.mask(e.toString(), secrets(rig.hooks.security().orElseThrow()));
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, SecurityRules.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
