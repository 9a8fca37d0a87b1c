package io.distlock.etcd;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.PermitCountMismatchException;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.EtcdCluster;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Semaphores on one real etcd member, each client its own {@link LockClient}: N permits and not
 * N + 1, waiters served in order as permits come back, a permit whose holder stops comes back
 * after its lease or with its session, a client asking for another count is refused and leaves
 * nothing behind, and tokens are create revisions (distinct; a later acquire's above an earlier one's);
 * {@code holders()} shows each permit held and {@code revoke(holdId)} takes one back.
 *
 * <p>The clients' session TTL is 30 s (a keep-alive's look at the line every 10 s): a waiter served
 * within a second or two was woken by its watch.
 */
class EtcdSemaphoreTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration WOKEN = Duration.ofSeconds(3);
    private static final TestEnvironment ENV = new TestEnvironment();
    private static EtcdCluster etcd;

    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    private LockClient client(String prefix) {
        return client(prefix, 30);
    }

    private LockClient client(String prefix, int sessionTtlSeconds) {
        return client(prefix, sessionTtlSeconds, null);
    }

    private LockClient client(String prefix, String owner) {
        return client(prefix, 30, owner);
    }

    private LockClient client(String prefix, int sessionTtlSeconds, String owner) {
        // Timeouts with room for a loaded machine (the defaults are 2 s); they cost nothing when answers come.
        LockOptions.Builder options = LockOptions.builder().connectTimeout(Duration.ofSeconds(5)).operationTimeout(Duration.ofSeconds(5));
        if (owner != null) {
            options.owner(owner);
        }
        LockClient client = Locks.connect(java.net.URI.create(etcd.uri(prefix + "?sessionTtl=" + sessionTtlSeconds)), options.build());
        clients.add(client);
        return client;
    }

    /** @return the owner token a request key's value carries */
    private static String tokenOf(String value) {
        int at = value.indexOf("token=") + 6;
        return value.substring(at, value.indexOf('\n', at));
    }

    private static Optional<Lease> waitFor(DistributedSemaphore semaphore) {
        try {
            return semaphore.tryAcquire(LEASE, WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void nPermitsAndNotNPlusOneAndWaitersAreServedAsPermitsComeBack() throws Exception {
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(client("/sem-n").semaphore("partner-api", 3).tryAcquire(LEASE).orElseThrow());
        }
        LockClient fourth = client("/sem-n");
        assertThat(fourth.semaphore("partner-api", 3).tryAcquire(LEASE)).isEmpty();
        assertThat(etcd.keys("/sem-n/semaphores/partner-api/3/")).as("a busy single attempt leaves no key").hasSize(3);

        CompletableFuture<Optional<Lease>> first = CompletableFuture.supplyAsync(() -> waitFor(fourth.semaphore("partner-api", 3)));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/sem-n/semaphores/partner-api/3/").size() == 4);
        LockClient fifth = client("/sem-n");
        CompletableFuture<Optional<Lease>> second = CompletableFuture.supplyAsync(() -> waitFor(fifth.semaphore("partner-api", 3)));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/sem-n/semaphores/partner-api/3/").size() == 5);

        held.get(1).release();
        Lease next = first.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(second).as("one permit came back: the first waiter took it").isNotDone();
        held.get(0).release();
        Lease last = second.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();

        long before = held.stream().mapToLong(l -> l.fencingToken().orElseThrow()).max().orElseThrow();
        assertThat(next.fencingToken().orElseThrow()).isGreaterThan(before);
        assertThat(last.fencingToken().orElseThrow()).isGreaterThan(next.fencingToken().orElseThrow());
        assertThat(client("/sem-n").semaphore("partner-api", 3).tryAcquire(LEASE)).isEmpty();
    }

    @Test
    void anotherCountIsRefusedAndLeavesNothingHeld() throws Exception {
        LockClient a = client("/sem-count");
        LockClient b = client("/sem-count");
        Lease permit = a.semaphore("batch", 2).tryAcquire(LEASE).orElseThrow();

        assertThatThrownBy(() -> b.semaphore("batch", 3).tryAcquire(LEASE))
                .isInstanceOfSatisfying(PermitCountMismatchException.class, refused -> {
                    assertThat(refused.stored()).isEqualTo(2);
                    assertThat(refused.requested()).isEqualTo(3);
                })
                .hasMessageContaining("'batch'");
        assertThatThrownBy(() -> b.semaphore("batch", 1).tryAcquire(LEASE, WAIT)).as("a waiting acquire too, at once")
                .isInstanceOf(PermitCountMismatchException.class);
        assertThat(etcd.keys("/sem-count/semaphores/")).as("only the holder's key").hasSize(1);
        assertThat(etcd.keys("/sem-count/abandoned/")).as("and no marker").isEmpty();

        assertThat(b.semaphore("batch", 2).tryAcquire(LEASE)).as("the stored count is served").isPresent();
        assertThat(a.semaphore("batch", 2).tryAcquire(LEASE)).as("two of two are held").isEmpty();

        permit.release();
        clients.remove(b);
        b.close();
        Lease three = client("/sem-count").semaphore("batch", 3).tryAcquire(LEASE).orElseThrow();
        assertThat(three.isValid()).as("once every permit is back, another count may be used").isTrue();
        assertThatThrownBy(() -> a.semaphore("batch", 2).tryAcquire(LEASE)).isInstanceOf(PermitCountMismatchException.class)
                .hasMessageContaining("has 3 permits");
    }

    /**
     * {@code holders()} shows each permit held — its key's create revision as hold id and fencing
     * token, its owner, the stored count, the holder's clock — oldest first, never a waiting key nor
     * an owner token; a revoke of one permit (its holder not renewing) ends that lease at once
     * through the holder's watch on the records, leaves the other permit held and renewable, and the
     * waiter takes the freed permit at once with a higher token; a second revoke of the same id, and
     * ids that name no hold, find nothing.
     */
    @Test
    void holdersShowsEveryPermitAndARevokedPermitIsTakenAtOnceByTheWaiter() throws Exception {
        Duration lease = Duration.ofSeconds(30);
        LockClient a = client("/sem-holds", "worker-a");
        LockClient b = client("/sem-holds", "worker-b");
        LockClient c = client("/sem-holds", "worker-c");
        LockClient operator = client("/sem-holds", "ops");
        DistributedSemaphore api = operator.semaphore("api", 2);
        assertThat(api.holders()).as("nothing held").isEmpty();

        Instant before = Instant.now();
        Lease heldA = a.semaphore("api", 2).tryAcquire(lease).orElseThrow();
        Lease heldB = b.semaphore("api", 2).tryAcquire(lease).orElseThrow();
        Instant after = Instant.now();
        CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return c.semaphore("api", 2).tryAcquire(lease, WAIT);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/sem-holds/semaphores/api/2/").size() == 3);

        List<LockInfo> holds = api.holders();
        assertThat(holds).extracting(LockInfo::fencingToken).containsExactly(heldA.fencingToken(), heldB.fencingToken());
        assertThat(holds).extracting(LockInfo::owner).containsExactly(Optional.of("worker-a"), Optional.of("worker-b"));
        List<String> values = etcd.keys("/sem-holds/semaphores/api/2/").stream().map(key -> etcd.value(key).orElseThrow()).toList();
        for (LockInfo hold : holds) {
            assertThat(hold.name()).isEqualTo("api");
            assertThat(hold.kind()).isEqualTo(LockInfo.Kind.PERMIT);
            assertThat(hold.permits()).hasValue(2);
            assertThat(hold.holdId()).contains(Long.toString(hold.fencingToken().orElseThrow()));
            assertThat(hold.acquiredClock()).contains(LockInfo.Clock.HOLDER);
            assertThat(hold.acquiredAt().orElseThrow()).isBetween(before.minusMillis(1), after.plusMillis(1));
            assertThat(hold.remaining()).as("the holder's engine ends the lease; its session lease is kept alive").isEmpty();
            assertThat(hold.waiters()).hasValue(1);
            assertThat(hold.detail()).startsWith("key /sem-holds/semaphores/api/2/")
                    .contains(", create revision " + hold.holdId().orElseThrow() + ", session lease 0x");
            values.forEach(value -> assertThat(hold.toString() + hold.detail()).doesNotContain(tokenOf(value)));
        }
        String tokenA = tokenOf(etcd.value(etcd.keys("/sem-holds/semaphores/api/2/").stream()
                .filter(key -> etcd.createRevision(key).orElseThrow() == heldA.fencingToken().orElseThrow())
                .findFirst().orElseThrow()).orElseThrow());

        String waitingId = Long.toString(etcd.createRevision(etcd.keys("/sem-holds/semaphores/api/2/").get(2)).orElseThrow());
        assertThat(api.revoke(waitingId, "waits")).as("a waiting request holds nothing").isEmpty();
        assertThat(waiting).isNotDone();

        CompletableFuture<Lease.LossReason> lost = heldA.lost().toCompletableFuture();
        long start = System.nanoTime();
        LockInfo revoked = api.revoke(holds.get(0).holdId().orElseThrow(), "stuck permit").orElseThrow();
        assertThat(revoked.holdId()).isEqualTo(holds.get(0).holdId());
        assertThat(revoked.fencingToken()).isEqualTo(heldA.fencingToken());
        assertThat(revoked.owner()).contains("worker-a");
        assertThat(lost.get(ENV.handOffTimeout().toMillis(), TimeUnit.MILLISECONDS)).as("told by its watch on the records, not renewing")
                .isEqualTo(Lease.LossReason.REVOKED);
        Lease next = waiting.get(ENV.handOffTimeout().toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        System.out.printf("[EtcdSemaphoreTest] revoke of a permit to the holder's lost() and the waiter's grant: %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        assertThat(next.fencingToken().orElseThrow()).isGreaterThan(heldA.fencingToken().orElseThrow());
        assertThat(heldA.isValid()).isFalse();
        assertThat(heldA.extend(lease)).isFalse();
        assertThat(heldB.isValid()).isTrue();
        assertThat(heldB.extend(lease)).as("the other permit is still held").isTrue();
        assertThat(etcd.value("/sem-holds/revoked/" + tokenA)).hasValueSatisfying(record ->
                assertThat(record).startsWith("distlock 1\nreason=stuck permit\nby=ops\nrevocation="));

        assertThat(api.revoke(holds.get(0).holdId().orElseThrow(), "again")).as("a second revoke of the same hold").isEmpty();
        for (String unknown : List.of("not-a-revision", "0", "-1", "0" + holds.get(1).holdId().orElseThrow(), "99999999999",
                "99999999999999999999")) {
            assertThat(api.revoke(unknown, "nothing")).as("hold id %s", unknown).isEmpty();
        }
        assertThat(api.holders()).extracting(LockInfo::fencingToken).containsExactly(heldB.fencingToken(), next.fencingToken());
        assertThat(heldB.isValid() && next.isValid()).isTrue();
    }

    /** A permit that is neither released nor renewed ends with its lease (the engine deletes its key). */
    @Test
    void aPermitWhoseHolderStopsComesBackAfterItsLease() throws Exception {
        LockClient holder = client("/sem-stop");
        LockClient other = client("/sem-stop");
        Duration shortLease = Duration.ofMillis(700);
        Lease stopped = holder.semaphore("slots", 1).tryAcquire(shortLease).orElseThrow();
        assertThat(other.semaphore("slots", 1).holders()).singleElement()
                .satisfies(hold -> assertThat(hold.fencingToken()).isEqualTo(stopped.fencingToken()));
        long start = System.nanoTime();
        Lease next = waitFor(other.semaphore("slots", 1)).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(shortLease.plus(WOKEN));
        assertThat(stopped.lost().toCompletableFuture().get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
        assertThat(next.fencingToken().orElseThrow()).isGreaterThan(stopped.fencingToken().orElseThrow());
        assertThat(holder.semaphore("slots", 1).holders()).as("the ended permit is no longer shown").singleElement()
                .satisfies(hold -> assertThat(hold.fencingToken()).isEqualTo(next.fencingToken()));
    }

    /** The holder's session ends (an operator revokes its lease): its permit is back at once, and its client learns it. */
    @Test
    void aPermitEndsWithItsSession() throws Exception {
        LockClient holder = client("/sem-session", 3);
        LockClient other = client("/sem-session");
        Lease permit = holder.semaphore("slots", 1).tryAcquire(Duration.ofSeconds(30), WAIT).orElseThrow();
        CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> waitFor(other.semaphore("slots", 1)));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/sem-session/semaphores/slots/1/").size() == 2);
        etcd.revokeLease(etcd.leaseOf(etcd.keys("/sem-session/semaphores/slots/1/").stream()
                .filter(key -> etcd.createRevision(key).orElseThrow() == permit.fencingToken().orElseThrow())
                .findFirst().orElseThrow()));
        assertThat(waiting.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).isPresent();
        assertThat(permit.lost().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
    }

    /**
     * Eight clients take permits of a 3-permit semaphore for a while: never more than three held at
     * once, and all three held at times; every token distinct.
     */
    @Test
    void underContentionNeverMoreThanNPermits() throws Exception {
        int permits = 3;
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        java.util.Set<Long> tokens = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicInteger reused = new AtomicInteger();
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            LockClient client = client("/sem-load");
            runs.add(CompletableFuture.runAsync(() -> {
                DistributedSemaphore semaphore = client.semaphore("hot", permits);
                while (System.nanoTime() - until < 0) {
                    Lease lease = waitFor(semaphore).orElseThrow();
                    most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                    grants.incrementAndGet();
                    if (!tokens.add(lease.fencingToken().orElseThrow())) {
                        reused.incrementAndGet();
                    }
                    sleep(10);
                    holding.decrementAndGet();
                    lease.release();
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        System.out.printf("[EtcdSemaphoreTest] %d grants of %d permits among 8 clients in 3 s%n", grants.get(), permits);
        assertThat(most).hasValue(permits);
        assertThat(reused).hasValue(0);
        assertThat(etcd.keys("/sem-load/")).isEmpty();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
