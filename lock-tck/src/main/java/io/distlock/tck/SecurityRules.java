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
 * {@link Security} hook and is skipped by name ("not run") without it. The last link of the chain
 * before {@link LockVerification} (see {@link VerificationSupport}).
 */
abstract class SecurityRules extends InputRules {

    /** What rule 6.4 collects from the rules of group 6 besides the logs: exception texts, toString()s. */
    private static final List<String> SEEN = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Rule 6.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("6.1 a wrong password is an authentication error, at once, not unavailable")
    public void required_6_1_wrongPassword() throws InterruptedException {
        Supplier<LockClient> connector = part(Security::wrongPassword, "wrongPassword()");
        refusedIdentity(connector, "a client with a wrong password", "the wrong password was accepted");
    }

    /**
     * Rule 6.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("6.3 a server certificate the client does not trust is refused")
    public void required_6_3_untrustedServer() throws InterruptedException {
        Supplier<LockClient> connector = part(Security::untrustedServer, "untrustedServer()");
        refusedIdentity(connector, "a client that does not trust the server's certificate",
                "the client accepted a server whose certificate it does not trust");
    }

    /**
     * Connects, then (if connecting did not refuse) makes a single attempt and a waiting one: the refusal
     * must be an AuthenticationException, from the connect or the first attempt, well before the wait
     * would end (no retry loop); afterwards a good client takes the lock at once.
     */
    private void refusedIdentity(Supplier<LockClient> connector, String who, String accepted) throws InterruptedException {
        rig.backend(); // the verdict names the backend even if no good client connects before the refusal
        Duration longWait = env().longLease();
        long start = System.nanoTime();
        Throwable refusal = null;
        try {
            LockClient client = rig.track(connector.get());
            DistributedLock lock = client.lock(rig.name);
            try {
                Optional<Lease> single = rig.track(lock.tryAcquire(env().shortLease()));
                fail(msg(accepted + ": " + who + " " + (single.isPresent() ? "was granted the lock" : "was told the lock is busy")));
            } catch (RuntimeException e) {
                refusal = e;
            }
            saw(refusal);
            if (refusal instanceof AuthenticationException) {
                // Authentication that only shows on use: a waiting attempt must end at once as well.
                long waitStart = System.nanoTime();
                Throwable waiting = null;
                try {
                    Optional<Lease> lease = rig.track(lock.tryAcquire(env().shortLease(), longWait));
                    fail(msg(accepted + ": a waiting attempt of " + who + " returned " + lease));
                } catch (RuntimeException e) {
                    waiting = e;
                }
                saw(waiting);
                Duration took = TestEnvironment.since(waitStart);
                assertTrue(waiting instanceof AuthenticationException, msg("a waiting attempt of " + who
                        + " threw " + waiting + " instead of AuthenticationException"));
                assertTrue(took.compareTo(env().defaultTimeout()) < 0, msg("a waiting attempt (maxWait "
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
        assertFalse(refusal instanceof BackendUnavailableException, msg(who + " was reported as unavailable, not refused: "
                + masked(refusal)));
        assertTrue(refusal instanceof AuthenticationException, msg(who + " threw " + masked(refusal)
                + " instead of io.distlock.AuthenticationException"));
        AuthenticationException e = (AuthenticationException) refusal;
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), msg("the AuthenticationException has no message"));
        assertTrue(e.endpoint() != null && !e.endpoint().isBlank(), msg("the AuthenticationException names no endpoint"));
        assertNoSecretIn(e, "the AuthenticationException");
        notes.add("refused in " + TestEnvironment.millis(took) + ": " + masked(e));
        Lease lease = rig.acquireNow(rig.client(), env().shortLease());
        lease.release();
    }

    /**
     * Rule 6.2 (see SPEC.md).
     *
     * @throws Exception if the tamper hook fails otherwise than by the server's refusal
     */
    @Test
    @DisplayName("6.2 a principal without rights cannot take, release or extend a lock")
    public void required_6_2_noRightsNoLock() throws Exception {
        Supplier<LockClient> unprivileged = part(Security::unprivilegedClient, "unprivilegedClient()");
        Optional<Security.Tamper> tamper = security().orElseThrow().tamper();
        LockClient holderClient = rig.client();
        Lease held = rig.acquireNow(holderClient, env().longLease());
        LockClient other = rig.client();

        if (tamper.isPresent()) {
            tamper.get().tryToTamper(rig.name);
            assertTrue(held.isValid(), msg("after an unprivileged principal tampered with the lock, the holder's lease"
                    + " is no longer valid"));
            Optional<Lease> stolen = rig.track(other.lock(rig.name).tryAcquire(env().shortLease()));
            assertTrue(stolen.isEmpty(), msg("after an unprivileged principal tampered with the lock, another client"
                    + " was granted it while the holder's lease is valid"));
            lockProbe().ifPresent(probe -> assertTrue(probe.heldFor(rig.name).isPresent(), msg("after an unprivileged"
                    + " principal tampered with the lock, the server no longer holds it")));
            if (rig.backend().has(Feature.LEASE_EXTENSION)) {
                assertTrue(held.extend(env().longLease()), msg("after an unprivileged principal tampered with the lock,"
                        + " the holder could not extend its lease"));
            }
        } else {
            notes.add("no tamper() hook: only distlock's own calls of the unprivileged principal were tried");
        }

        LockClient intruder;
        try {
            intruder = rig.track(unprivileged.get());
        } catch (AccessDeniedException refusedAtConnect) {
            // A backend that checks the principal's rights when it connects (Security: "the rules accept
            // the refusal from the connect or from the first operation"): nothing to attempt through it.
            expectAccessDenied(() -> {
                throw refusedAtConnect;
            }, "the connect");
            notes.add("the principal without rights was refused when it connected");
            assertTrue(held.isValid(), msg("the unprivileged principal's connect ended the holder's lease"));
            held.release();
            expectAccessDenied(() -> rig.track(rig.track(unprivileged.get()).lock(rig.name).tryAcquire(env().shortLease())),
                    "a connect and a single attempt on the free lock");
            Lease next = rig.acquireNow(other, env().shortLease());
            next.release();
            return;
        }
        DistributedLock lock = intruder.lock(rig.name);
        expectAccessDenied(() -> rig.track(lock.tryAcquire(env().shortLease())), "a single attempt on the held lock");
        long start = System.nanoTime();
        expectAccessDenied(() -> rig.track(lock.tryAcquire(env().shortLease(), env().longLease())),
                "a waiting attempt on the held lock");
        Duration took = TestEnvironment.since(start);
        assertTrue(took.compareTo(env().defaultTimeout()) < 0, msg("the unprivileged principal's waiting attempt took "
                + TestEnvironment.millis(took) + " to be refused: the refusal was retried"));
        assertTrue(held.isValid(), msg("the unprivileged principal's attempts ended the holder's lease"));

        held.release();
        expectAccessDenied(() -> rig.track(lock.tryAcquire(env().shortLease())), "a single attempt on the free lock");
        Lease next = rig.acquireNow(other, env().shortLease());
        next.release();
    }

    /** An acquire attempt, which may wait. */
    @FunctionalInterface
    private interface AcquireAttempt {
        Optional<Lease> run() throws InterruptedException;
    }

    private void expectAccessDenied(AcquireAttempt attempt, String what) throws InterruptedException {
        Throwable thrown = null;
        try {
            Optional<Lease> lease = attempt.run();
            fail(msg(what + " by a principal without rights on the lock returned "
                    + (lease.isPresent() ? "a lease" : "empty (busy)") + " instead of throwing AccessDeniedException"));
        } catch (RuntimeException e) {
            thrown = e;
        }
        saw(thrown);
        assertTrue(thrown instanceof AccessDeniedException, msg(what + " by a principal without rights threw "
                + masked(thrown) + " instead of io.distlock.AccessDeniedException"));
        assertTrue(((AccessDeniedException) thrown).endpoint() != null, msg("AccessDeniedException names no endpoint"));
        assertNoSecretIn(thrown, "the AccessDeniedException");
    }

    /**
     * Rule 6.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("6.4 no secret in any log line, message or toString()")
    public void required_6_4_noSecretAnywhere() throws InterruptedException {
        Security security = security().orElse(null);
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
        Lease lease = rig.acquireNow(client, env().shortLease());
        saw(lease.toString());
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            lease.extend(env().shortLease());
        }
        lease.release();
        for (Function<Security, Optional<Supplier<LockClient>>> part : List.<Function<Security, Optional<Supplier<LockClient>>>>of(
                Security::wrongPassword, Security::untrustedServer, Security::unprivilegedClient)) {
            part.apply(security).ifPresent(connector -> {
                try {
                    LockClient c = rig.track(connector.get());
                    saw(c.toString());
                    rig.track(c.lock(rig.name).tryAcquire(env().shortLease()));
                } catch (RuntimeException e) {
                    saw(e);
                }
            });
        }

        Set<String> secrets = secrets(security);
        List<String> found = new ArrayList<>();
        for (String text : SEEN) {
            for (String secret : secrets) {
                if (text.contains(secret)) {
                    found.add("a message or toString(): " + LogCapture.mask(text, secrets));
                }
            }
        }
        LogCapture.leaks().forEach(line -> found.add("a log line: " + line));
        assertTrue(found.isEmpty(), msg("a secret (shown here as ***) appears in " + found.size() + " place(s): "
                + String.join(" || ", found.subList(0, Math.min(found.size(), 5)))));
        notes.add(LogCapture.lines() + " log lines at every level (JDK logging" + (slf4jPresent ? " and SLF4J" : "")
                + ") captured from rule " + LogCapture.startedAt() + " on, and " + SEEN.size()
                + " exception texts and toString()s, hold none of " + secrets.size() + " secrets");
        SEEN.clear();
    }

    /** Starts rule 6.4's capture at the first rule of a verification with a security hook. */
    void startCapture(String rule) {
        security().ifPresent(s -> LogCapture.start(secrets(s), rule));
    }

    private static Set<String> secrets(Security security) {
        Set<String> all = new LinkedHashSet<>(security.secrets());
        all.add(SECRET);
        all.removeIf(s -> s == null || s.isEmpty());
        return all;
    }

    private Supplier<LockClient> part(Function<Security, Optional<Supplier<LockClient>>> part, String name) {
        Optional<Security> security = security();
        assumeTrue(security.isPresent(), VerdictExtension.NOT_RUN + "the verification supplies no security() hook");
        Optional<Supplier<LockClient>> connector = part.apply(security.get());
        assumeTrue(connector.isPresent(), VerdictExtension.NOT_RUN + "the security() hook offers no " + name);
        return connector.get();
    }

    private static void saw(Object thing) {
        if (thing instanceof Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            SEEN.add(trace.toString());
            if (t instanceof BackendUnavailableException b) {
                SEEN.add(b.endpoint());
            } else if (t instanceof AuthenticationException a) {
                SEEN.add(a.endpoint());
            } else if (t instanceof AccessDeniedException a) {
                SEEN.add(a.endpoint());
            }
        } else if (thing != null) {
            SEEN.add(thing.toString());
        }
    }

    private void assertNoSecretIn(Throwable e, String what) {
        Set<String> secrets = secrets(security().orElseThrow());
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        for (String secret : secrets) {
            assertFalse(trace.toString().contains(secret), msg(what + " (its message, causes or stack trace) shows a"
                    + " secret: " + LogCapture.mask(trace.toString(), secrets)));
        }
    }

    private String masked(Throwable e) {
        return e == null ? "nothing" : LogCapture.mask(e.toString(), secrets(security().orElseThrow()));
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
