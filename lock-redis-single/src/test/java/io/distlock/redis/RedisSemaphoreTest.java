package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
            Lease read = a.readWriteLock("acl").readLock().tryAcquire(SHORT).orElseThrow();
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
