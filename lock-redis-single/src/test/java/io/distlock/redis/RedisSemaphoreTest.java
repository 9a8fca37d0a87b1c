package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockEvent;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.PermitCountMismatchException;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.ReadWriteScripts;
import io.distlock.redis.support.SemaphoreScripts;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Semaphores on one real {@code redis-server}, with several clients: N permits and not N+1, the
 * count stored with the permits and a mismatch refused with nothing left behind, permits of holders
 * that stop come back after their lease, waiters woken by a release, fencing tokens per semaphore;
 * and a name's three primitives independent, with {@code holders()} listing locks only.
 */
class RedisSemaphoreTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofMillis(500);
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static RedisServer redis;
    private static ExecutorService threads;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "semaphore-test");
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void stop() {
        threads.shutdownNow();
        redis.close();
    }

    @Test
    void nPermitsAndNotNPlusOne() {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri());
             LockClient c = Locks.connect(redis.uri())) {
            Lease first = a.semaphore("partner-api", 3).tryAcquire(LEASE).orElseThrow();
            Lease second = b.semaphore("partner-api", 3).tryAcquire(LEASE).orElseThrow();
            Lease third = a.semaphore("partner-api", 3).tryAcquire(LEASE).orElseThrow(); // one client, two permits
            assertThat(c.semaphore("partner-api", 3).tryAcquire(LEASE)).as("a fourth").isEmpty();
            second.release();
            Lease fourth = c.semaphore("partner-api", 3).tryAcquire(LEASE).orElseThrow();
            assertThat(b.semaphore("partner-api", 3).tryAcquire(LEASE)).isEmpty();
            assertThat(redis.call("ZCARD", SemaphoreScripts.holdersKey("partner-api"))).isEqualTo(3L);
            for (Lease lease : List.of(first, third, fourth)) {
                lease.release();
            }
            assertThat(keys("partner-api")).as("only the fence counter stays")
                    .containsExactly(SemaphoreScripts.fenceKey("partner-api"));
        }
    }

    @Test
    void atMostNPermitsAreHeldAtOnceUnderContention() throws Exception {
        int clients = 8;
        int permits = 3;
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger granted = new AtomicInteger();
        List<LockClient> opened = new ArrayList<>();
        List<Future<?>> loops = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        try {
            for (int i = 0; i < clients; i++) {
                LockClient client = Locks.connect(redis.uri());
                opened.add(client);
                DistributedSemaphore semaphore = client.semaphore("contended", permits);
                loops.add(threads.submit(() -> {
                    while (System.nanoTime() - end < 0) {
                        Optional<Lease> permit = semaphore.tryAcquire(Duration.ofSeconds(5), Duration.ofMillis(500));
                        if (permit.isPresent()) {
                            granted.incrementAndGet();
                            most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // the holder's work
                            holding.decrementAndGet();
                            permit.get().release();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> loop : loops) {
                loop.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            opened.forEach(LockClient::close);
        }
        assertThat(most.get()).as("most permits held at once, of %d grants", granted.get()).isEqualTo(permits);
        assertThat(granted.get()).isGreaterThan(20);
    }

    @Test
    void anotherCountIsRefusedLeavingNothingHeldUntilEveryPermitIsBack() throws Exception {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri())) {
            Lease held = a.semaphore("counted", 3).tryAcquire(LEASE).orElseThrow();
            assertThatThrownBy(() -> b.semaphore("counted", 5).tryAcquire(LEASE))
                    .isInstanceOfSatisfying(PermitCountMismatchException.class, e -> {
                        assertThat(e.stored()).isEqualTo(3);
                        assertThat(e.requested()).isEqualTo(5);
                    })
                    .hasMessageContaining("'counted'");
            // A waiting acquire is refused at once too, not after its wait.
            long asked = System.nanoTime();
            assertThatThrownBy(() -> b.semaphore("counted", 1).tryAcquire(LEASE, PATIENCE))
                    .isInstanceOf(PermitCountMismatchException.class);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked)).isLessThan(2_000);
            // Nothing of the refused attempts: one holder, one record, no abandoned marker.
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(
                    () -> keys("counted").size() == 4);
            assertThat(keys("counted")).containsExactly(SemaphoreScripts.fenceKey("counted"),
                    SemaphoreScripts.holdersKey("counted"), SemaphoreScripts.ownersKey("counted"),
                    SemaphoreScripts.permitsKey("counted"));
            assertThat(redis.call("ZCARD", SemaphoreScripts.holdersKey("counted"))).isEqualTo(1L);
            assertThat(redis.call("HLEN", SemaphoreScripts.ownersKey("counted"))).isEqualTo(1L);
            assertThat(redis.call("GET", SemaphoreScripts.permitsKey("counted"))).isEqualTo("3");
            // The same count is served as before.
            a.semaphore("counted", 3).tryAcquire(LEASE).orElseThrow().release();

            held.release();
            Lease other = b.semaphore("counted", 5).tryAcquire(LEASE).orElseThrow();
            assertThat(redis.call("GET", SemaphoreScripts.permitsKey("counted"))).isEqualTo("5");
            other.release();
        }
    }

    @Test
    void theCountOfPermitsWhoseHoldersStoppedLapsesWithThem() {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri())) {
            a.semaphore("lapsed", 2).tryAcquire(SHORT).orElseThrow(); // never released
            assertThatThrownBy(() -> b.semaphore("lapsed", 4).tryAcquire(LEASE)).isInstanceOf(PermitCountMismatchException.class);
            await().atMost(PATIENCE).ignoreException(PermitCountMismatchException.class).until(() -> b.semaphore("lapsed", 4).tryAcquire(LEASE).map(lease -> {
                lease.release();
                return true;
            }).orElse(false));
        }
    }

    @Test
    void aPermitWhoseHolderStopsComesBackAfterItsLease() throws Exception {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri())) {
            a.semaphore("stopped", 2).tryAcquire(SHORT).orElseThrow(); // never released, never renewed
            Lease renewed = a.semaphore("stopped", 2).tryAcquire(SHORT).orElseThrow().autoRenew();
            long taken = System.nanoTime();
            assertThat(b.semaphore("stopped", 2).tryAcquire(LEASE)).isEmpty();
            Lease late = b.semaphore("stopped", 2).tryAcquire(LEASE, PATIENCE).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - taken)).isBetween(300L, 2_000L);
            // The renewed permit stays: it outlives several of its leases.
            await().during(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(3)).until(renewed::isValid);
            assertThat(b.semaphore("stopped", 2).tryAcquire(LEASE)).isEmpty();
            assertThat(redis.call("ZCARD", SemaphoreScripts.holdersKey("stopped"))).isEqualTo(2L);
            renewed.release();
            late.release();
        }
    }

    @Test
    void aWaiterIsWokenByAReleaseNotByPolling() throws Exception {
        LockOptions slowPolling = LockOptions.builder().retryBackoff(Duration.ofMillis(5), Duration.ofMinutes(1)).build();
        try (LockClient a = Locks.connect(URI.create(redis.uri()), slowPolling);
             LockClient b = Locks.connect(URI.create(redis.uri()), slowPolling)) {
            Lease held = a.semaphore("woken", 1).tryAcquire(LEASE).orElseThrow();
            Future<Optional<Lease>> waiting = threads.submit(() -> b.semaphore("woken", 1).tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> (Long) ((List<?>) redis.call("PUBSUB", "NUMSUB",
                    SemaphoreScripts.channel("woken"))).get(1) == 1L);
            long released = System.nanoTime();
            held.release();
            Lease handed = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(1_000);
            handed.release();
        }
    }

    @Test
    void fencingTokensIncreasePerSemaphoreAndRecordsNameTheirOwner() {
        LockOptions owner = LockOptions.builder().owner("semaphore-test on host-3").build();
        try (LockClient a = Locks.connect(URI.create(redis.uri()), owner)) {
            long last = 0;
            for (int i = 0; i < 5; i++) {
                Lease permit = a.semaphore("tokens", 2).tryAcquire(LEASE).orElseThrow();
                assertThat(permit.fencingToken().getAsLong()).isGreaterThan(last);
                last = permit.fencingToken().getAsLong();
                String record = (String) ((List<?>) redis.call("HVALS", SemaphoreScripts.ownersKey("tokens"))).get(0);
                assertThat(record).startsWith(last + " ").endsWith(" semaphore-test on host-3");
                assertThat((Long) redis.call("PTTL", SemaphoreScripts.holdersKey("tokens"))).isBetween(20_000L, 30_000L);
                assertThat((Long) redis.call("PTTL", SemaphoreScripts.permitsKey("tokens"))).isBetween(20_000L, 30_000L);
                assertThat(permit.extend(Duration.ofSeconds(60))).isTrue();
                assertThat((Long) redis.call("PTTL", SemaphoreScripts.holdersKey("tokens"))).isGreaterThan(50_000L);
                permit.release();
            }
        }
    }

    @Test
    void closingAClientReleasesEveryKindOfHoldInOneBatch() {
        LockClient a = Locks.connect(redis.uri());
        try (LockClient b = Locks.connect(redis.uri())) {
            a.lock("closed-lock").tryAcquire(LEASE).orElseThrow();
            a.readWriteLock("closed-read").readLock().tryAcquire(LEASE).orElseThrow();
            a.readWriteLock("closed-write").writeLock().tryAcquire(LEASE).orElseThrow();
            a.semaphore("closed-permits", 2).tryAcquire(LEASE).orElseThrow();
            a.semaphore("closed-permits", 2).tryAcquire(LEASE).orElseThrow().autoRenew();
            a.close();
            b.lock("closed-lock").tryAcquire(LEASE).orElseThrow().release();
            b.readWriteLock("closed-read").writeLock().tryAcquire(LEASE).orElseThrow().release();
            b.readWriteLock("closed-write").readLock().tryAcquire(LEASE).orElseThrow().release();
            assertThat(keys("closed-permits")).containsExactly(SemaphoreScripts.fenceKey("closed-permits"));
        }
    }

    @Test
    void aNamesThreePrimitivesAreIndependentAndHoldersListsOnlyLocks() {
        // Names a lock could have that look like the other primitives' keys or channels.
        List<String> names = List.of("x", "rw", "semaphore", "rw:{x}", "semaphore:{x}:holders", "}:writer", "released:rw-readers:{x");
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri())) {
            List<Lease> held = new ArrayList<>();
            for (String name : names) {
                held.add(a.lock(name).tryAcquire(LEASE).orElseThrow());
                held.add(b.readWriteLock(name).writeLock().tryAcquire(LEASE).orElseThrow());
                held.add(a.semaphore(name, 1).tryAcquire(LEASE).orElseThrow());
            }
            for (String name : names) {
                assertThat(b.lock(name).tryAcquire(LEASE)).as("lock %s", name).isEmpty();
                assertThat(a.readWriteLock(name).readLock().tryAcquire(LEASE)).as("read %s", name).isEmpty();
                assertThat(b.semaphore(name, 1).tryAcquire(LEASE)).as("permit %s", name).isEmpty();
            }
            assertThat(a.holders("", 100)).extracting(LockInfo::name).containsExactlyInAnyOrderElementsOf(names);
            for (String name : names) {
                assertThat(a.inspect(name)).as("inspect %s", name).isPresent();
            }
            held.forEach(Lease::release);
            assertThat(a.holders("", 100)).isEmpty();
            // Every key of the three hashes to the name's cluster slot (as for a lock, not for a name that
            // starts with "}": its hash tag is empty, and Redis then hashes the whole key).
            for (String name : names.stream().filter(name -> !name.startsWith("}")).toList()) {
                String tag = hashed(LockScripts.lockKey(name));
                for (String key : List.of(ReadWriteScripts.readersKey(name), ReadWriteScripts.readerOwnersKey(name),
                        ReadWriteScripts.writerKey(name), ReadWriteScripts.writerOwnerKey(name), ReadWriteScripts.waitingKey(name),
                        ReadWriteScripts.fenceKey(name), ReadWriteScripts.abandonedKey(name, "t"), SemaphoreScripts.holdersKey(name),
                        SemaphoreScripts.ownersKey(name), SemaphoreScripts.permitsKey(name), SemaphoreScripts.fenceKey(name),
                        SemaphoreScripts.abandonedKey(name, "t"))) {
                    assertThat(hashed(key)).as(key).isEqualTo(tag);
                }
            }
        }
    }

    // ---- holders() and revoke(holdId): the operator's view of the permits -------------------------

    @Test
    void holdersListsEveryLivePermitOldestFirstWithItsIdButNeverItsToken() {
        Instant before = Instant.now().minusSeconds(1); // the server's clock: the same machine's, to a second
        try (LockClient a = Locks.connect(URI.create(redis.uri()), owner("worker-a"));
             LockClient b = Locks.connect(URI.create(redis.uri()), owner("worker-b"));
             LockClient c = Locks.connect(URI.create(redis.uri()), owner("worker-c"));
             LockClient inspector = Locks.connect(redis.uri())) {
            DistributedSemaphore view = inspector.semaphore("listed", 3);
            assertThat(view.holders()).as("nothing held").isEmpty();
            List<Lease> leases = List.of(a.semaphore("listed", 3).tryAcquire(LEASE).orElseThrow(),
                    b.semaphore("listed", 3).tryAcquire(LEASE).orElseThrow(), c.semaphore("listed", 3).tryAcquire(LEASE).orElseThrow());
            Instant after = Instant.now().plusSeconds(1);

            List<LockInfo> holds = view.holders();
            assertThat(holds).hasSize(3);
            assertThat(holds).extracting(LockInfo::owner).containsExactly(Optional.of("worker-a"), Optional.of("worker-b"),
                    Optional.of("worker-c"));
            for (int i = 0; i < 3; i++) {
                LockInfo hold = holds.get(i);
                long token = leases.get(i).fencingToken().getAsLong();
                assertThat(hold.kind()).isEqualTo(LockInfo.Kind.PERMIT);
                assertThat(hold.holdId()).as("the grant's number").contains(Long.toString(token));
                assertThat(hold.fencingToken()).hasValue(token);
                assertThat(hold.permits()).hasValue(3);
                assertThat(hold.acquiredAt()).hasValueSatisfying(at -> assertThat(at).isBetween(before, after));
                assertThat(hold.acquiredClock()).contains(LockInfo.Clock.SERVER);
                assertThat(hold.remaining()).hasValueSatisfying(left -> assertThat(left).isLessThanOrEqualTo(LEASE)
                        .isGreaterThan(LEASE.minusSeconds(10)));
                assertThat(hold.detail()).isEqualTo(SemaphoreScripts.holdersKey("listed"));
            }
            for (Object token : (List<?>) redis.call("ZRANGE", SemaphoreScripts.holdersKey("listed"), "0", "-1")) {
                assertThat(holds.toString()).as("an owner token is the lease's secret").doesNotContain((String) token);
            }

            leases.get(1).release();
            assertThat(view.holders()).extracting(LockInfo::owner).containsExactly(Optional.of("worker-a"), Optional.of("worker-c"));
            // A permit not renewed is listed while its lease lasts, and not once the server's clock has passed it.
            Lease stopped = b.semaphore("listed", 3).tryAcquire(SHORT).orElseThrow();
            assertThat(view.holders()).hasSize(3).last().satisfies(hold -> {
                assertThat(hold.holdId()).contains(Long.toString(stopped.fencingToken().getAsLong()));
                assertThat(hold.remaining()).hasValueSatisfying(left -> assertThat(left).isLessThanOrEqualTo(SHORT));
            });
            await().atMost(PATIENCE).until(() -> view.holders().size() == 2);
            assertThat(redis.call("ZCARD", SemaphoreScripts.holdersKey("listed"))).as("not dropped yet: no acquire since").isEqualTo(3L);
            leases.get(0).release();
            leases.get(2).release();
            assertThat(view.holders()).isEmpty();
        }
    }

    @Test
    void revokeTakesOnePermitBackItsHolderLearnsItAndAWaiterGetsItAtOnce() throws Exception {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        LockOptions slowPolling = LockOptions.builder().retryBackoff(Duration.ofMillis(5), Duration.ofMinutes(1)).build();
        try (LockClient a = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("stuck-worker").listener(events::add).build());
             LockClient b = Locks.connect(URI.create(redis.uri()), owner("worker-b"));
             LockClient c = Locks.connect(URI.create(redis.uri()), slowPolling);
             LockClient operator = Locks.connect(redis.uri())) {
            Lease revokedLease = a.semaphore("revoked-permit", 2).tryAcquire(LEASE).orElseThrow();
            Lease kept = b.semaphore("revoked-permit", 2).tryAcquire(LEASE).orElseThrow();
            CompletableFuture<Long> lostAt = revokedLease.lost().toCompletableFuture().thenApply(reason -> System.nanoTime());
            Future<Optional<Lease>> waiting = threads.submit(() -> c.semaphore("revoked-permit", 2).tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> (Long) ((List<?>) redis.call("PUBSUB", "NUMSUB",
                    SemaphoreScripts.channel("revoked-permit"))).get(1) == 1L);
            DistributedSemaphore permits = operator.semaphore("revoked-permit", 2);
            String id = permits.holders().get(0).holdId().orElseThrow();
            Object fence = redis.call("GET", SemaphoreScripts.fenceKey("revoked-permit"));

            long start = System.nanoTime();
            LockInfo revoked = permits.revoke(id, "stuck since 02:10").orElseThrow();
            assertThat(revoked.holdId()).contains(id);
            assertThat(revoked.kind()).isEqualTo(LockInfo.Kind.PERMIT);
            assertThat(revoked.owner()).contains("stuck-worker");
            assertThat(revoked.fencingToken()).isEqualTo(revokedLease.fencingToken());
            assertThat(revoked.permits()).hasValue(2);
            assertThat(revokedLease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            double millis = (lostAt.get(5, TimeUnit.SECONDS) - start) / 1e6;
            System.out.printf("redis semaphore: revoke-to-lost %.1f ms%n", millis);
            assertThat(millis).as("a notification, not a renewal").isLessThan(1000);
            assertThat(revokedLease.isValid()).isFalse();
            assertThat(revokedLease.extend(LEASE)).isFalse();
            await().atMost(PATIENCE).until(() -> events.stream().anyMatch(e -> e.type() == LockEvent.Type.REVOKED));
            assertThat(events.stream().filter(e -> e.type() == LockEvent.Type.REVOKED).findFirst().orElseThrow().revocationReason())
                    .contains("stuck since 02:10");

            Lease handed = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("woken by the revoke").isLessThan(1_000);
            assertThat(handed.fencingToken().getAsLong()).isGreaterThan(revokedLease.fencingToken().getAsLong());
            assertThat(Long.parseLong((String) redis.call("GET", SemaphoreScripts.fenceKey("revoked-permit"))))
                    .as("the revoke moved the fence, the grant after it again").isEqualTo(Long.parseLong((String) fence) + 2);
            assertThat(kept.isValid()).isTrue();
            assertThat(kept.extend(LEASE)).as("the other permit is untouched").isTrue();
            assertThat(permits.holders()).extracting(LockInfo::fencingToken).containsExactly(kept.fencingToken(), handed.fencingToken());
            assertThat((List<?>) redis.call("KEYS", "distlock-revoked:\\{revoked-permit\\}:*")).hasSize(1);

            assertThat(permits.revoke(id, "again")).as("a second revoke of the same hold").isEmpty();
            for (String unknown : List.of("999999999", "0", "-1", "0" + id, "+" + id, id + " ", "abc", "99999999999999999999")) {
                assertThat(permits.revoke(unknown, "no such hold")).as("hold id '%s'", unknown).isEmpty();
            }
            assertThat(operator.readWriteLock("revoked-permit").revoke(kept.fencingToken().getAsLong() + "", "another primitive"))
                    .as("a permit's id names no hold of the read-write lock of the same name").isEmpty();
            assertThat(kept.isValid()).isTrue();
            kept.release();
            handed.release();
        }
    }

    @Test
    void aMissedNoticeEndsEveryKindOfHoldAsRevokedAtItsNextExtension() throws Exception {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        try (LockClient deaf = Locks.connect(URI.create(redis.uri()), LockOptions.builder().listener(events::add).build())) {
            Lease permit = deaf.semaphore("missed", 2).tryAcquire(LEASE).orElseThrow();
            Lease read = deaf.readWriteLock("missed-read").readLock().tryAcquire(LEASE).orElseThrow();
            Lease write = deaf.readWriteLock("missed-write").writeLock().tryAcquire(LEASE).orElseThrow();
            // Revoked by hand, as the scripts do it but with nothing published: marker first, then the hold gone.
            String permitToken = (String) ((List<?>) redis.call("ZRANGE", SemaphoreScripts.holdersKey("missed"), "0", "0")).get(0);
            redis.call("SET", LockScripts.revokedKey("missed", permitToken), "rebalancing", "PX", "60000");
            redis.call("ZREM", SemaphoreScripts.holdersKey("missed"), permitToken);
            String readToken = (String) ((List<?>) redis.call("ZRANGE", ReadWriteScripts.readersKey("missed-read"), "0", "0")).get(0);
            redis.call("SET", LockScripts.revokedKey("missed-read", readToken), "rebalancing", "PX", "60000");
            redis.call("ZREM", ReadWriteScripts.readersKey("missed-read"), readToken);
            String writeToken = (String) redis.call("GET", ReadWriteScripts.writerKey("missed-write"));
            redis.call("SET", LockScripts.revokedKey("missed-write", writeToken), "rebalancing", "PX", "60000");
            redis.call("DEL", ReadWriteScripts.writerKey("missed-write"));
            for (Lease lease : List.of(permit, read, write)) {
                assertThat(lease.extend(LEASE)).isFalse();
                assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            }
            await().atMost(PATIENCE).until(() -> events.stream().filter(e -> e.type() == LockEvent.Type.REVOKED).count() == 3);
            assertThat(events.stream().filter(e -> e.type() == LockEvent.Type.REVOKED).map(LockEvent::revocationReason))
                    .containsOnly(Optional.of("rebalancing"));
        }
    }

    @Test
    void aReleaseRacingARevokeEndsThePermitOnceNeverTwice() throws Exception {
        int rounds = 16;
        int revokedCount = 0;
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri());
             LockClient operator = Locks.connect(redis.uri()); LockClient next = Locks.connect(redis.uri())) {
            for (int i = 0; i < rounds; i++) {
                String name = "raced-" + i;
                Lease raced = a.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
                Lease other = b.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
                String id = Long.toString(raced.fencingToken().getAsLong());
                // Started in either order, so that both sides win some rounds.
                CompletableFuture<Void> release = i % 2 == 0 ? CompletableFuture.runAsync(raced::release, threads) : null;
                CompletableFuture<Optional<LockInfo>> revoke = CompletableFuture.supplyAsync(
                        () -> operator.semaphore(name, 2).revoke(id, "race " + name), threads);
                if (release == null) {
                    release = CompletableFuture.runAsync(raced::release, threads);
                }
                release.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                boolean revoked = revoke.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).isPresent();
                revokedCount += revoked ? 1 : 0;
                String race = name + (revoked ? ", revoked" : ", released");
                // One of the two ended the permit: a marker only if the revoke did, the other permit untouched.
                assertThat((List<?>) redis.call("KEYS", "distlock-revoked:\\{" + name + "\\}:*")).as(race).hasSize(revoked ? 1 : 0);
                assertThat(operator.semaphore(name, 2).holders()).as(race).extracting(LockInfo::fencingToken)
                        .containsExactly(other.fencingToken());
                CompletionStage<Lease.LossReason> lost = raced.lost();
                if (lost.toCompletableFuture().isDone()) {
                    assertThat(revoked).as(race + ": lost, so revoked").isTrue();
                    assertThat(lost.toCompletableFuture().get()).as(race).isEqualTo(Lease.LossReason.REVOKED);
                }
                Lease taken = next.semaphore(name, 2).tryAcquire(LEASE).orElseThrow(() -> new AssertionError(race + ": not free"));
                assertThat(next.semaphore(name, 2).tryAcquire(LEASE)).as(race + ": one permit came back, not two").isEmpty();
                assertThat(other.extend(LEASE)).as(race).isTrue();
                taken.release();
                other.release();
            }
        }
        System.out.printf("redis semaphore: %d races of a release against a revoke, %d revoked%n", rounds, revokedCount);
    }

    private static LockOptions owner(String description) {
        return LockOptions.builder().owner(description).build();
    }

    /** The README's locker line for locks, read-write locks and semaphores: the lock line and the sorted-set and hash commands. */
    static final String[] HOLDS_LOCKER_RULES = java.util.stream.Stream.concat(java.util.Arrays.stream(RedisInspectionTest.LOCKER_RULES),
            java.util.stream.Stream.of("+zadd", "+zrem", "+zscore", "+zcard", "+zcount", "+zrange", "+zrangebyscore",
                    "+zremrangebyscore", "+hset", "+hdel")).toArray(String[]::new);

    @Test
    void theReadmesAclLineIsEnoughAndTheLockLineAloneIsRefused() throws Exception {
        try (RedisServer acl = RedisServer.builder().aclUser("locker", "pw-holds-41", HOLDS_LOCKER_RULES)
                .aclUser("lock-only", "pw-holds-42", RedisInspectionTest.LOCKER_RULES).start();
             LockClient a = Locks.connect(acl.uri("locker")); LockClient b = Locks.connect(acl.uri("locker"));
             LockClient old = Locks.connect(acl.uri("lock-only"))) {
            // A full lease: a client's first grant waits (250 ms at most) for its revocation
            // subscription, which a loaded build machine can make longer than a 500 ms lease allows.
            Lease read = a.readWriteLock("acl").readLock().tryAcquire(LEASE).orElseThrow();
            Future<Optional<Lease>> writer = threads.submit(() -> b.readWriteLock("acl").writeLock().tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> (Long) acl.call("ZCARD", ReadWriteScripts.waitingKey("acl")) == 1L);
            assertThat(read.extend(LEASE)).isTrue();
            read.release();
            writer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow().release();
            Lease permit = a.semaphore("acl", 1).tryAcquire(SHORT).orElseThrow();
            Lease next = b.semaphore("acl", 1).tryAcquire(SHORT, PATIENCE).orElseThrow(); // after the first one's lease
            assertThatThrownBy(() -> b.semaphore("acl", 2).tryAcquire(LEASE)).isInstanceOf(PermitCountMismatchException.class);
            next.release();
            permit.release();

            old.lock("acl").tryAcquire(LEASE).orElseThrow().release();
            assertThatThrownBy(() -> old.semaphore("acl", 1).tryAcquire(LEASE))
                    .isInstanceOf(io.distlock.AccessDeniedException.class).hasMessageContaining("lock-only");
            assertThatThrownBy(() -> old.readWriteLock("acl").readLock().tryAcquire(LEASE))
                    .isInstanceOf(io.distlock.AccessDeniedException.class);
        }
    }

    /** What Redis Cluster hashes of a key: its hash tag (between the first "{" and the next "}", if not empty), else all of it. */
    private static String hashed(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        return close > open + 1 ? key.substring(open + 1, close) : key;
    }

    private static List<String> keys(String name) {
        return ((List<?>) redis.call("KEYS", SemaphoreScripts.prefix(name).replace("{", "\\{").replace("}", "\\}") + "*"))
                .stream().map(String.class::cast).sorted().toList();
    }
}
