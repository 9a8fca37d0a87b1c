package io.distlock.zookeeper;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.PermitCountMismatchException;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import io.distlock.zookeeper.internal.LockNodes;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.distlock.zookeeper.HoldLines.line;
import static io.distlock.zookeeper.HoldLines.request;
import static io.distlock.zookeeper.HoldLines.roundTrip;
import static io.distlock.zookeeper.HoldLines.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Semaphores against one real server, each client a process of its own: N permits and not N + 1,
 * under contention too; a permit whose holder stops renewing, or whose client's session ends, comes
 * back; a count that differs from the live one is refused at once and leaves nothing; tokens
 * increase; nodes carry the count in their names; a waiter is woken only by what can let it in;
 * {@code holders()} lists each permit held and {@code revoke(holdId, reason)} takes one back.
 */
class ZooKeeperSemaphoreTest {

    private static final String CHROOT = "/semaphore-test";
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration SHORT_LEASE = Duration.ofMillis(800);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static ZkServers server;
    private static ZooKeeper raw;

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final Opened opened = new Opened();

    @BeforeAll
    static void start() throws Exception {
        server = ZkServers.single();
        raw = RawZk.connect(server.connectString(), null, null);
    }

    @AfterAll
    static void stop() throws Exception {
        raw.close();
        server.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        executor.shutdownNow();
        opened.closeAll();
    }

    private LockClient client() {
        return client("semaphore-test");
    }

    private LockClient client(String owner) {
        return opened.add(Locks.connect(URI.create(server.uri(CHROOT)), LockOptions.builder().owner(owner).build()));
    }

    private static List<String> permitLine(String name) {
        return line(raw, LockNodes.semaphoreDir(CHROOT, name));
    }

    /** The hold id of a node of the semaphore {@code name}: its sequence and its directory's czxid. */
    private static String holdId(String name, String node) throws Exception {
        return LockNodes.holdId(node, raw.exists(LockNodes.semaphoreDir(CHROOT, name), false).getCzxid());
    }

    @Test
    void nPermitsAndNotNPlusOneWithIncreasingTokensAndTheCountInEveryNodesName() {
        String name = unique("three");
        List<Lease> held = new ArrayList<>();
        long last = 0;
        for (int i = 0; i < 3; i++) {
            Lease permit = client().semaphore(name, 3).tryAcquire(LEASE).orElseThrow();
            assertThat(permit.fencingToken().orElseThrow()).isGreaterThan(last);
            last = permit.fencingToken().orElseThrow();
            held.add(permit);
        }
        LockClient fourth = client();
        assertThat(fourth.semaphore(name, 3).tryAcquire(LEASE)).as("a fourth permit of three").isEmpty();
        assertThat(permitLine(name)).as("the refused attempt left nothing").hasSize(3).allMatch(node -> node.startsWith("permit-3-"));
        held.remove(1).release();
        Lease fourthPermit = fourth.semaphore(name, 3).tryAcquire(LEASE).orElseThrow();
        assertThat(fourthPermit.fencingToken().orElseThrow()).isGreaterThan(last);
        assertThat(client().semaphore(name, 3).tryAcquire(LEASE)).isEmpty();
        fourthPermit.release();
        held.forEach(Lease::release);
        assertThat(permitLine(name)).isEmpty();
    }

    @Test
    void atMostNPermitsAreHeldAtOnceUnderContention() throws Exception {
        String name = unique("contended");
        int permits = 2;
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            DistributedSemaphore semaphore = client().semaphore(name, permits);
            workers.add(executor.submit(() -> {
                while (!stop.get()) {
                    Optional<Lease> permit = semaphore.tryAcquire(LEASE, WAIT);
                    if (permit.isPresent()) {
                        most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                        grants.incrementAndGet();
                        Thread.sleep(5);
                        holding.decrementAndGet(); // before the release: the next grant follows the node's deletion
                        permit.get().release();
                    }
                }
                return null;
            }));
        }
        long started = System.nanoTime();
        // Contention until every permit was held at once and enough grants went round.
        await("every permit held at once, and 20 grants").atMost(WAIT.multipliedBy(3))
                .until(() -> most.get() == permits && grants.get() > 20);
        stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        System.out.printf("[ZooKeeperSemaphoreTest] %d grants of %d permits among 6 clients in %d ms%n", grants.get(), permits,
                (System.nanoTime() - started) / 1_000_000);
        assertThat(most.get()).as("permits held at once").isEqualTo(permits);
        assertThat(grants.get()).isGreaterThan(20);
        assertThat(permitLine(name)).isEmpty();
    }

    @Test
    void aPermitWhoseHolderStopsRenewingComesBackAfterItsLease() throws Exception {
        String name = unique("stopped");
        Lease stopped = client().semaphore(name, 1).tryAcquire(SHORT_LEASE).orElseThrow(); // never extended, never released
        long start = System.nanoTime();
        Lease next = client().semaphore(name, 1).tryAcquire(LEASE, WAIT).orElseThrow();
        long waited = (System.nanoTime() - start) / 1_000_000;
        assertThat(stopped.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
        assertThat(waited).as("ms waited for a permit of " + SHORT_LEASE).isBetween(SHORT_LEASE.toMillis() / 2, SHORT_LEASE.toMillis() + 4_000);
        assertThat(permitLine(name)).hasSize(1);
        next.release();
    }

    /**
     * A holder of two permits whose leases end at different times gives each back at the end of its
     * own lease: a waiter gets the first one while the holder's other permit is still valid, and the
     * two valid permits are then all there is.
     */
    @Test
    void eachPermitComesBackAtTheEndOfItsOwnLease() throws Exception {
        String name = unique("own-lease");
        LockClient holder = client();
        Lease shorter = holder.semaphore(name, 2).tryAcquire(SHORT_LEASE).orElseThrow();
        Lease longer = holder.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
        LockClient waiter = client();
        Lease next = waiter.semaphore(name, 2).tryAcquire(LEASE, WAIT).orElseThrow();
        assertThat(shorter.isValid()).isFalse();
        assertThat(longer.isValid()).as("the holder's other permit").isTrue();
        assertThat(client().semaphore(name, 2).tryAcquire(LEASE)).as("a third beside the two valid ones").isEmpty();
        next.release();
        longer.release();
    }

    @Test
    void aRenewedPermitOutlivesItsLeaseTime() {
        String name = unique("renewed");
        Lease permit = client().semaphore(name, 1).tryAcquire(SHORT_LEASE).orElseThrow().autoRenew();
        await().during(SHORT_LEASE.multipliedBy(3).dividedBy(2)).atMost(SHORT_LEASE.multipliedBy(4)).until(permit::isValid);
        LockClient other = client();
        assertThat(other.semaphore(name, 1).tryAcquire(LEASE)).isEmpty();
        permit.release();
        other.semaphore(name, 1).tryAcquire(LEASE).orElseThrow().release();
    }

    @Test
    void aPermitWhoseClientsSessionEndsComesBackAtOnce() throws Exception {
        String name = unique("session");
        LockClient holder = client();
        LockClient waiter = client();
        Lease permit = holder.semaphore(name, 1).tryAcquire(LEASE).orElseThrow();
        Future<Optional<Lease>> waiting = executor.submit(() -> waiter.semaphore(name, 1).tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> permitLine(name).size() == 2);
        long start = System.nanoTime();
        server.expireSession(holder); // as when the holder's process dies: its session ends, its nodes go
        Lease next = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("long before the lease's end").isLessThan(LEASE.dividedBy(2));
        assertThat(permit.lost().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
        assertThat(permitLine(name)).hasSize(1);
        next.release();
        // The holder's client goes on with a new session.
        await().atMost(WAIT).ignoreExceptions().until(() -> holder.semaphore(name, 1).tryAcquire(LEASE).map(lease -> {
            lease.release();
            return true;
        }).orElse(false));
    }

    @Test
    void aCountOtherThanTheLiveOneIsRefusedAtOnceAndLeavesNothing() throws Exception {
        String name = unique("mismatch");
        LockClient holder = client();
        LockClient other = client();
        Lease held = holder.semaphore(name, 3).tryAcquire(LEASE).orElseThrow();
        long start = System.nanoTime();
        assertThatThrownBy(() -> other.semaphore(name, 2).tryAcquire(LEASE, WAIT))
                .isInstanceOfSatisfying(PermitCountMismatchException.class, e -> {
                    assertThat(e.stored()).isEqualTo(3);
                    assertThat(e.requested()).isEqualTo(2);
                })
                .hasMessageContaining(name);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused, not waited").isLessThan(Duration.ofSeconds(3));
        assertThatThrownBy(() -> other.semaphore(name, 4).tryAcquire(LEASE)).isInstanceOf(PermitCountMismatchException.class);
        assertThat(permitLine(name)).as("only the holder's node").hasSize(1).allMatch(node -> node.startsWith("permit-3-"));
        Lease same = other.semaphore(name, 3).tryAcquire(LEASE).orElseThrow();

        // A waiter's count is live too: with the permit of one held and a request waiting, another count is refused.
        String single = unique("mismatch-waiting");
        Lease one = holder.semaphore(single, 1).tryAcquire(LEASE).orElseThrow();
        Future<Optional<Lease>> waiting = executor.submit(() -> other.semaphore(single, 1).tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> permitLine(single).size() == 2);
        one.release();
        Lease waited = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThatThrownBy(() -> client().semaphore(single, 2).tryAcquire(LEASE)).isInstanceOf(PermitCountMismatchException.class);
        waited.release();

        held.release();
        same.release();
        assertThat(permitLine(name)).isEmpty();
        Lease recounted = other.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
        assertThat(permitLine(name)).as("once every permit is back, another count").hasSize(1).allMatch(node -> node.startsWith("permit-2-"));
        recounted.release();
    }

    /**
     * Two permits held (P1, P2) and waiters W1 to W4, each watching the two nodes right ahead of it.
     * A waiter joining wakes nobody. P1 going wakes W1 only (W2 watches P2 and W1, W3 watches W1 and
     * W2), and W1's grant, marked on its node, wakes nobody. W1 going wakes the two behind it: W2 is
     * let in, W3 moves up behind P2 and W2. P2 going then wakes W3, which is let in.
     */
    @Test
    void aWaiterIsWokenOnlyByTheDeletionOfOneOfThePermitsNodesAheadOfIt() throws Exception {
        String name = unique("herd");
        Hold two = Hold.permit(2);
        ZkLockDriver p1 = driver();
        ZkLockDriver p2 = driver();
        List<ZkLockDriver> waiters = List.of(driver(), driver(), driver());
        Grant first = p1.tryAcquire(request(name, two)).grant();
        Grant second = p2.tryAcquire(request(name, two)).grant();
        List<LockRequest> requests = new ArrayList<>();
        List<AtomicInteger> woken = new ArrayList<>();
        for (ZkLockDriver waiter : waiters) {
            LockRequest request = request(name, two);
            assertThat(waiter.tryAcquire(request).isBusy()).isTrue();
            AtomicInteger count = new AtomicInteger();
            waiter.watch(request, count::incrementAndGet);
            requests.add(request);
            woken.add(count);
        }
        assertThat(driver().tryAcquire(request(name, two)).isBusy()).as("a fourth waiter joins").isTrue();

        p1.release(first);
        await().atMost(WAIT).until(() -> woken.get(0).get() > 0);
        Grant w1 = waiters.get(0).tryAcquire(requests.get(0)).grant(); // marked granted: a data change, which wakes nobody
        roundTrip(waiters.get(1).zooKeeper());
        roundTrip(waiters.get(2).zooKeeper());
        assertThat(woken.get(1)).as("W2, when P1 goes (it watches P2 and W1)").hasValue(0);
        assertThat(woken.get(2)).as("W3, when P1 goes (it watches W1 and W2)").hasValue(0);
        assertThat(waiters.get(1).tryAcquire(requests.get(1)).isBusy()).isTrue();

        // The line is P2 W1 W2 W3 W4. W1 goes: W2 (P2, W1 ahead) is let in, W3 (W1, W2 ahead) moves up and is woken.
        waiters.get(0).release(w1);
        await().atMost(WAIT).until(() -> woken.get(1).get() > 0 && woken.get(2).get() > 0);
        Grant w2 = waiters.get(1).tryAcquire(requests.get(1)).grant();
        assertThat(waiters.get(2).tryAcquire(requests.get(2)).isBusy()).as("W3 behind P2 and W2").isTrue();
        int w3Before = woken.get(2).get();

        // P2 goes, which W3 now watches: W3 is let in while W2 holds.
        p2.release(second);
        await().atMost(WAIT).until(() -> woken.get(2).get() > w3Before);
        Grant w3 = waiters.get(2).tryAcquire(requests.get(2)).grant();
        assertThat(w3.fencingToken().orElseThrow()).isGreaterThan(w2.fencingToken().orElseThrow());
        waiters.get(1).release(w2);
        waiters.get(2).release(w3);
    }

    /**
     * {@code holders()}: each permit held is the node of the line that holds (not a waiter's), with
     * its sequence as hold id (never the owner token its name carries), the count its name carries,
     * its {@code czxid} as token, its owner, its grant time and the waiters behind; in line order.
     */
    @Test
    void holdersListsEachPermitHeldByItsNodesSequenceAndNeverItsOwnerToken() throws Exception {
        String name = unique("listed");
        LockClient operator = client("ops");
        assertThat(operator.semaphore(name, 3).holders()).as("nothing held").isEmpty();
        Instant before = Instant.now().minusSeconds(2); // the server's clock is this machine's, give or take
        List<Lease> held = new ArrayList<>();
        for (String owner : List.of("worker-a", "worker-b", "worker-c")) {
            held.add(client(owner).semaphore(name, 3).tryAcquire(LEASE).orElseThrow());
        }
        Instant after = Instant.now().plusSeconds(2);
        Future<Optional<Lease>> waiting = executor.submit(() -> client("worker-d").semaphore(name, 3).tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> permitLine(name).size() == 4);
        List<String> nodes = permitLine(name);

        List<LockInfo> holds = operator.semaphore(name, 3).holders();
        assertThat(holds).extracting(LockInfo::kind).containsOnly(LockInfo.Kind.PERMIT);
        assertThat(holds).extracting(info -> info.holdId().orElseThrow())
                .as("the sequences of the first three nodes, in line order")
                .containsExactly(holdId(name, nodes.get(0)), holdId(name, nodes.get(1)), holdId(name, nodes.get(2)));
        assertThat(holds).extracting(LockInfo::owner).containsExactly(Optional.of("worker-a"), Optional.of("worker-b"), Optional.of("worker-c"));
        assertThat(holds).extracting(LockInfo::fencingToken).containsExactly(held.get(0).fencingToken(), held.get(1).fencingToken(),
                held.get(2).fencingToken());
        for (int i = 0; i < 3; i++) {
            LockInfo info = holds.get(i);
            String token = LockNodes.ownerToken(nodes.get(i));
            assertThat(info.permits()).hasValue(3);
            assertThat(info.waiters()).hasValue(1);
            assertThat(info.remaining()).as("a session store: the holder's engine ends the lease").isEmpty();
            assertThat(info.acquiredClock()).contains(LockInfo.Clock.SERVER);
            assertThat(info.acquiredAt().orElseThrow()).isBetween(before, after);
            assertThat(info.detail()).isEqualTo("node " + LockNodes.semaphoreDir(CHROOT, name) + "/permit-3-*-"
                    + info.holdId().orElseThrow().substring(0, 10)
                    + ", session 0x" + Long.toHexString(raw.exists(LockNodes.semaphoreDir(CHROOT, name) + "/" + nodes.get(i), false)
                    .getEphemeralOwner()));
            assertThat(info.holdId().orElseThrow() + info.detail() + info).as("the owner token").doesNotContain(token);
        }

        held.get(1).release();
        Lease fourth = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(operator.semaphore(name, 3).holders()).extracting(LockInfo::owner)
                .containsExactly(Optional.of("worker-a"), Optional.of("worker-c"), Optional.of("worker-d"));
        fourth.release();
        held.get(0).release();
        assertThat(operator.semaphore(name, 3).holders()).extracting(LockInfo::owner).containsExactly(Optional.of("worker-c"));
        held.get(2).release();
        assertThat(operator.semaphore(name, 3).holders()).isEmpty();
    }

    /**
     * A revoke of one permit: the permit is free again at once (the waiter gets it, with a higher
     * token), its holder learns it by its node's watch without renewing ({@code REVOKED}, the reason
     * kept in the record), the other holder keeps its permit; an id that names no hold, a waiter's
     * id and an id already revoked change nothing.
     */
    @Test
    void aRevokeTakesOnePermitBackWhichIsFreeAtOnceAndItsHolderLearnsItWithoutRenewing() throws Exception {
        String name = unique("revoked");
        LockClient operator = client("ops-console");
        Lease a = client("holder-a").semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
        Lease b = client("holder-b").semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
        CompletableFuture<Lease.LossReason> lost = a.lost().toCompletableFuture();
        Future<Optional<Lease>> waiting = executor.submit(() -> client("holder-c").semaphore(name, 2).tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> permitLine(name).size() == 3);
        List<String> nodes = permitLine(name);
        String aToken = LockNodes.ownerToken(nodes.get(0));
        String aId = holdId(name, nodes.get(0));
        String waiterId = holdId(name, nodes.get(2));
        DistributedSemaphore semaphore = operator.semaphore(name, 2);

        assertThat(semaphore.revoke(waiterId, "a waiter holds nothing")).as("a waiter's id").isEmpty();
        assertThat(semaphore.revoke("9" + aId.substring(1), "no such node")).isEmpty();
        assertThat(semaphore.revoke(aId.substring(0, 11) + "1" + aId.substring(11), "another life of the directory")).isEmpty();
        assertThat(semaphore.revoke(aId.substring(0, 10), "the sequence alone")).isEmpty();
        assertThat(semaphore.revoke("not-a-sequence", "cannot be one")).isEmpty();
        assertThat(semaphore.revoke(aToken, "the owner token is no hold id")).isEmpty();
        assertThat(permitLine(name)).as("nothing changed").isEqualTo(nodes);

        long start = System.nanoTime();
        LockInfo revoked = semaphore.revoke(aId, "stuck since 02:10").orElseThrow();
        assertThat(revoked.holdId()).contains(aId);
        assertThat(revoked.owner()).contains("holder-a");
        assertThat(revoked.fencingToken()).isEqualTo(a.fencingToken());
        assertThat(revoked.permits()).hasValue(2);
        Lease c = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(c.fencingToken().orElseThrow()).as("the next grant's token").isGreaterThan(a.fencingToken().orElseThrow());
        assertThat(lost.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("not renewing").isEqualTo(Lease.LossReason.REVOKED);
        System.out.printf("[ZooKeeperSemaphoreTest] revoke of a permit to its holder's lost(): %.1f ms%n", (System.nanoTime() - start) / 1e6);
        assertThat(a.isValid()).isFalse();
        assertThat(a.extend(LEASE)).isFalse();
        assertThat(b.isValid()).isTrue();
        assertThat(b.extend(LEASE)).isTrue();
        assertThat(new String(raw.getData(LockNodes.record(CHROOT, aToken), false, null), StandardCharsets.UTF_8))
                .isEqualTo("distlock 1\nreason=stuck since 02:10\nby=ops-console");
        assertThat(semaphore.revoke(aId, "again")).as("a second revoke of the same id").isEmpty();
        assertThat(semaphore.holders()).extracting(LockInfo::owner).containsExactly(Optional.of("holder-b"), Optional.of("holder-c"));

        // With nobody waiting, a revoked permit is free for the next attempt that does not wait.
        String bId = semaphore.holders().get(0).holdId().orElseThrow();
        assertThat(semaphore.revoke(bId, "make room")).isPresent();
        Lease d = client("holder-d").semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
        assertThat(d.fencingToken().orElseThrow()).isGreaterThan(c.fencingToken().orElseThrow());
        assertThat(b.lost().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        c.release();
        d.release();
    }

    /**
     * A revoke racing its holder's release: one of them ends the permit, never both — the server
     * frees exactly that one permit (the other holder keeps its own, and exactly one newcomer gets in),
     * and the holder is told it was revoked only when the revoke said it ended the hold.
     */
    @Test
    void aRevokeRacingTheReleaseEndsThePermitOnceAndTheOtherHolderKeepsItsOwn() throws Exception {
        LockClient holder = client("racer");
        LockClient other = client("other");
        LockClient newcomers = client("newcomer");
        LockClient operator = client("ops");
        int revokedFirst = 0;
        for (int round = 0; round < 12; round++) {
            String name = unique("race");
            Lease a = holder.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
            Lease b = other.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
            String aId = operator.semaphore(name, 2).holders().get(0).holdId().orElseThrow();
            CyclicBarrier start = new CyclicBarrier(2);
            // µs of head start: the revoke (two round trips) or the release (one) first
            long skew = ThreadLocalRandom.current().nextLong(-1_000, 12_000);
            Future<Optional<LockInfo>> revoke = executor.submit(() -> {
                start.await();
                spin(-skew);
                return operator.semaphore(name, 2).revoke(aId, "race " + name);
            });
            Future<?> release = executor.submit(() -> {
                start.await();
                spin(skew);
                a.release();
                return null;
            });
            release.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            Optional<LockInfo> revoked = revoke.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            revoked.ifPresent(info -> assertThat(info.fencingToken()).isEqualTo(a.fencingToken()));
            revokedFirst += revoked.isPresent() ? 1 : 0;
            assertThat(a.isValid()).isFalse();
            assertThat(b.isValid()).as("round %d: the other holder", round).isTrue();
            assertThat(b.extend(LEASE)).isTrue();
            if (revoked.isEmpty()) {
                assertThat(a.lost().toCompletableFuture().getNow(null)).as("released first: never told it was revoked")
                        .isNotEqualTo(Lease.LossReason.REVOKED);
            }
            Lease freed = newcomers.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
            assertThat(newcomers.semaphore(name, 2).tryAcquire(LEASE)).as("round %d: one permit freed, not two", round).isEmpty();
            assertThat(operator.semaphore(name, 2).holders()).extracting(LockInfo::fencingToken)
                    .containsExactly(b.fencingToken(), freed.fencingToken());
            freed.release();
            b.release();
        }
        System.out.printf("[ZooKeeperSemaphoreTest] revoke racing release, 12 rounds: the revoke ended the permit in %d%n", revokedFirst);
    }

    /** Busy-waits {@code micros} if positive (a thread's head start for the other). */
    private static void spin(long micros) {
        long until = System.nanoTime() + micros * 1_000;
        while (micros > 0 && System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /**
     * At the SPI, the watch armed after a permit's grant tells its client of the revocation, and the
     * permit's next extension reads its record ({@link ExtendOutcome#revoked} with the reason) too. A record already kept for the owner token (a request revoked before, while first
     * in line and not yet told, that joined again) is overwritten, not a failed revoke.
     */
    @Test
    void theExtensionOfARevokedPermitAnswersRevokedWithTheReason() throws Exception {
        String name = unique("extend");
        RecordingContext context = new RecordingContext("driver-holder");
        ZkLockDriver holder = opened.add(ZkLockDriver.connect(ZkEndpoint.parse(URI.create(server.uri(CHROOT))), LockOptions.defaults(),
                context));
        Grant grant = holder.tryAcquire(request(name, Hold.permit(2))).grant();
        DistributedSemaphore semaphore = client("ops").semaphore(name, 2);
        raw.create(LockNodes.record(CHROOT, grant.ownerToken()), "distlock 1\nreason=an earlier revoke".getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        assertThat(semaphore.revoke(semaphore.holders().get(0).holdId().orElseThrow(), "by the book")).isPresent();
        await().atMost(WAIT).until(() -> context.revocations.contains(List.of(grant.ownerToken(), "by the book")));
        ExtendOutcome outcome = holder.extend(grant, LEASE);
        assertThat(outcome.isLost()).isTrue();
        assertThat(outcome.revocationReason()).contains("by the book");
    }

    private ZkLockDriver driver() {
        return opened.add(ZkLockDriver.connect(ZkEndpoint.parse(URI.create(server.uri(CHROOT))), LockOptions.defaults(),
                new RecordingContext("semaphore-test")));
    }
}
