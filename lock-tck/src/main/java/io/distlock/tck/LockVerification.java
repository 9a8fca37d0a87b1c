package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.NoSuchBackendException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The TCK: every rule of {@code lock-tck/SPEC.md} as one JUnit 5 test. A backend author extends this
 * class, implements {@link #newClient()}, and overrides the hooks that apply:
 *
 * <pre>{@code
 * class RedisLockVerificationTest extends LockVerification {
 *     static final RedisServer server = RedisServer.start();
 *
 *     protected LockClient newClient() {
 *         return Locks.connect(server.uri());
 *     }
 *
 *     protected Optional<String> unreachableUri() {
 *         return Optional.of("redis://user:" + SECRET + "@127.0.0.1:" + closedPort);
 *     }
 * }
 * }</pre>
 *
 * <p>Test methods are named after their rule: {@code required_...} for a MUST,
 * {@code optional_...} for a SHOULD. A rule whose feature the backend does not declare is
 * skipped (a JUnit assumption) with a message naming the feature. After the class has run, a
 * verdict is written to {@code <distlock.tck.reportDir>/<scheme>-verdict.md}. All timing comes from
 * {@link #environment()}; raise {@code -Ddistlock.tck.timeoutFactor} on a slow machine.
 *
 * <p>Each rule uses a fresh random lock name, and every client, lease and thread it creates is
 * closed after it, so rules do not leak into each other. Waits are for conditions (Awaitility), with
 * one exception: rule 4.1 sleeps, because a sleeping holder is what it models.
 */
@TestMethodOrder(MethodOrderer.DisplayName.class)
public abstract class LockVerification {

    /**
     * Put this string wherever a password goes in {@link #malformedUris()} and
     * {@link #unreachableUri()}: rules 5.4 and 5.5 check that no message shows it.
     */
    public static final String SECRET = "tck-S3cret-9f27";

    /** Writes the verdict after the class (static: it needs the class-level callbacks). */
    @RegisterExtension
    static final Extension VERDICT = new VerdictExtension();

    private Rig rig;
    private final List<String> findings = new CopyOnWriteArrayList<>();
    private final List<String> notes = new CopyOnWriteArrayList<>();

    /** For subclasses. */
    protected LockVerification() {
    }

    // ------------------------------------------------------------------------------------------
    // What a backend author supplies

    /**
     * Opens a fresh, independent client of the backend under test: each call stands for another
     * process. All clients must reach the same lock server(s).
     *
     * @return a connected client; the TCK closes it
     */
    protected abstract LockClient newClient();

    /**
     * URIs of the backend's scheme that {@link Locks#connect(String)} must reject with an
     * {@link IllegalArgumentException} (rule 5.4), each with {@link #SECRET} as its password. The
     * TCK adds a few that no backend can parse.
     *
     * @return the backend-specific malformed URIs; none by default
     */
    protected List<String> malformedUris() {
        return List.of();
    }

    /**
     * A well-formed URI of a server that cannot be reached, with {@link #SECRET} as its password
     * (rule 5.5); for example a closed loopback port.
     *
     * @return the URI; empty fails rule 5.5 (every backend can be unreachable)
     */
    protected Optional<String> unreachableUri() {
        return Optional.empty();
    }

    /**
     * The hook that stops a minority of nodes (rule 2.8, for backends declaring {@link Feature#QUORUM}).
     *
     * @return the hook; empty fails rule 2.8 for a backend that declares {@link Feature#QUORUM}
     */
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.empty();
    }

    /**
     * @return the timing every rule uses; by default scaled by {@code -Ddistlock.tck.timeoutFactor}
     */
    protected TestEnvironment environment() {
        return new TestEnvironment();
    }

    // ------------------------------------------------------------------------------------------
    // Per-rule set-up and tear-down

    /**
     * Opens the rule: a fresh lock name and a fresh set of tracked resources.
     *
     * @param info the running test
     */
    @BeforeEach
    public final void openRule(TestInfo info) {
        TestEnvironment env = Objects.requireNonNull(environment(), "environment() returned null");
        String display = info.getDisplayName();
        String rule = display.indexOf(' ') > 0 ? display.substring(0, display.indexOf(' ')) : display;
        String name = "distlock-tck-" + rule + "-" + UUID.randomUUID().toString().substring(0, 8);
        rig = new Rig(env, rule, name, this::newClient);
    }

    /** Closes every client, lease and thread the rule created. */
    @AfterEach
    public final void closeRule() {
        if (rig != null) {
            rig.close();
        }
    }

    Optional<BackendDescriptor> descriptorSeen() {
        return rig == null ? Optional.empty() : rig.descriptorSeen();
    }

    List<String> findings() {
        return List.copyOf(findings);
    }

    /** What a passing rule measured (the size of a contention history), for the verdict. */
    List<String> notes() {
        return List.copyOf(notes);
    }

    private TestEnvironment env() {
        return rig.env;
    }

    private String msg(String text) {
        return rig.msg(text);
    }

    private void requireFeature(Feature feature) {
        BackendDescriptor backend = rig.backend();
        assumeTrue(backend.has(feature), () -> "skipped: backend '" + backend.scheme() + "' lacks feature " + feature);
    }

    // ------------------------------------------------------------------------------------------
    // 1 Safety

    /**
     * Rule 1.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.1 at most one valid lease at any instant under contention")
    public void required_1_1_atMostOneValidLease() throws InterruptedException {
        History history = Contention.run(rig, new FencedResource(), 2);
        List<HistoryChecker.Violation> violations = HistoryChecker.overlappingLeases(history);
        assertTrue(violations.isEmpty(), () -> msg(violations.size() + " overlapping valid leases in " + history
                + ":\n" + HistoryChecker.describe(violations, 5)));
        notes.add("checked " + history.acquisitions() + " grants to " + history.distinctHolders() + " of "
                + env().contentionClients() + " clients (" + env().contentionRounds() + " rounds each)");
    }

    /**
     * Rule 1.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.2 release touches only the caller's own lease")
    public void required_1_2_releaseTouchesOnlyOwnLease() throws InterruptedException {
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient c = rig.client();
        Lease leaseA = rig.acquireNow(a, env().shortLease());
        rig.awaitInvalid(leaseA, "A's");
        Lease leaseB = rig.acquireWithin(b, env().longLease(), env().defaultTimeout(),
                "B could not acquire after A's lease expired");

        leaseA.release();

        assertTrue(leaseB.isValid(), msg("B's lease turned invalid when A released its expired lease"));
        assertTrue(rig.track(c.lock(rig.name).tryAcquire(env().shortLease())).isEmpty(),
                msg("after A released its expired lease, a third client acquired the lock B holds:"
                        + " release is not owner-only (a blind delete?)"));
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            assertTrue(leaseB.extend(env().longLease()),
                    msg("B could not extend its lease after A released its expired lease: A's release removed B's lease"));
        }
    }

    /**
     * Rule 1.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.3 extend touches only the caller's own lease")
    public void required_1_3_extendTouchesOnlyOwnLease() throws InterruptedException {
        requireFeature(Feature.LEASE_EXTENSION);
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient c = rig.client();
        Lease leaseA = rig.acquireNow(a, env().shortLease());
        rig.awaitInvalid(leaseA, "A's");
        long beforeB = System.nanoTime();
        Lease leaseB = rig.acquireWithin(b, env().shortLease(), env().defaultTimeout(),
                "B could not acquire after A's lease expired");
        long promiseB = System.nanoTime() + leaseB.remaining().toNanos();

        assertFalse(leaseA.extend(env().longLease()),
                msg("A extended its expired lease although B holds the lock now"));

        Duration maxWait = env().shortLease().plus(env().handOffTimeout());
        Optional<Lease> leaseC = rig.track(c.lock(rig.name).tryAcquire(env().shortLease(), maxWait));
        long gotC = System.nanoTime();
        assertTrue(leaseC.isPresent(), msg("B's lease of " + TestEnvironment.millis(env().shortLease())
                + " was still held " + TestEnvironment.millis(TestEnvironment.since(beforeB))
                + " after B acquired it: A's extend prolonged B's lease"));
        assertTrue(gotC - promiseB >= 0, msg("a third client acquired while B's lease was still valid"));
    }

    /**
     * Rule 1.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.4 fencing tokens strictly increase with every grant")
    public void required_1_4_fencingTokensIncrease() throws InterruptedException {
        requireFeature(Feature.FENCING_TOKENS);
        LockClient a = rig.client();
        LockClient b = rig.client();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Lease lease = rig.acquireNow(i % 2 == 0 ? a : b, env().shortLease());
            tokens.add(token(lease));
            lease.release();
        }
        Lease expiring = rig.acquireNow(a, env().shortLease());
        tokens.add(token(expiring));
        Lease next = rig.acquireWithin(b, env().shortLease(), env().defaultTimeout(),
                "B could not acquire after A's lease expired");
        tokens.add(token(next));
        next.release();
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1),
                    msg("fencing token did not increase from grant " + i + " to " + (i + 1) + ": " + tokens
                            + (i == tokens.size() - 1 ? " (the last grant followed an expiry)" : "")));
        }

        History history = Contention.run(rig, new FencedResource(), 0);
        List<HistoryChecker.Violation> violations = HistoryChecker.fencingOrder(history);
        assertTrue(violations.isEmpty(), () -> msg(violations.size() + " fencing-order violations under contention in "
                + history + ":\n" + HistoryChecker.describe(violations, 5)));
        notes.add(tokens.size() + " sequential grants, then " + history.acquisitions() + " contended grants in order");
    }

    private long token(Lease lease) {
        OptionalLong token = lease.fencingToken();
        assertTrue(token.isPresent(), msg("a lease of a backend declaring FENCING_TOKENS has no fencing token"));
        return token.getAsLong();
    }

    /** Rule 1.5 (see SPEC.md). */
    @Test
    @DisplayName("1.5 remaining() never over-promises")
    public void required_1_5_remainingNeverOverPromises() {
        LockClient a = rig.client();
        DistributedLock probe = rig.client().lock(rig.name);
        Duration leaseTime = env().shortLease();
        Lease leaseA = rig.acquireNow(a, leaseTime);
        AtomicLong promise = new AtomicLong(System.nanoTime());
        Duration[] previous = {leaseTime};
        env().awaitUntil(msg("waiting for A's remaining() to reach zero, or another client to acquire after it did"),
                leaseTime.plus(env().defaultTimeout()), () -> {
                    long before = System.nanoTime();
                    Duration remaining = leaseA.remaining();
                    assertFalse(remaining.isNegative(), msg("remaining() was negative: " + remaining));
                    assertTrue(remaining.compareTo(previous[0]) <= 0, msg("remaining() grew without an extend: "
                            + previous[0] + " then " + remaining + " (lease time " + leaseTime + ")"));
                    previous[0] = remaining;
                    promise.accumulateAndGet(before + remaining.toNanos(), (x, y) -> y - x > 0 ? y : x);
                    Optional<Lease> other = rig.track(probe.tryAcquire(leaseTime));
                    long probed = System.nanoTime();
                    if (other.isPresent()) {
                        long overPromise = promise.get() - probed;
                        assertTrue(overPromise <= 0, msg("another client acquired while A's remaining() still promised "
                                + TestEnvironment.millis(Duration.ofNanos(overPromise)) + " of validity"));
                        return true;
                    }
                    return remaining.isZero();
                });
        assertFalse(leaseA.isValid(), msg("isValid() was true after remaining() reached zero"));
    }

    /**
     * Rule 1.6 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.6 a lock is not re-entrant")
    public void required_1_6_notReentrant() throws InterruptedException {
        LockClient a = rig.client();
        DistributedLock lock = a.lock(rig.name);
        Lease held = rig.track(lock.tryAcquire(env().longLease()))
                .orElseThrow(() -> new AssertionError(msg("a single attempt on a free lock found it busy")));

        assertTrue(rig.track(lock.tryAcquire(env().shortLease())).isEmpty(),
                msg("a second tryAcquire through the same handle was granted while the first lease is held"));
        assertTrue(rig.track(a.lock(rig.name).tryAcquire(env().shortLease())).isEmpty(),
                msg("a second tryAcquire through the same client was granted while the first lease is held"));
        assertTrue(rig.track(a.lock(rig.name).tryAcquire(env().shortLease(), env().contentionWait())).isEmpty(),
                msg("a waiting tryAcquire through the same client was granted while the first lease is held"));
        assertTrue(held.isValid(), msg("the held lease turned invalid after re-entrant attempts"));

        held.release();
        assertTrue(rig.track(lock.tryAcquire(env().shortLease())).isPresent(),
                msg("after release, the same client could not acquire again"));
    }

    /**
     * Rule 1.7 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("1.7 a fenced resource accepts every write of a valid holder")
    public void required_1_7_fencedResourceAcceptsValidHolders() throws InterruptedException {
        requireFeature(Feature.FENCING_TOKENS);
        FencedResource resource = new FencedResource();
        History history = Contention.run(rig, resource, 0);
        List<HistoryChecker.Violation> violations = HistoryChecker.rejectedValidWrites(history);
        assertTrue(violations.isEmpty(), () -> msg(violations.size() + " writes of valid holders were rejected by "
                + resource + " in " + history + ":\n" + HistoryChecker.describe(violations, 5)));
        assertTrue(resource.accepted() > 0, msg("no write was accepted at all: " + resource));
        notes.add(resource.accepted() + " fenced writes by " + history.distinctHolders() + " clients accepted");
    }

    /** Rule 1.8 (see SPEC.md). */
    @Test
    @DisplayName("1.8 the declaration is consistent and ended leases report it")
    public void required_1_8_consistentDeclaration() {
        BackendDescriptor declared = rig.backend();
        assertTrue(declared.guarantee() != Guarantee.CORRECTNESS || declared.has(Feature.FENCING_TOKENS),
                msg("declares CORRECTNESS without FENCING_TOKENS"));
        assertTrue(!declared.has(Feature.AUTO_RENEWAL) || declared.has(Feature.LEASE_EXTENSION),
                msg("declares AUTO_RENEWAL without LEASE_EXTENSION"));
        LockClient a = rig.client();
        assertEquals(declared, a.backend(), msg("two clients of one backend describe it differently"));

        Lease lease = rig.acquireNow(a, env().shortLease());
        assertEquals(rig.name, lease.lockName(), msg("lockName() differs from the name the lock was taken by"));
        assertEquals(declared.has(Feature.FENCING_TOKENS), lease.fencingToken().isPresent(),
                msg("fencingToken() presence disagrees with the declared features " + declared.features()));
        assertTrue(lease.remaining().compareTo(env().shortLease()) <= 0,
                msg("remaining() " + lease.remaining() + " exceeds the lease time " + env().shortLease()));
        if (!declared.has(Feature.LEASE_EXTENSION)) {
            assertThrows(UnsupportedOperationException.class, () -> lease.extend(env().shortLease()),
                    msg("extend() must throw UnsupportedOperationException without LEASE_EXTENSION"));
        }
        if (!declared.has(Feature.AUTO_RENEWAL)) {
            assertThrows(UnsupportedOperationException.class, lease::autoRenew,
                    msg("autoRenew() must throw UnsupportedOperationException without AUTO_RENEWAL"));
        }
        lease.release();
        assertFalse(lease.isValid(), msg("a released lease reports isValid() == true"));
        assertEquals(Duration.ZERO, lease.remaining(), msg("a released lease reports remaining() > 0"));
        lease.release(); // idempotent

        Lease expiring = rig.acquireNow(a, env().shortLease());
        rig.awaitInvalid(expiring, "the");
        assertEquals(Duration.ZERO, expiring.remaining(), msg("an expired lease reports remaining() > 0"));
    }

    // ------------------------------------------------------------------------------------------
    // 2 Liveness

    /**
     * Rule 2.1 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.1 a waiter gets the lock soon after release")
    public void required_2_1_handOffAfterRelease() throws InterruptedException {
        Lease holder = rig.acquireNow(rig.client(), env().longLease());
        DistributedLock lock = rig.client().lock(rig.name);
        Rig.Waiter<Optional<Lease>> waiter = rig.start("waiter",
                () -> rig.track(lock.tryAcquire(env().longLease(), env().defaultTimeout().plus(env().handOffTimeout()))));
        rig.awaitBlocked(waiter);
        if (waiter.result.isDone()) {
            fail(msg("the waiter returned " + rig.outcome(waiter, Duration.ZERO) + " while the holder still held the lock"));
        }

        long released = System.nanoTime();
        holder.release();
        Optional<Lease> got = rig.outcome(waiter, env().defaultTimeout().plus(env().handOffTimeout()));
        assertTrue(got.isPresent(), msg("the waiter did not get the lock after the holder released it"));
        Duration handOff = Duration.ofNanos(waiter.finishedAtNanos - released);
        assertTrue(handOff.compareTo(env().handOffTimeout()) <= 0, msg("the waiter got the lock "
                + TestEnvironment.millis(handOff) + " after the release; at most "
                + TestEnvironment.millis(env().handOffTimeout()) + " expected"));
    }

    /**
     * Rule 2.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.2 the lock recovers after a holder stops without releasing")
    public void required_2_2_recoveryAfterHolderStops() throws InterruptedException {
        LockClient a = rig.client(); // stays open: the holder just stops
        LockClient b = rig.client();
        long beforeA = System.nanoTime();
        Lease leaseA = rig.acquireNow(a, env().shortLease());
        long promiseA = System.nanoTime() + leaseA.remaining().toNanos();

        Duration maxWait = env().shortLease().plus(env().defaultTimeout());
        Optional<Lease> leaseB = rig.track(b.lock(rig.name).tryAcquire(env().shortLease(), maxWait));
        long gotB = System.nanoTime();
        assertTrue(leaseB.isPresent(), msg("nobody could acquire the lock within " + TestEnvironment.millis(maxWait)
                + " after a holder with a lease of " + TestEnvironment.millis(env().shortLease()) + " stopped"));
        assertTrue(gotB - promiseA >= 0, msg("B acquired while A's lease was still valid"));
        Duration recovery = Duration.ofNanos(gotB - beforeA).minus(env().shortLease());
        assertTrue(recovery.compareTo(env().handOffTimeout()) <= 0, msg("B acquired " + TestEnvironment.millis(recovery)
                + " after A's lease time ended; at most " + TestEnvironment.millis(env().handOffTimeout()) + " expected"));
    }

    /**
     * Rule 2.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.3 maxWait is honoured")
    public void required_2_3_maxWaitHonoured() throws InterruptedException {
        rig.acquireNow(rig.client(), env().longLease());
        DistributedLock lock = rig.client().lock(rig.name);
        Duration maxWait = env().shortWait();
        long start = System.nanoTime();
        Optional<Lease> got = rig.track(lock.tryAcquire(env().shortLease(), maxWait));
        Duration took = TestEnvironment.since(start);
        assertTrue(got.isEmpty(), msg("acquired a lock that another client holds"));
        assertTrue(took.compareTo(maxWait) >= 0, msg("gave up after " + TestEnvironment.millis(took)
                + ", before maxWait " + TestEnvironment.millis(maxWait)));
        assertTrue(took.compareTo(maxWait.plus(env().tolerance())) <= 0, msg("returned " + TestEnvironment.millis(took)
                + " after the call, more than maxWait " + TestEnvironment.millis(maxWait) + " + tolerance "
                + TestEnvironment.millis(env().tolerance())));
    }

    /**
     * Rule 2.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.4 an interrupted acquire throws promptly and leaves nothing held")
    public void required_2_4_interruptedAcquireLeavesNothing() throws InterruptedException {
        Lease holder = rig.acquireNow(rig.client(), env().longLease());
        DistributedLock forever = rig.client().lock(rig.name);
        DistributedLock bounded = rig.client().lock(rig.name);
        Rig.Waiter<Lease> acquiring = rig.start("acquire", () -> rig.track(forever.acquire(env().shortLease())));
        Rig.Waiter<Optional<Lease>> trying = rig.start("tryAcquire",
                () -> rig.track(bounded.tryAcquire(env().shortLease(), env().longLease())));
        rig.awaitBlocked(acquiring);
        rig.awaitBlocked(trying);

        long interrupted = System.nanoTime();
        acquiring.thread.interrupt();
        trying.thread.interrupt();
        for (Rig.Waiter<?> waiter : List.of(acquiring, trying)) {
            Throwable thrown = rig.failure(waiter, env().defaultTimeout());
            assertTrue(thrown instanceof InterruptedException, msg("an interrupted " + waiter.label
                    + " did not throw InterruptedException but " + (thrown == null ? "returned normally" : thrown)));
            Duration took = Duration.ofNanos(waiter.finishedAtNanos - interrupted);
            assertTrue(took.compareTo(env().tolerance()) <= 0, msg("an interrupted " + waiter.label + " took "
                    + TestEnvironment.millis(took) + " to throw; at most " + TestEnvironment.millis(env().tolerance())));
        }

        holder.release();
        assertTrue(rig.track(rig.client().lock(rig.name).tryAcquire(env().shortLease())).isPresent(),
                msg("after the holder released, a single attempt found the lock held:"
                        + " an interrupted acquire left a request behind that was granted to nobody alive"));
    }

    /**
     * Rule 2.5 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.5 a timed-out acquire leaves nothing held")
    public void required_2_5_timedOutAcquireLeavesNothing() throws InterruptedException {
        Lease holder = rig.acquireNow(rig.client(), env().longLease());
        Optional<Lease> gaveUp = rig.track(rig.client().lock(rig.name).tryAcquire(env().shortLease(), env().shortWait()));
        assertTrue(gaveUp.isEmpty(), msg("acquired a lock that another client holds"));

        holder.release();
        assertTrue(rig.track(rig.client().lock(rig.name).tryAcquire(env().shortLease())).isPresent(),
                msg("after the holder released, a single attempt found the lock held:"
                        + " a timed-out acquire left a request behind that was granted to nobody alive"));
    }

    /** Rule 2.6 (see SPEC.md). */
    @Test
    @DisplayName("2.6 distinct names do not contend")
    public void required_2_6_distinctNamesDoNotContend() {
        LockClient a = rig.client();
        LockClient b = rig.client();
        rig.acquireNow(a, env().longLease());
        String base = rig.name;
        List<String> others = List.of(base + "-other", base.toUpperCase(Locale.ROOT), "x" + base, base + ":x",
                base + "/x", base + " x", base + "-ñ", base + "-n", base + "-\u6f22");
        for (String other : others) {
            assertTrue(rig.track(b.lock(other).tryAcquire(env().longLease())).isPresent(),
                    msg("lock '" + other + "' was busy although only '" + base + "' and other distinct names are held"));
        }
        String longPrefix = (base + "-").concat("p".repeat(LockClient.MAX_NAME_LENGTH)).substring(0, LockClient.MAX_NAME_LENGTH - 1);
        rig.acquireNow(a, longPrefix + "a", env().longLease());
        assertTrue(rig.track(b.lock(longPrefix + "b").tryAcquire(env().longLease())).isPresent(),
                msg("two names of the maximum length " + LockClient.MAX_NAME_LENGTH
                        + " that differ only in their last character contend"));
    }

    /**
     * Rule 2.7 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.7 waiters are served in FIFO order")
    public void optional_2_7_fifoWaiters() throws InterruptedException {
        requireFeature(Feature.FIFO_WAITERS);
        Lease holder = rig.acquireNow(rig.client(), env().longLease());
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Rig.Waiter<Boolean>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int position = i;
            DistributedLock lock = rig.client().lock(rig.name);
            Rig.Waiter<Boolean> waiter = rig.start("waiter-" + i, () -> {
                Optional<Lease> got = lock.tryAcquire(env().longLease(), env().defaultTimeout().plus(env().defaultTimeout()));
                got.ifPresent(lease -> {
                    order.add(position);
                    lease.release();
                });
                return got.isPresent();
            });
            rig.awaitBlocked(waiter);
            waiters.add(waiter);
        }
        holder.release();
        for (Rig.Waiter<Boolean> waiter : waiters) {
            assertTrue(rig.outcome(waiter, env().defaultTimeout().plus(env().defaultTimeout())),
                    msg(waiter.label + " never got the lock"));
        }
        assertEquals(List.of(0, 1, 2, 3), List.copyOf(order),
                msg("waiters were served in this order, not in the order they started waiting"));
    }

    /**
     * Rule 2.8 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("2.8 a minority of nodes down does not block")
    @SuppressWarnings("try") // the fault is only closed, never used
    public void required_2_8_minorityDownDoesNotBlock() throws InterruptedException {
        requireFeature(Feature.QUORUM);
        Optional<NodeFaults> faults = nodeFaults();
        // A declared capability must be proven: a missing hook fails the rule instead of skipping it.
        assertTrue(faults.isPresent(), msg("backend '" + rig.backend().scheme()
                + "' declares QUORUM but the verification supplies no nodeFaults() hook to prove it"));
        LockClient before = rig.client();
        try (NodeFaults.Fault fault = faults.get().stopMinority()) {
            LockClient during = rig.client();
            Lease lease = rig.acquireWithin(before, env().shortLease(), env().defaultTimeout(),
                    "with a minority of nodes down, a client connected before the fault could not acquire");
            assertTrue(rig.track(during.lock(rig.name).tryAcquire(env().shortLease())).isEmpty(),
                    msg("with a minority of nodes down, two clients held the lock at once"));
            lease.release();
            rig.acquireWithin(during, env().shortLease(), env().defaultTimeout(),
                    "with a minority of nodes down, a client connected during the fault could not acquire after a release");
        }
    }

    // ------------------------------------------------------------------------------------------
    // 3 Renewal

    /** Rule 3.1 (see SPEC.md). */
    @Test
    @DisplayName("3.1 extend prolongs the lease")
    public void required_3_1_extendProlongsLease() {
        requireFeature(Feature.LEASE_EXTENSION);
        Duration leaseTime = env().shortLease();
        long beforeA = System.nanoTime();
        Lease lease = rig.acquireNow(rig.client(), leaseTime);
        long originalEnd = beforeA + leaseTime.toNanos();
        DistributedLock probe = rig.client().lock(rig.name);
        Duration before = lease.remaining();

        Duration extended = leaseTime.multipliedBy(3);
        assertTrue(lease.extend(extended), msg("extend of a held, valid lease returned false"));
        Duration after = lease.remaining();
        assertTrue(after.compareTo(extended) <= 0, msg("remaining() " + after + " exceeds the new lease time " + extended));
        assertTrue(after.compareTo(before) > 0, msg("remaining() was not recomputed by extend: " + before + " then " + after));

        env().assertHoldsUntil(msg("no other client acquires past the original end of an extended lease"),
                originalEnd + env().tolerance().toNanos(),
                () -> rig.track(probe.tryAcquire(leaseTime)).isEmpty());
        assertTrue(lease.isValid(), msg("the extended lease turned invalid before its new end"));
        lease.release();
        assertTrue(rig.track(probe.tryAcquire(leaseTime)).isPresent(), msg("after release, another client could not acquire"));
    }

    /** Rule 3.2 (see SPEC.md). */
    @Test
    @DisplayName("3.2 autoRenew keeps the lease across many lease times")
    public void required_3_2_autoRenewKeepsLease() {
        requireFeature(Feature.AUTO_RENEWAL);
        Duration leaseTime = env().shortLease();
        Lease lease = rig.acquireNow(rig.client(), leaseTime).autoRenew();
        DistributedLock probe = rig.client().lock(rig.name);
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();

        long start = System.nanoTime();
        env().assertHoldsFor(msg("an auto-renewed lease stays valid and exclusive for 5 lease times"),
                leaseTime.multipliedBy(5), () -> {
                    String after = " after " + TestEnvironment.millis(TestEnvironment.since(start));
                    assertTrue(lease.isValid(), msg("the auto-renewed lease turned invalid" + after));
                    assertFalse(lost.isDone(), msg("lost() of the auto-renewed lease completed" + after));
                    assertTrue(lease.remaining().compareTo(leaseTime) <= 0,
                            msg("remaining() " + lease.remaining() + " exceeds the lease time " + leaseTime + after));
                    return rig.track(probe.tryAcquire(leaseTime)).isEmpty();
                });
        lease.release();
        assertTrue(rig.track(probe.tryAcquire(leaseTime)).isPresent(), msg("after release, another client could not acquire"));
    }

    /**
     * Rule 3.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("3.3 renewal stops after release")
    public void required_3_3_renewalStopsAfterRelease() throws InterruptedException {
        requireFeature(Feature.AUTO_RENEWAL);
        Duration leaseTime = env().shortLease();
        Lease leaseA = rig.acquireNow(rig.client(), leaseTime).autoRenew();
        env().assertHoldsFor(msg("an auto-renewed lease stays valid past its lease time"), leaseTime.multipliedBy(2),
                leaseA::isValid);
        leaseA.release();

        LockClient b = rig.client();
        long beforeB = System.nanoTime();
        Lease leaseB = rig.track(b.lock(rig.name).tryAcquire(leaseTime)).orElseThrow(() -> new AssertionError(
                msg("right after A released its auto-renewed lease, a single attempt of B found the lock held")));
        long promiseB = System.nanoTime() + leaseB.remaining().toNanos();
        DistributedLock probe = rig.client().lock(rig.name);
        List<Lease> probed = new CopyOnWriteArrayList<>();
        env().assertHoldsUntil(msg("nobody else acquires while B's lease is valid"), promiseB, () -> {
            Optional<Lease> got = rig.track(probe.tryAcquire(leaseTime));
            got.ifPresent(probed::add); // legitimate only if the probe ended after B's validity
            return got.isEmpty();
        });

        Optional<Lease> after = probed.isEmpty()
                ? rig.track(probe.tryAcquire(leaseTime, env().handOffTimeout()))
                : Optional.of(probed.get(0));
        assertTrue(after.isPresent(), msg("B's lease of " + TestEnvironment.millis(leaseTime) + " was still held "
                + TestEnvironment.millis(TestEnvironment.since(beforeB)) + " after B acquired it:"
                + " something kept it held (A's renewal running on after release? a leftover request?)"));
        assertFalse(leaseA.lost().toCompletableFuture().isDone(), msg("lost() of a released lease completed"));
    }

    /**
     * Rule 3.4 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("3.4 loss is signalled, and only for leases that were not released")
    public void required_3_4_lossIsSignalled() throws InterruptedException {
        requireFeature(Feature.LOSS_NOTIFICATION);
        Duration leaseTime = env().shortLease();
        LockClient a = rig.client();
        long beforeA = System.nanoTime();
        Lease lease = rig.acquireNow(a, leaseTime);
        long promise = System.nanoTime() + lease.remaining().toNanos();
        AtomicLong lostAt = new AtomicLong();
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture()
                .whenComplete((reason, error) -> lostAt.set(System.nanoTime()));

        Lease.LossReason reason;
        try {
            reason = lost.get(leaseTime.plus(env().defaultTimeout()).toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(msg("lost() did not complete for a lease that was neither released nor renewed"), e);
        } catch (ExecutionException e) {
            throw new AssertionError(msg("lost() completed exceptionally"), e.getCause());
        }
        assertEquals(Lease.LossReason.EXPIRED, reason, msg("a lease that simply ran out was lost for another reason"));
        assertTrue(lostAt.get() - promise >= 0, msg("lost() completed before the lease's validity passed"));
        Duration late = Duration.ofNanos(lostAt.get() - beforeA).minus(leaseTime);
        assertTrue(late.compareTo(env().tolerance()) <= 0, msg("lost() completed " + TestEnvironment.millis(late)
                + " after the lease time ended; at most " + TestEnvironment.millis(env().tolerance())));
        assertFalse(lease.isValid(), msg("a lost lease reports isValid() == true"));

        // Another name: the server may hold the lost lease for the drift allowance after lost() completed.
        Lease released = rig.acquireNow(a, rig.name + "-released", leaseTime);
        CompletableFuture<Lease.LossReason> releasedLost = released.lost().toCompletableFuture();
        released.release();
        env().assertHoldsFor(msg("lost() of a released lease never completes"), leaseTime.plus(env().tolerance()),
                () -> !releasedLost.isDone());
    }

    /**
     * Rule 3.5 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("3.5 extend fails after expiry, and throws after release")
    public void required_3_5_extendAfterEnd() throws InterruptedException {
        requireFeature(Feature.LEASE_EXTENSION);
        LockClient a = rig.client();
        Lease expired = rig.acquireNow(a, env().shortLease());
        rig.awaitInvalid(expired, "A's");
        Lease other = rig.acquireWithin(rig.client(), env().longLease(), env().defaultTimeout(),
                "B could not acquire after A's lease expired");
        assertFalse(expired.extend(env().shortLease()), msg("extend of an expired lease, since granted to B, returned true"));
        assertFalse(expired.isValid(), msg("an expired lease reports isValid() == true after a failed extend"));
        if (rig.backend().has(Feature.LOSS_NOTIFICATION)) {
            env().awaitUntil(msg("waiting for lost() of an expired lease whose extend failed to complete"), env().tolerance(),
                    () -> expired.lost().toCompletableFuture().isDone());
        }
        other.release();

        Lease released = rig.acquireNow(a, env().shortLease());
        released.release();
        assertThrows(IllegalStateException.class, () -> released.extend(env().shortLease()),
                msg("extend of a released lease must throw IllegalStateException"));
        if (rig.backend().has(Feature.AUTO_RENEWAL)) {
            assertThrows(IllegalStateException.class, released::autoRenew,
                    msg("autoRenew of a released lease must throw IllegalStateException"));
        }
    }

    // ------------------------------------------------------------------------------------------
    // 4 Faults

    /**
     * Rule 4.1: the one rule that sleeps, because a paused holder is what it models.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("4.1 a paused holder's stale write is fenced off")
    public void required_4_1_clientPauseIsFenced() throws InterruptedException {
        BackendDescriptor backend = rig.backend();
        FencedResource resource = new FencedResource();
        Lease leaseA = rig.acquireNow(rig.client(), env().shortLease());
        assertTrue(resource.write("A", leaseA.fencingToken()), msg("an empty resource rejected the first holder's write"));
        DistributedLock lockB = rig.client().lock(rig.name);
        OptionalLong[] tokenB = {OptionalLong.empty()};
        Rig.Waiter<Boolean> b = rig.start("B", () -> {
            Lease leaseB = rig.track(lockB.tryAcquire(env().longLease(), env().defaultTimeout())).orElseThrow(() ->
                    new AssertionError(msg("B did not acquire after A's lease ran out")));
            tokenB[0] = leaseB.fencingToken();
            return resource.write("B", leaseB.fencingToken());
        });

        assertTrue(leaseA.isValid(), msg("A's lease was not valid right after acquire"));
        // A has checked its lease and is about to write: now it pauses (a GC, a stopped VM) past its validity.
        Thread.sleep(leaseA.remaining().plus(env().tolerance()).toMillis());

        assertTrue(rig.outcome(b, env().defaultTimeout()), msg("the resource rejected the write of B, the valid holder"
                + " (token " + tokenB[0] + ", resource " + resource + ")"));
        assertFalse(leaseA.isValid(), msg("A's lease still reports isValid() == true after its validity passed"));
        boolean staleAccepted = resource.write("A", leaseA.fencingToken());
        if (!staleAccepted) {
            return;
        }
        if (leaseA.fencingToken().isEmpty() && backend.guarantee() == Guarantee.EFFICIENCY) {
            findings.add("4.1 client pause: the paused holder's stale write was accepted after another client"
                    + " acquired and wrote: '" + backend.scheme() + "' has no fencing tokens, so a pause longer than"
                    + " the lease lets two holders write (expected for an EFFICIENCY lock; do not use it for correctness)");
            return;
        }
        fail(msg("the resource accepted the stale write of the paused holder A (token " + leaseA.fencingToken()
                + ") after B (token " + tokenB[0] + ") wrote; declared " + backend.guarantee()));
    }

    // ------------------------------------------------------------------------------------------
    // 5 Input

    /** Rule 5.1 (see SPEC.md). */
    @Test
    @DisplayName("5.1 bad lock names are rejected")
    public void required_5_1_badNames() {
        LockClient client = rig.client();
        assertThrows(NullPointerException.class, () -> client.lock(null), msg("lock(null) must throw NullPointerException"));
        List<String> bad = List.of("", " ", "\t \n", "x".repeat(LockClient.MAX_NAME_LENGTH + 1),
                "a\u0000b", "a\nb", "a\rb", "a\u001bb", "a\u007fb", "a\u0085b");
        for (String name : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> client.lock(name),
                    msg("lock(" + printable(name) + ") must throw IllegalArgumentException"));
            assertClearMessage(e, "lock(" + printable(name) + ")");
        }
        for (String good : List.of("x".repeat(LockClient.MAX_NAME_LENGTH), rig.name + " with spaces", rig.name + "-\u00e9\u6f22")) {
            Lease lease = rig.acquireNow(client, good, env().shortLease());
            assertEquals(good, lease.lockName(), msg("lockName() differs from the name the lock was taken by"));
            lease.release();
        }
    }

    /**
     * Rule 5.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("5.2 bad lease times and waits are rejected, nothing held")
    public void required_5_2_badDurations() throws InterruptedException {
        LockClient client = rig.client();
        DistributedLock lock = client.lock(rig.name);
        Duration ok = env().shortLease();
        Duration wait = env().contentionWait();
        assertThrows(NullPointerException.class, () -> lock.tryAcquire(null), msg("tryAcquire(null) must throw NullPointerException"));
        assertThrows(NullPointerException.class, () -> lock.tryAcquire(null, wait), msg("tryAcquire(null, wait) must throw NullPointerException"));
        assertThrows(NullPointerException.class, () -> lock.tryAcquire(ok, null), msg("tryAcquire(lease, null) must throw NullPointerException"));
        assertThrows(NullPointerException.class, () -> lock.acquire(null), msg("acquire(null) must throw NullPointerException"));
        List<Duration> badLeases = List.of(Duration.ZERO, Duration.ofMillis(-1),
                DistributedLock.MIN_LEASE_TIME.minusNanos(1), DistributedLock.MAX_LEASE_TIME.plusMillis(1));
        for (Duration bad : badLeases) {
            expectIllegalArgument(() -> rig.track(lock.tryAcquire(bad)), "tryAcquire(" + bad + ")");
            expectIllegalArgument(() -> rig.track(lock.tryAcquire(bad, wait)), "tryAcquire(" + bad + ", " + wait + ")");
            expectIllegalArgument(() -> rig.track(lock.acquire(bad)), "acquire(" + bad + ")");
        }
        expectIllegalArgument(() -> rig.track(lock.tryAcquire(ok, Duration.ofMillis(-1))), "tryAcquire(" + ok + ", -1 ms)");

        Lease lease = rig.acquireNow(rig.client(), ok);
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            for (Duration bad : badLeases) {
                expectIllegalArgument(() -> lease.extend(bad), "extend(" + bad + ")");
            }
            assertThrows(NullPointerException.class, () -> lease.extend(null), msg("extend(null) must throw NullPointerException"));
            assertTrue(lease.isValid(), msg("a rejected extend ended the lease"));
        }
        lease.release();
        assertTrue(rig.track(lock.tryAcquire(ok)).isPresent(),
                msg("after rejected calls, the same client could not acquire the free lock"));
    }

    private void expectIllegalArgument(Executable call, String what) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call,
                msg(what + " must throw IllegalArgumentException"));
        assertClearMessage(e, what);
    }

    private void assertClearMessage(Throwable e, String what) {
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), msg(what + " threw " + e.getClass().getName()
                + " without a message"));
    }

    /**
     * Rule 5.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("5.3 a closed client releases its leases and refuses work")
    public void required_5_3_useAfterClose() throws InterruptedException {
        LockClient closing = rig.client();
        LockClient other = rig.client();
        String busyName = rig.name + "-busy";
        Lease held = rig.acquireNow(closing, env().longLease());
        rig.acquireNow(other, busyName, env().longLease());
        DistributedLock handle = closing.lock(rig.name + "-handle");
        DistributedLock busy = closing.lock(busyName);
        Rig.Waiter<Optional<Lease>> waiter = rig.start("waiter",
                () -> rig.track(busy.tryAcquire(env().shortLease(), env().longLease())));
        rig.awaitBlocked(waiter);

        long closed = System.nanoTime();
        closing.close();

        Throwable woken = rig.failure(waiter, env().defaultTimeout());
        assertTrue(woken instanceof IllegalStateException, msg("a waiter of a closed client did not throw"
                + " IllegalStateException but " + (woken == null ? "returned normally" : woken)));
        Duration wake = Duration.ofNanos(waiter.finishedAtNanos - closed);
        assertTrue(wake.compareTo(env().tolerance()) <= 0, msg("a waiter of a closed client took "
                + TestEnvironment.millis(wake) + " to be woken; at most " + TestEnvironment.millis(env().tolerance())));
        assertThrows(IllegalStateException.class, () -> closing.lock(rig.name), msg("lock() after close must throw IllegalStateException"));
        assertThrows(IllegalStateException.class, () -> rig.track(handle.tryAcquire(env().shortLease())),
                msg("tryAcquire on a handle of a closed client must throw IllegalStateException"));
        assertThrows(IllegalStateException.class, () -> rig.track(handle.tryAcquire(env().shortLease(), env().contentionWait())),
                msg("a waiting tryAcquire on a handle of a closed client must throw IllegalStateException"));
        assertThrows(IllegalStateException.class, () -> rig.track(handle.acquire(env().shortLease())),
                msg("acquire on a handle of a closed client must throw IllegalStateException"));

        assertFalse(held.isValid(), msg("a lease of a closed client reports isValid() == true"));
        assertTrue(rig.track(other.lock(rig.name).tryAcquire(env().shortLease())).isPresent(),
                msg("a lease held when its client closed was not released: another client could not acquire"));
        held.release(); // a no-op after close
        closing.close(); // idempotent
    }

    /** Rule 5.4 (see SPEC.md). */
    @Test
    @DisplayName("5.4 malformed URIs are rejected without showing the password")
    public void required_5_4_malformedUris() {
        String scheme = rig.backend().scheme();
        List<String> uris = new ArrayList<>(List.of(
                scheme + "://tck:" + SECRET + "@[::1",
                scheme + "://tck:" + SECRET + "@host/%zz",
                scheme + "://tck:" + SECRET + "@host name",
                "//tck:" + SECRET + "@host-without-scheme"));
        uris.addAll(malformedUris());
        for (String uri : uris) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rig.track(Locks.connect(uri)),
                    msg("Locks.connect must reject the malformed URI " + redacted(uri) + " with IllegalArgumentException"));
            assertClearMessage(e, "Locks.connect(" + redacted(uri) + ")");
            assertNoSecret(e, "Locks.connect(" + redacted(uri) + ")");
        }
    }

    /** Rule 5.5 (see SPEC.md). */
    @Test
    @DisplayName("5.5 an unreachable server is reported in time, naming the endpoint, not the password")
    public void required_5_5_unreachableServer() {
        Optional<String> uri = unreachableUri();
        assertTrue(uri.isPresent(), msg("the verification supplies no unreachableUri(): every backend"
                + " must show how it fails when its server cannot be reached"));
        Duration timeout = env().connectTimeout();
        LockOptions options = LockOptions.builder().connectTimeout(timeout).operationTimeout(timeout).build();
        Duration bound = timeout.multipliedBy(2).plus(env().tolerance());
        long start = System.nanoTime();
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> {
            LockClient client = rig.track(Locks.connect(URI.create(uri.get()), options));
            rig.track(client.lock(rig.name).tryAcquire(env().shortLease()));
        }, msg("neither connecting to nor acquiring from " + redacted(uri.get()) + " threw BackendUnavailableException"));
        Duration took = TestEnvironment.since(start);
        assertTrue(took.compareTo(bound) <= 0, msg("BackendUnavailableException came after " + TestEnvironment.millis(took)
                + "; at most " + TestEnvironment.millis(bound) + " with a connect timeout of " + TestEnvironment.millis(timeout)));
        assertNoSecret(e, "the BackendUnavailableException");
        assertTrue(e.endpoint() != null && !e.endpoint().isBlank(), msg("BackendUnavailableException names no endpoint"));
        assertTrue(String.valueOf(e.getMessage()).contains(e.endpoint()),
                msg("the message does not name the endpoint '" + e.endpoint() + "': " + e.getMessage()));
    }

    /** Rule 5.6 (see SPEC.md). */
    @Test
    @DisplayName("5.6 an unknown scheme is reported with the installed ones")
    public void required_5_6_unknownScheme() {
        String scheme = rig.backend().scheme();
        NoSuchBackendException e = assertThrows(NoSuchBackendException.class, () -> rig.track(Locks.connect("nosuch://x")),
                msg("Locks.connect(\"nosuch://x\") must throw NoSuchBackendException"));
        assertEquals("nosuch", e.scheme(), msg("NoSuchBackendException names the wrong scheme"));
        assertTrue(String.valueOf(e.getMessage()).contains("nosuch"), msg("the message does not name the scheme: " + e.getMessage()));
        assertTrue(e.installedSchemes().contains(scheme), msg("installedSchemes() " + e.installedSchemes()
                + " lacks '" + scheme + "', the backend under test"));
    }

    private void assertNoSecret(Throwable e, String what) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t).contains(SECRET), msg(what + " shows the password: " + t.getClass().getName()
                    + " in the cause chain contains it"));
            if (t instanceof BackendUnavailableException) {
                assertFalse(((BackendUnavailableException) t).endpoint().contains(SECRET),
                        msg(what + " shows the password in endpoint()"));
            }
        }
    }

    private static String redacted(String uri) {
        return "'" + uri.replace(SECRET, "***") + "'";
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder("\"");
        if (s.length() > 40) {
            return "<" + s.length() + " chars>";
        }
        for (char c : s.toCharArray()) {
            b.append(Character.isISOControl(c) ? String.format(Locale.ROOT, "\\u%04x", (int) c) : String.valueOf(c));
        }
        return b.append('"').toString();
    }
}
