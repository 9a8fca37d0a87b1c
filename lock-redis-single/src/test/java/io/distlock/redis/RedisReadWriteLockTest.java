package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.redis.support.ReadWriteScripts;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import io.distlock.tck.fixtures.NoEngine;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Read-write locks on one real {@code redis-server}, with several clients (several processes, as the
 * server sees them): readers share, a writer excludes everyone, a waiting writer is not starved by
 * readers that keep coming (write preference), holders that stop give their hold back after their
 * lease, and waiters are woken by the changes they wait for.
 */
class RedisReadWriteLockTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofMillis(500);
    private static final Duration PATIENCE = Duration.ofSeconds(10);
    /** Polling so slow (a notified waiter polls every 10 minutes) that only a notification can hand a hold over in time. */
    private static final LockOptions SLOW_POLLING = LockOptions.builder()
            .retryBackoff(Duration.ofMillis(5), Duration.ofMinutes(1)).build();

    private static RedisServer redis;
    private static ExecutorService threads;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "rw-test");
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
    void readersShareAndAWriterExcludesReadersAndWriters() {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri());
             LockClient c = Locks.connect(redis.uri())) {
            Lease readA = a.readWriteLock("shared").readLock().tryAcquire(LEASE).orElseThrow();
            Lease readB = b.readWriteLock("shared").readLock().tryAcquire(LEASE).orElseThrow();
            assertThat(c.readWriteLock("shared").writeLock().tryAcquire(LEASE)).as("two readers hold").isEmpty();
            readA.release();
            assertThat(c.readWriteLock("shared").writeLock().tryAcquire(LEASE)).as("one reader holds").isEmpty();
            readB.release();

            Lease write = c.readWriteLock("shared").writeLock().tryAcquire(LEASE).orElseThrow();
            assertThat(a.readWriteLock("shared").readLock().tryAcquire(LEASE)).as("the writer holds").isEmpty();
            assertThat(b.readWriteLock("shared").writeLock().tryAcquire(LEASE)).as("one writer at a time").isEmpty();
            write.release();
            Lease readAgain = a.readWriteLock("shared").readLock().tryAcquire(LEASE).orElseThrow();
            readAgain.release();

            assertThat(keys("shared")).as("only the fence counter stays").containsExactly(ReadWriteScripts.fenceKey("shared"));
        }
    }

    @Test
    void readersAndWritersDrawTheirFencingTokensFromOneIncreasingSequence() {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri())) {
            DistributedReadWriteLock lockA = a.readWriteLock("fenced");
            DistributedReadWriteLock lockB = b.readWriteLock("fenced");
            Lease first = lockA.readLock().tryAcquire(LEASE).orElseThrow();
            Lease second = lockB.readLock().tryAcquire(LEASE).orElseThrow();
            long readers = Math.max(first.fencingToken().getAsLong(), second.fencingToken().getAsLong());
            assertThat(second.fencingToken().getAsLong()).isGreaterThan(first.fencingToken().getAsLong());
            first.release();
            second.release();
            Lease write = lockB.writeLock().tryAcquire(LEASE).orElseThrow();
            assertThat(write.fencingToken().getAsLong()).as("above every reader before it").isGreaterThan(readers);
            write.release();
            Lease later = lockA.readLock().tryAcquire(LEASE).orElseThrow();
            assertThat(later.fencingToken().getAsLong()).as("above the writer before it")
                    .isGreaterThan(write.fencingToken().getAsLong());
            later.release();
        }
    }

    @Test
    void aWaitingWriterGetsTheLockWhileNewReadersKeepArriving() throws Exception {
        int readerCount = 3;
        List<LockClient> readers = new java.util.ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger readsGranted = new AtomicInteger();
        ConcurrentLinkedQueue<long[]> readIntervals = new ConcurrentLinkedQueue<>();
        List<Future<?>> loops = new java.util.ArrayList<>();
        try (LockClient writer = Locks.connect(redis.uri())) {
            for (int i = 0; i < readerCount; i++) {
                LockClient client = Locks.connect(redis.uri());
                readers.add(client);
                DistributedReadWriteLock lock = client.readWriteLock("preferred");
                // Each reader holds 150 ms and comes back at once: three of them overlap, so that
                // without write preference some reader would always hold and the writer would starve.
                loops.add(threads.submit(() -> {
                    while (!stop.get()) {
                        Optional<Lease> read = lock.readLock().tryAcquire(Duration.ofSeconds(2));
                        if (read.isPresent()) {
                            long from = System.nanoTime();
                            readsGranted.incrementAndGet();
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(150)); // the reader's work
                            readIntervals.add(new long[] {from, System.nanoTime()});
                            read.get().release();
                        } else {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                        }
                    }
                    return null;
                }));
            }
            await().atMost(PATIENCE).until(() -> readsGranted.get() >= 2 * readerCount);

            long asked = System.nanoTime();
            Lease write = writer.readWriteLock("preferred").writeLock().tryAcquire(Duration.ofSeconds(2), PATIENCE)
                    .orElseThrow(() -> new AssertionError("the writer starved behind " + readsGranted.get() + " reads"));
            long granted = System.nanoTime();
            int readsWhileWriting = readsGranted.get();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // the writer's work
            long done = System.nanoTime();
            assertThat(readsGranted.get()).as("no reader in while the writer holds").isEqualTo(readsWhileWriting);
            write.release();
            assertThat(TimeUnit.NANOSECONDS.toMillis(granted - asked)).as("the writer waited for the readers inside only")
                    .isLessThan(2_000);
            for (long[] read : readIntervals) {
                assertThat(read[1] < granted || read[0] > done).as("a read overlapping the write").isTrue();
            }
            // Readers come in again once the writer is gone.
            int before = readsGranted.get();
            await().atMost(PATIENCE).until(() -> readsGranted.get() > before);
        } finally {
            stop.set(true);
            for (Future<?> loop : loops) {
                loop.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
            readers.forEach(LockClient::close);
        }
    }

    @Test
    void aWriterThatGivesUpWithdrawsItsWaitingEntryAndReadersComeInAtOnce() throws Exception {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri(), SLOW_POLLING);
             LockClient c = Locks.connect(URI.create(redis.uri()), SLOW_POLLING)) {
            Lease read = a.readWriteLock("withdrawn").readLock().tryAcquire(LEASE).orElseThrow();
            // A single attempt: busy, and withdrawn as it returns.
            assertThat(b.readWriteLock("withdrawn").writeLock().tryAcquire(LEASE)).isEmpty();
            assertThat(redis.call("EXISTS", ReadWriteScripts.waitingKey("withdrawn"))).isEqualTo(0L);
            c.readWriteLock("withdrawn").readLock().tryAcquire(LEASE).orElseThrow().release();

            // A waiting writer holds a new reader back; when it gives up, the reader is woken at once
            // (without the notification it would sleep until the writer's 30 s entry lapsed).
            Future<Optional<Lease>> writer = threads.submit(
                    () -> b.readWriteLock("withdrawn").writeLock().tryAcquire(LEASE, Duration.ofMillis(1500)));
            await().atMost(PATIENCE).until(() -> (Long) redis.call("ZCARD", ReadWriteScripts.waitingKey("withdrawn")) == 1L);
            assertThat(pttl(ReadWriteScripts.waitingKey("withdrawn"))).as("the entry lives the writer's lease time")
                    .isBetween(20_000L, 30_000L);
            Future<Optional<Lease>> reader = threads.submit(
                    () -> c.readWriteLock("withdrawn").readLock().tryAcquire(LEASE, PATIENCE));
            assertThat(writer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the writer gave up").isEmpty();
            long gaveUp = System.nanoTime();
            Lease late = reader.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - gaveUp)).isLessThan(1_000);
            late.release();
            read.release();
        }
    }

    @Test
    void aDeadWaitingWriterHoldsNewReadersBackOnlyUntilItsEntryLapses() throws Exception {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri());
             RedisLockDriver dead = driver()) {
            Lease read = a.readWriteLock("dead-writer").readLock().tryAcquire(LEASE).orElseThrow();
            // A writer's attempt, busy; then its process dies: nobody withdraws its entry.
            LockRequest request = new LockRequest("dead-writer", "dead-writer-token", Duration.ofMillis(300),
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(10), Hold.WRITE);
            long attempted = System.nanoTime();
            assertThat(dead.tryAcquire(request).isBusy()).isTrue();
            read.release();

            assertThat(b.readWriteLock("dead-writer").readLock().tryAcquire(LEASE)).as("held back by the waiting writer").isEmpty();
            Lease late = b.readWriteLock("dead-writer").readLock().tryAcquire(LEASE, PATIENCE).orElseThrow();
            // The entry lives max(lease time, 2 s): the reader is in about 2 s after the dead attempt.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - attempted)).isBetween(1_500L, 3_500L);
            late.release();
        }
    }

    @Test
    void holdsWhoseHoldersStopComeBackAfterTheirLease() throws Exception {
        try (LockClient a = Locks.connect(redis.uri()); LockClient b = Locks.connect(redis.uri());
             LockClient c = Locks.connect(redis.uri())) {
            a.readWriteLock("stopped").readLock().tryAcquire(SHORT).orElseThrow(); // never released, never renewed
            long readTaken = System.nanoTime();
            Lease write = b.readWriteLock("stopped").writeLock().tryAcquire(SHORT, PATIENCE).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readTaken)).isBetween(300L, 2_000L);
            long written = System.nanoTime();
            // The writer stops too.
            Lease read = c.readWriteLock("stopped").readLock().tryAcquire(LEASE, PATIENCE).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - written)).isBetween(300L, 2_000L);
            assertThat(write.isValid()).isFalse();
            read.release();
            assertThat(redis.call("ZCARD", ReadWriteScripts.readersKey("stopped"))).as("the dead reader was dropped").isEqualTo(0L);
            assertThat(redis.call("EXISTS", ReadWriteScripts.readerOwnersKey("stopped"))).as("and its record").isEqualTo(0L);
        }
    }

    @Test
    void waitersAreWokenByTheChangesTheyWaitFor() throws Exception {
        try (LockClient a = Locks.connect(URI.create(redis.uri()), SLOW_POLLING);
             LockClient b = Locks.connect(URI.create(redis.uri()), SLOW_POLLING)) {
            // A writer behind a reader: woken when the last reader leaves (not by its 10 s poll).
            Lease read = a.readWriteLock("woken").readLock().tryAcquire(LEASE).orElseThrow();
            Future<Optional<Lease>> writer = threads.submit(() -> b.readWriteLock("woken").writeLock().tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> subscribers(ReadWriteScripts.writersChannel("woken")) == 1L);
            long released = System.nanoTime();
            read.release();
            Lease write = writer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(1_000);

            // A reader behind the writer: woken when it leaves.
            Future<Optional<Lease>> reader = threads.submit(() -> a.readWriteLock("woken").readLock().tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> subscribers(ReadWriteScripts.readersChannel("woken")) == 1L);
            released = System.nanoTime();
            write.release();
            Lease again = reader.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(1_000);
            again.release();
        }
    }

    @Test
    void aWriteOfAReaderWaitsForItsOwnReadNoUpgrade() {
        try (LockClient a = Locks.connect(redis.uri())) {
            DistributedReadWriteLock lock = a.readWriteLock("upgrade");
            Lease read = lock.readLock().tryAcquire(LEASE).orElseThrow();
            assertThat(lock.writeLock().tryAcquire(LEASE)).isEmpty();
            read.release();
            Lease write = lock.writeLock().tryAcquire(LEASE).orElseThrow();
            // Downgrade is not a driver's business either: a read waits for the write, even the same client's.
            assertThat(lock.readLock().tryAcquire(LEASE)).isEmpty();
            write.release();
        }
    }

    @Test
    void everyKeyButTheFenceExpiresAndEachHoldRecordsItsOwnerAndServerTime() throws InterruptedException {
        LockOptions owner = LockOptions.builder().owner("rw-test on host-7").build();
        try (LockClient a = Locks.connect(URI.create(redis.uri()), owner); LockClient b = Locks.connect(redis.uri())) {
            long before = serverMillis();
            Lease read = a.readWriteLock("layout").readLock().tryAcquire(LEASE).orElseThrow();
            assertThat(b.readWriteLock("layout").writeLock().tryAcquire(LEASE, Duration.ofMillis(50))).isEmpty();
            List<?> records = (List<?>) redis.call("HVALS", ReadWriteScripts.readerOwnersKey("layout"));
            assertThat(records).hasSize(1);
            String[] record = ((String) records.get(0)).split(" ", 4);
            assertThat(Long.parseLong(record[0])).isEqualTo(read.fencingToken().getAsLong());
            assertThat(Long.parseLong(record[1])).isBetween(before, serverMillis());
            assertThat(record[3]).isEqualTo("rw-test on host-7");
            assertThat(pttl(ReadWriteScripts.readersKey("layout"))).isBetween(20_000L, 30_000L);
            assertThat(pttl(ReadWriteScripts.readerOwnersKey("layout"))).isBetween(20_000L, 30_000L);
            assertThat(pttl(ReadWriteScripts.fenceKey("layout"))).as("the fence never goes back").isEqualTo(-1L);
            read.release();

            Lease write = a.readWriteLock("layout").writeLock().tryAcquire(LEASE).orElseThrow();
            assertThat(pttl(ReadWriteScripts.writerKey("layout"))).isBetween(20_000L, 30_000L);
            assertThat(pttl(ReadWriteScripts.writerOwnerKey("layout"))).isBetween(20_000L, 30_000L);
            assertThat((String) redis.call("GET", ReadWriteScripts.writerOwnerKey("layout"))).endsWith(" rw-test on host-7");
            write.release();
        }
    }

    // ---- holders() and revoke(holdId) ---------------------------------------------------------

    @Test
    void holdersListsTheReadersThenTheWriterAloneEachWithItsGrantsNumber() {
        try (LockClient a = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("reader-a").build());
             LockClient b = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("reader-b").build());
             LockClient c = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("writer-c").build())) {
            DistributedReadWriteLock view = c.readWriteLock("listed");
            assertThat(view.holders()).isEmpty();
            Lease readA = a.readWriteLock("listed").readLock().tryAcquire(LEASE).orElseThrow();
            Lease readB = b.readWriteLock("listed").readLock().tryAcquire(LEASE).orElseThrow();
            List<LockInfo> readers = view.holders();
            assertThat(readers).extracting(LockInfo::kind).containsExactly(LockInfo.Kind.READ, LockInfo.Kind.READ);
            assertThat(readers).extracting(LockInfo::owner).containsExactly(Optional.of("reader-a"), Optional.of("reader-b"));
            assertThat(readers).extracting(LockInfo::holdId).containsExactly(
                    Optional.of(Long.toString(readA.fencingToken().getAsLong())), Optional.of(Long.toString(readB.fencingToken().getAsLong())));
            assertThat(readers).extracting(LockInfo::fencingToken).containsExactly(readA.fencingToken(), readB.fencingToken());
            assertThat(readers).allSatisfy(hold -> {
                assertThat(hold.detail()).isEqualTo(ReadWriteScripts.readersKey("listed"));
                assertThat(hold.permits()).isEmpty();
                assertThat(hold.remaining()).hasValueSatisfying(left -> assertThat(left).isLessThanOrEqualTo(LEASE));
                assertThat(hold.acquiredClock()).contains(LockInfo.Clock.SERVER);
            });
            readA.release();
            readB.release();

            Lease write = c.readWriteLock("listed").writeLock().tryAcquire(LEASE).orElseThrow();
            assertThat(a.readWriteLock("listed").holders()).singleElement().satisfies(hold -> {
                assertThat(hold.kind()).isEqualTo(LockInfo.Kind.WRITE);
                assertThat(hold.owner()).contains("writer-c");
                assertThat(hold.holdId()).contains(Long.toString(write.fencingToken().getAsLong()));
                assertThat(hold.detail()).isEqualTo(ReadWriteScripts.writerKey("listed"));
                assertThat(hold.remaining()).hasValueSatisfying(left -> assertThat(left).isLessThanOrEqualTo(LEASE)
                        .isGreaterThan(LEASE.minusSeconds(10)));
                assertThat(hold.toString()).doesNotContain((String) redis.call("GET", ReadWriteScripts.writerKey("listed")));
            });
            write.release();
            assertThat(view.holders()).isEmpty();
        }
    }

    @Test
    void revokingTheWriterLetsTheWaitingReadersInAtOnce() throws Exception {
        try (LockClient w = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("stuck-writer").build());
             LockClient r = Locks.connect(URI.create(redis.uri()), SLOW_POLLING);
             LockClient operator = Locks.connect(redis.uri())) {
            Lease write = w.readWriteLock("revoked-writer").writeLock().tryAcquire(LEASE).orElseThrow();
            Future<Optional<Lease>> reader = threads.submit(() -> r.readWriteLock("revoked-writer").readLock().tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> subscribers(ReadWriteScripts.readersChannel("revoked-writer")) == 1L);
            DistributedReadWriteLock lock = operator.readWriteLock("revoked-writer");
            String id = lock.holders().get(0).holdId().orElseThrow();

            long start = System.nanoTime();
            LockInfo revoked = lock.revoke(id, "writer stuck").orElseThrow();
            assertThat(revoked.kind()).isEqualTo(LockInfo.Kind.WRITE);
            assertThat(revoked.owner()).contains("stuck-writer");
            assertThat(revoked.fencingToken()).isEqualTo(write.fencingToken());
            Lease read = reader.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("woken by the revoke").isLessThan(1_000);
            assertThat(read.fencingToken().getAsLong()).isGreaterThan(write.fencingToken().getAsLong());
            assertThat(write.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            assertThat(write.isValid()).isFalse();
            assertThat(write.extend(LEASE)).isFalse();
            assertThat(lock.revoke(id, "again")).isEmpty();
            assertThat(lock.holders()).extracting(LockInfo::kind).containsExactly(LockInfo.Kind.READ);
            read.release();
        }
    }

    @Test
    void revokingOneOfTwoReadersLeavesTheOtherAndTheLastOneWakesTheWriter() throws Exception {
        try (LockClient a = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("reader-a").build());
             LockClient b = Locks.connect(URI.create(redis.uri()), LockOptions.builder().owner("reader-b").build());
             LockClient w = Locks.connect(URI.create(redis.uri()), SLOW_POLLING);
             LockClient operator = Locks.connect(redis.uri())) {
            Lease readA = a.readWriteLock("revoked-reader").readLock().tryAcquire(LEASE).orElseThrow();
            Lease readB = b.readWriteLock("revoked-reader").readLock().tryAcquire(LEASE).orElseThrow();
            DistributedReadWriteLock lock = operator.readWriteLock("revoked-reader");
            assertThat(lock.revoke(Long.toString(readA.fencingToken().getAsLong()), "reader a stuck"))
                    .hasValueSatisfying(hold -> assertThat(hold.owner()).contains("reader-a"));
            assertThat(readA.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            assertThat(readA.extend(LEASE)).isFalse();
            assertThat(readB.isValid()).isTrue();
            assertThat(readB.extend(LEASE)).as("the other reader stays").isTrue();
            assertThat(lock.holders()).extracting(LockInfo::owner).containsExactly(Optional.of("reader-b"));

            // A writer behind the last reader: woken when that one is revoked too (not by its slow poll).
            Future<Optional<Lease>> writer = threads.submit(() -> w.readWriteLock("revoked-reader").writeLock().tryAcquire(LEASE, PATIENCE));
            await().atMost(PATIENCE).until(() -> subscribers(ReadWriteScripts.writersChannel("revoked-reader")) == 1L);
            long start = System.nanoTime();
            assertThat(lock.revoke(Long.toString(readB.fencingToken().getAsLong()), "reader b stuck")).isPresent();
            Lease write = writer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1_000);
            assertThat(write.fencingToken().getAsLong()).isGreaterThan(readB.fencingToken().getAsLong());
            assertThat(readB.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            write.release();
        }
    }

    // ---- helpers ---------------------------------------------------------------------------

    /** The single-Redis driver on its own, for a client whose process dies between two calls. */
    private static RedisLockDriver driver() {
        RedisNode node = RedisNode.connect(RedisEndpoint.parse(URI.create(redis.uri()), RedisEndpoint.OPTIONS),
                Duration.ofSeconds(2), Duration.ofSeconds(2), 2);
        return new RedisLockDriver(node, NoEngine.INSTANCE);
    }

    private static List<String> keys(String name) {
        return ((List<?>) redis.call("KEYS", ReadWriteScripts.prefix(name).replace("{", "\\{").replace("}", "\\}") + "*"))
                .stream().map(String.class::cast).sorted().toList();
    }

    private static long pttl(String key) {
        return (Long) redis.call("PTTL", key);
    }

    private static long serverMillis() {
        List<?> time = (List<?>) redis.call("TIME");
        return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
    }

    private static long subscribers(String channel) {
        return (Long) ((List<?>) redis.call("PUBSUB", "NUMSUB", channel)).get(1);
    }
}
