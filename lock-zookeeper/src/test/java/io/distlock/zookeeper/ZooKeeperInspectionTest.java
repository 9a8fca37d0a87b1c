package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockEvent;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.zookeeper.internal.LockNodes;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Inspection and revocation against one real server: the owner description stored in the lock node,
 * what {@code inspect} and {@code holders} show while a lock is held, after its release and after its
 * lease ended, a revoke of another client's lease (its {@code lost()}, its listener, its extension,
 * the waiter's higher token, the record), a revoke of a free lock, a revoke racing a release, and a
 * holder that missed the notification. The rights of revoking are {@link ZooKeeperRevocationRightsTest}'s.
 */
class ZooKeeperInspectionTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final String CHROOT = "/inspect";
    private static final Duration LEASE = Duration.ofSeconds(30);

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

    private LockClient client(String owner, List<LockEvent> events) {
        LockOptions.Builder options = LockOptions.builder().owner(owner);
        if (events != null) {
            options.listener(events::add);
        }
        return opened.add(Locks.connect(URI.create(server.uri(CHROOT)), options.build()));
    }

    private LockClient client(String owner) {
        return client(owner, null);
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static List<String> line(String name) {
        try {
            return LockNodes.inLine(raw.getChildren(LockNodes.dir(CHROOT, name), false));
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theOwnerIsStoredInTheLockNodeAndInspectShowsTheHolderAsTheServerHasIt() throws Exception {
        LockClient holder = client("billing-worker-3");
        LockClient operator = client("ops");
        String name = unique("job");
        Instant before = Instant.now().minusSeconds(2); // the server's clock is this machine's, give or take
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();
        Instant after = Instant.now().plusSeconds(2);

        String node = line(name).get(0);
        byte[] data = raw.getData(LockNodes.dir(CHROOT, name) + "/" + node, false, null);
        assertThat(new String(data, StandardCharsets.UTF_8)).isEqualTo("distlock 1\nowner=billing-worker-3");

        LockInfo info = operator.inspect(name).orElseThrow();
        assertThat(info.name()).isEqualTo(name);
        assertThat(info.owner()).contains("billing-worker-3");
        assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(info.acquiredClock()).contains(LockInfo.Clock.SERVER);
        assertThat(info.acquiredAt().orElseThrow()).isBetween(before, after);
        assertThat(info.remaining()).as("a session store: the holder's engine ends the lease").isEmpty();
        assertThat(info.waiters()).hasValue(0);
        assertThat(info.detail()).startsWith("node " + LockNodes.dir(CHROOT, name) + "/lock-*-")
                .contains("session 0x");
        String token = LockNodes.ownerToken(node);
        assertThat(info.toString()).doesNotContain(token).contains("billing-worker-3");
        assertThat(holder.inspect(name)).as("the holder sees the same").contains(info);

        lease.release();
        assertThat(operator.inspect(name)).as("after the release").isEmpty();
        assertThat(operator.inspect(unique("never-held"))).isEmpty();
    }

    @Test
    void aHolderThatWaitedShowsWhenItWasGrantedAndTheWaitersBehindIt() throws Exception {
        LockClient first = client("first");
        LockClient second = client("second");
        LockClient third = client("third");
        String name = unique("queue");
        Lease held = first.lock(name).tryAcquire(LEASE).orElseThrow();
        Future<Optional<Lease>> secondWaits = executor.submit(() -> second.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
        ENV.awaitUntil("the second is in line", () -> line(name).size() == 2);
        Future<Optional<Lease>> thirdWaits = executor.submit(() -> third.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
        ENV.awaitUntil("the third is in line", () -> line(name).size() == 3);
        assertThat(first.inspect(name).orElseThrow().waiters()).hasValue(2);

        Thread.sleep(1_100); // the second's node gets older than its grant by more than the servers' ms clock can blur
        Instant released = Instant.now();
        held.release();
        Lease granted = secondWaits.get(10, TimeUnit.SECONDS).orElseThrow();

        AtomicReference<LockInfo> shown = new AtomicReference<>();
        ENV.awaitUntil("the grant's time is written", () -> {
            shown.set(first.inspect(name).orElseThrow());
            return shown.get().acquiredAt().orElseThrow().isAfter(released.minusMillis(500));
        });
        LockInfo info = shown.get();
        assertThat(info.owner()).contains("second");
        assertThat(info.fencingToken()).isEqualTo(granted.fencingToken());
        assertThat(info.waiters()).hasValue(1);
        Stat stat = raw.exists(LockNodes.dir(CHROOT, name) + "/" + line(name).get(0), false);
        assertThat(info.acquiredAt().orElseThrow().toEpochMilli()).as("its mtime, not its ctime").isEqualTo(stat.getMtime())
                .isGreaterThan(stat.getCtime() + 1_000);
        granted.release();
        thirdWaits.get(10, TimeUnit.SECONDS).orElseThrow().release();
    }

    @Test
    void aLeaseThatEndedIsNoLongerShown() throws Exception {
        LockClient holder = client("short");
        String name = unique("ends");
        holder.lock(name).tryAcquire(ENV.scaled(Duration.ofMillis(800))).orElseThrow();
        assertThat(holder.inspect(name)).isPresent();
        ENV.awaitUntil("the engine ended the lease and deleted the node", () -> holder.inspect(name).isEmpty());
    }

    @Test
    void holdersListsTheHeldNamesUnderAPrefixInNameOrderUpToTheLimit() throws Exception {
        LockClient a = client("a");
        LockClient operator = client("ops");
        String p = unique("h") + "/";
        for (String n : List.of("b", "a2", "a1", "a/x", "\u00e9t\u00e9")) {
            a.lock(p + n).tryAcquire(LEASE).orElseThrow();
        }
        a.lock(p + "released").tryAcquire(LEASE).orElseThrow().release();
        a.lock(p.substring(0, p.length() - 1) + "-beside").tryAcquire(LEASE).orElseThrow();

        assertThat(operator.holders(p, 100)).extracting(LockInfo::name)
                .containsExactly(p + "a/x", p + "a1", p + "a2", p + "b", p + "\u00e9t\u00e9");
        assertThat(operator.holders(p + "a", 100)).extracting(LockInfo::name).containsExactly(p + "a/x", p + "a1", p + "a2");
        assertThat(operator.holders(p, 2)).extracting(LockInfo::name).containsExactly(p + "a/x", p + "a1");
        assertThat(operator.holders(p + "a1", 1)).singleElement().satisfies(info -> {
            assertThat(info.owner()).contains("a");
            assertThat(info.fencingToken()).isPresent();
        });
        assertThat(operator.holders(p + "nothing", 10)).isEmpty();
        assertThat(operator.holders("", 10_000)).extracting(LockInfo::name).contains(p + "b", p.substring(0, p.length() - 1) + "-beside");
    }

    @Test
    void aRevokeEndsAnotherClientsLeaseAtOnceAndTheWaiterAcquiresWithAHigherToken() throws Exception {
        List<LockEvent> holderEvents = new CopyOnWriteArrayList<>();
        List<LockEvent> operatorEvents = new CopyOnWriteArrayList<>();
        LockClient holder = client("stuck-worker", holderEvents);
        LockClient waiter = client("next-worker");
        LockClient operator = client("ops-console", operatorEvents);
        String name = unique("revoked");
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow().autoRenew();
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
        long[] lostAt = new long[1];
        lost.thenRun(() -> lostAt[0] = System.nanoTime());
        Future<Optional<Lease>> waiting = executor.submit(() -> waiter.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
        ENV.awaitUntil("the waiter is in line", () -> line(name).size() == 2);
        String token = LockNodes.ownerToken(line(name).get(0));

        long start = System.nanoTime();
        LockInfo revoked = operator.revoke(name, "stuck since 02:10").orElseThrow();
        long returned = System.nanoTime();

        assertThat(revoked.owner()).contains("stuck-worker");
        assertThat(revoked.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(lost.get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        System.out.printf("[ZooKeeperInspectionTest] revoke to the holder's lost(): %.1f ms (the revoke call took %.1f ms)%n",
                (lostAt[0] - start) / 1e6, (returned - start) / 1e6);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.extend(LEASE)).isFalse();
        Lease next = waiting.get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(next.fencingToken().orElseThrow()).isGreaterThan(lease.fencingToken().orElseThrow());
        assertThat(operator.inspect(name).orElseThrow().owner()).contains("next-worker");

        ENV.awaitUntil("both listeners heard", () -> holderEvents.stream().anyMatch(e -> e.type() == LockEvent.Type.REVOKED)
                && operatorEvents.stream().anyMatch(e -> e.type() == LockEvent.Type.REVOKED));
        assertThat(holderEvents).filteredOn(e -> e.type() == LockEvent.Type.REVOKED).singleElement().satisfies(e -> {
            assertThat(e.revocationReason()).contains("stuck since 02:10");
            assertThat(e.lossReason()).contains(Lease.LossReason.REVOKED);
        });
        assertThat(holderEvents).noneMatch(e -> e.type() == LockEvent.Type.LOST);
        assertThat(operatorEvents).filteredOn(e -> e.type() == LockEvent.Type.REVOKED).singleElement()
                .satisfies(e -> assertThat(e.revocationReason()).contains("stuck since 02:10"));

        byte[] record = raw.getData(LockNodes.record(CHROOT, token), false, null);
        assertThat(new String(record, StandardCharsets.UTF_8)).isEqualTo("distlock 1\nreason=stuck since 02:10\nby=ops-console");
        next.release();
    }

    /**
     * The holder's watch on its node is set {@link ZkLockDriver#WATCH_DELAY} after the grant (most
     * holds end before and never pay for one): a revoke right after the grant, before the watch, is
     * learnt when it is set — its answer says the node is gone — not at a renewal (there is none).
     */
    @Test
    void aRevokeRightAfterTheGrantIsLearntWhenTheWatchIsSet() throws Exception {
        LockClient holder = client("quick-worker");
        LockClient operator = client("ops-console");
        assertThat(operator.revoke(unique("warm-up"), "nothing there")).isEmpty(); // the operator's session is up
        String name = unique("right-after");
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();
        long granted = System.nanoTime();
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();

        assertThat(operator.revoke(name, "right away")).isPresent();
        long revoked = System.nanoTime();

        assertThat(lost.get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        System.out.printf("[ZooKeeperInspectionTest] revoke returned %.1f ms after the grant; lost() %.1f ms after it (watch set %d ms after the grant)%n",
                (revoked - granted) / 1e6, (System.nanoTime() - granted) / 1e6, ZkLockDriver.WATCH_DELAY.toMillis());
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.extend(LEASE)).isFalse();
    }

    @Test
    void aRevokeOfAFreeLockIsEmptyAndChangesNothing() throws Exception {
        LockClient operator = client("ops");
        LockClient other = client("other");
        String name = unique("free");
        assertThat(operator.revoke(name, "nothing there")).isEmpty();
        other.lock(name).tryAcquire(LEASE).orElseThrow().release();
        assertThat(operator.revoke(name, "released")).isEmpty();
        Lease again = other.lock(name).tryAcquire(LEASE).orElseThrow();
        assertThat(again.isValid()).isTrue();
        again.release();
    }

    @Test
    void aRevokeRacingTheHoldersReleaseNeverLeavesTwoValidHolders() throws Exception {
        LockClient holder = client("racer");
        LockClient waiter = client("waiter");
        LockClient operator = client("ops");
        int revokedHolder = 0;
        int revokedWaiter = 0;
        for (int round = 0; round < 30; round++) {
            String name = unique("race");
            Lease a = holder.lock(name).tryAcquire(LEASE).orElseThrow();
            Future<Optional<Lease>> waiting = executor.submit(() -> waiter.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
            ENV.awaitUntil("the waiter is in line", () -> line(name).size() == 2);
            CyclicBarrier start = new CyclicBarrier(2);
            long skew = ThreadLocalRandom.current().nextLong(-8_000, 2_000); // µs: the revoke (three round trips) or the release (one) first
            Future<Optional<LockInfo>> revoke = executor.submit(() -> {
                start.await();
                spin(skew);
                return operator.revoke(name, "race " + name);
            });
            Future<?> release = executor.submit(() -> {
                start.await();
                spin(-skew);
                a.release();
                return null;
            });
            release.get(10, TimeUnit.SECONDS);
            Optional<LockInfo> revoked = revoke.get(10, TimeUnit.SECONDS);
            Lease b = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(a.isValid()).isFalse();
            if (revoked.isPresent() && revoked.get().owner().orElseThrow().equals("waiter")) {
                // The release came first and the revoke took the lock from the waiter's node, first in
                // line: either its client had been granted it (then it learns it was revoked), or not
                // yet (then it queued again behind nobody: a later grant, a higher token).
                revokedWaiter++;
                long revokedToken = revoked.get().fencingToken().orElseThrow();
                if (b.fencingToken().orElseThrow() == revokedToken) {
                    ENV.awaitUntil("the waiter learns it was revoked", () -> b.lost().toCompletableFuture().isDone());
                    assertThat(b.lost().toCompletableFuture().get()).isEqualTo(Lease.LossReason.REVOKED);
                } else {
                    assertThat(b.fencingToken().orElseThrow()).isGreaterThan(revokedToken);
                    assertThat(b.isValid()).isTrue();
                }
            } else {
                revokedHolder += revoked.isPresent() ? 1 : 0;
                assertThat(b.isValid()).as("round %d: the waiter holds, nobody else", round).isTrue();
                assertThat(operator.inspect(name).orElseThrow().fencingToken()).isEqualTo(b.fencingToken());
            }
            assertThat(a.isValid() && b.isValid()).isFalse();
            b.release();
        }
        System.out.printf("[ZooKeeperInspectionTest] revoke racing release, 30 rounds: the holder revoked %d, the next holder %d,"
                + " released first and nothing held %d%n", revokedHolder, revokedWaiter, 30 - revokedHolder - revokedWaiter);
    }

    /** Busy-waits {@code micros} if positive (a thread's head start for the other). */
    private static void spin(long micros) {
        long until = System.nanoTime() + micros * 1_000;
        while (micros > 0 && System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /**
     * A holder cut off while it is revoked: ZooKeeper sets its watch again when it reconnects (same
     * session) and fires it, the node being gone; the record tells it why.
     */
    @Test
    void aHolderCutOffWhileRevokedLearnsItWasRevokedWhenItIsBack() throws Exception {
        FaultProxy link = opened.add(server.linkToServer());
        LockClient holder = opened.add(Locks.connect(URI.create("zookeeper://" + link.endpoint() + CHROOT + "?sessionTimeout=10000"),
                LockOptions.builder().owner("cut-off").build()));
        LockClient operator = client("ops");
        String name = unique("cut-off");
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();

        link.drop();
        ENV.awaitUntil("the holder noticed", () -> !lease.isValid());
        assertThat(operator.revoke(name, "while away")).isPresent();
        link.heal();

        assertThat(lease.lost().toCompletableFuture().get(ENV.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
    }

    /**
     * At the SPI, the watch on a held node reports its revocation, and the renewal of a revoked lease
     * reads the record: {@link ExtendOutcome#revoked} with the reason, whether or not the watch told
     * the client first; a lease whose node went without a record (deleted by hand) is merely lost,
     * and its watch reports nothing.
     */
    @Test
    void anExtensionOfARevokedLeaseAnswersRevokedWithTheReason() throws Exception {
        RecordingContext holderContext = new RecordingContext("driver-holder");
        ZkLockDriver holder = opened.add(ZkLockDriver.connect(ZkEndpoint.parse(URI.create(server.uri(CHROOT))), LockOptions.defaults(),
                holderContext));
        LockClient operator = client("ops");
        String name = unique("extend");
        Grant grant = holder.tryAcquire(new LockRequest(name, "tok" + UUID.randomUUID().toString().replace("-", ""), LEASE)).grant();

        assertThat(operator.revoke(name, "by the book")).isPresent();
        // The watch, set WATCH_DELAY after the grant, finds the node gone and reports it; an
        // extension then (told or not) reads the record too.
        ENV.awaitUntil("the watch reported it", () -> holderContext.revocations.contains(List.of(grant.ownerToken(), "by the book")));
        ExtendOutcome outcome = holder.extend(grant, LEASE);
        assertThat(outcome.isLost()).isTrue();
        assertThat(outcome.revocationReason()).contains("by the book");

        String other = unique("deleted-by-hand");
        Grant deleted = holder.tryAcquire(new LockRequest(other, "tok" + UUID.randomUUID().toString().replace("-", ""), LEASE)).grant();
        raw.delete((String) deleted.handle(), -1);
        ExtendOutcome gone = holder.extend(deleted, LEASE);
        assertThat(gone.isLost()).isTrue();
        assertThat(gone.revocationReason()).isEmpty();
        assertThat(holderContext.revocations).hasSize(1);
    }

    /** The records of revocations older than the retention go with a later revoke (here a retention of 1 s). */
    @Test
    void aLaterRevokeSweepsRecordsOlderThanTheRetention() throws Exception {
        ZkLockDriver operator = opened.add(LockNodes.driver(ZkEndpoint.parse(URI.create(server.uri("/sweep"))), LockOptions.defaults(),
                new RecordingContext("sweeper"), Duration.ofSeconds(1)));
        LockClient holder = opened.add(Locks.connect(server.uri("/sweep")));
        String first = unique("first");
        holder.lock(first).tryAcquire(LEASE).orElseThrow();
        String firstToken = operator.revoke(first, "one").orElseThrow().ownerToken();
        String second = unique("second");
        holder.lock(second).tryAcquire(LEASE).orElseThrow();
        String secondToken = operator.revoke(second, "two").orElseThrow().ownerToken();
        assertThat(raw.getChildren(LockNodes.revokedDir("/sweep"), false)).contains(firstToken, secondToken);

        Thread.sleep(1_500); // older than the retention, by the server's clock
        String third = unique("third");
        holder.lock(third).tryAcquire(LEASE).orElseThrow();
        String thirdToken = operator.revoke(third, "three").orElseThrow().ownerToken();
        assertThat(raw.getChildren(LockNodes.revokedDir("/sweep"), false)).containsExactly(thirdToken);
    }

    @Test
    void aClientOfThePreviousLayoutIsShownWithoutOwnerAndCanBeRevoked() throws Exception {
        LockClient operator = client("ops");
        String name = unique("old-layout");
        // What a client of the previous layout creates: its lease time as the data, nothing else.
        raw.create(LockNodes.dir(CHROOT, name), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
        String node = raw.create(LockNodes.dir(CHROOT, name) + "/lock-oldclienttoken1234567-", "30000".getBytes(StandardCharsets.US_ASCII),
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
        LockInfo info = operator.inspect(name).orElseThrow();
        assertThat(info.owner()).isEmpty();
        assertThat(info.fencingToken()).hasValue(raw.exists(node, false).getCzxid());
        assertThat(operator.revoke(name, "old client")).isPresent();
        assertThat(raw.exists(node, false)).isNull();
        assertThat(operator.inspect(name)).isEmpty();
    }
}
