package io.distlock.etcd;

import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.EtcdCluster;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read-write locks on one real etcd member, each client its own {@link LockClient} (as separate
 * processes would be): readers share, a writer excludes readers and writers, a waiting writer is
 * served while new readers keep arriving (write preference), a hold whose holder stops comes back,
 * tokens put a writer above everything granted before it, and the read-write lock "x" is neither
 * the lock "x" nor the semaphore "x", nor listed by the client's {@code holders()}; the read-write
 * lock's own {@code holders()} shows its readers or its writer, and {@code revoke(holdId)} takes one back.
 *
 * <p>The clients' session TTL is 30 s, so a keep-alive's look at the line comes every 10 s: a
 * waiter served within a second or two was woken by its watch.
 */
class EtcdReadWriteLockTest {

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

    private static Optional<Lease> waitFor(io.distlock.DistributedLock side, Duration leaseTime) {
        try {
            return side.tryAcquire(leaseTime, WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Optional<Lease> waitFor(io.distlock.DistributedLock side) {
        try {
            return side.tryAcquire(LEASE, WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void readersShareAndAWriterExcludesReadersAndWriters() throws Exception {
        LockClient a = client("/rw-share");
        LockClient b = client("/rw-share");
        LockClient c = client("/rw-share");
        Lease readA = a.readWriteLock("doc").readLock().tryAcquire(LEASE).orElseThrow();
        Lease readB = b.readWriteLock("doc").readLock().tryAcquire(LEASE).orElseThrow();
        assertThat(etcd.keys("/rw-share/rwlocks/doc/read/")).hasSize(2);

        assertThat(c.readWriteLock("doc").writeLock().tryAcquire(LEASE)).as("a writer beside readers").isEmpty();
        assertThat(etcd.keys("/rw-share/rwlocks/doc/")).as("a busy single attempt leaves no key").hasSize(2);

        CompletableFuture<Optional<Lease>> writing = CompletableFuture.supplyAsync(() -> waitFor(c.readWriteLock("doc").writeLock()));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/rw-share/rwlocks/doc/write/").size() == 1);
        assertThat(b.readWriteLock("doc").readLock().tryAcquire(LEASE)).as("a new reader behind the waiting writer").isEmpty();
        readA.release();
        assertThat(writing).as("one reader still holds").isNotDone();
        readB.release();
        Lease write = writing.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();

        assertThat(a.readWriteLock("doc").readLock().tryAcquire(LEASE)).as("a reader beside the writer").isEmpty();
        assertThat(b.readWriteLock("doc").writeLock().tryAcquire(LEASE)).as("a second writer").isEmpty();
        assertThat(write.fencingToken().orElseThrow())
                .isGreaterThan(readA.fencingToken().orElseThrow())
                .isGreaterThan(readB.fencingToken().orElseThrow());
        write.release();
        assertThat(b.readWriteLock("doc").writeLock().tryAcquire(LEASE)).isPresent();
    }

    /**
     * Three readers take turns so that the read side is never free for long (each holds 60 ms, then
     * asks again; their holds overlap): a writer that starts waiting is served all the same, once the
     * holds ahead of its key end, and no reader is granted while it holds.
     */
    @Test
    void aWaitingWriterGetsTheLockWhileNewReadersKeepArriving() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger writing = new AtomicInteger();
        AtomicInteger readsBesideTheWriter = new AtomicInteger();
        List<Long> readTokens = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> readers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockClient reader = client("/rw-pref");
            readers.add(CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    Lease held = waitFor(reader.readWriteLock("cache").readLock()).orElseThrow();
                    if (writing.get() > 0) {
                        readsBesideTheWriter.incrementAndGet();
                    }
                    readTokens.add(held.fencingToken().orElseThrow());
                    sleep(60);
                    held.release();
                }
            }));
            sleep(20);
        }
        Awaitility.await().atMost(WOKEN).until(() -> readTokens.size() >= 9);

        long asked = System.nanoTime();
        Lease write = client("/rw-pref").readWriteLock("cache").writeLock().tryAcquire(LEASE, WAIT).orElseThrow();
        writing.incrementAndGet();
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        long token = write.fencingToken().orElseThrow();
        assertThat(readTokens).as("the writer's token is above every read token granted before it").allMatch(t -> t < token);
        Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).until(() -> readsBesideTheWriter.get() == 0);
        assertThat(write.isValid()).isTrue();
        writing.decrementAndGet();
        write.release();

        Awaitility.await().atMost(WOKEN).until(() -> readTokens.stream().anyMatch(t -> t > token));
        stop.set(true);
        CompletableFuture.allOf(readers.toArray(new CompletableFuture<?>[0])).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        System.out.printf("[EtcdReadWriteLockTest] the writer waited %d ms behind readers that kept arriving%n", waitedMillis);
        // Starved, it would wait out its 10 s; served, it waits for the 60 ms holds ahead of it (seconds on a loaded machine).
        assertThat(Duration.ofMillis(waitedMillis)).as("served once the holds ahead of it ended").isLessThan(Duration.ofSeconds(6));
    }

    /**
     * {@code holders()} shows the readers (READ, oldest first, a waiting writer counted but not
     * shown), then the writer alone (WRITE); hold ids are the keys' create revisions. A revoke of one
     * of two readers ends that one lease at once (its holder not renewing) and leaves the other
     * valid and renewable, the waiting writer behind it; a revoke of the writer lets the waiting
     * readers in at once, with tokens above its.
     */
    @Test
    void holdersShowsReadersThenTheWriterAndARevokeTakesBackOneReaderOrTheWriter() throws Exception {
        Duration lease = Duration.ofSeconds(30);
        LockClient a = client("/rw-holds", "reader-a");
        LockClient b = client("/rw-holds", "reader-b");
        LockClient w = client("/rw-holds", "writer-w");
        LockClient c = client("/rw-holds", "reader-c");
        LockClient d = client("/rw-holds", "reader-d");
        DistributedReadWriteLock doc = client("/rw-holds", "ops").readWriteLock("doc");
        assertThat(doc.holders()).as("nothing held").isEmpty();

        Lease readA = a.readWriteLock("doc").readLock().tryAcquire(lease).orElseThrow();
        Lease readB = b.readWriteLock("doc").readLock().tryAcquire(lease).orElseThrow();
        CompletableFuture<Optional<Lease>> writing = CompletableFuture.supplyAsync(() -> waitFor(w.readWriteLock("doc").writeLock(), lease));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/rw-holds/rwlocks/doc/write/").size() == 1);
        List<LockInfo> readers = doc.holders();
        assertThat(readers).extracting(LockInfo::kind).containsExactly(LockInfo.Kind.READ, LockInfo.Kind.READ);
        assertThat(readers).extracting(LockInfo::fencingToken).containsExactly(readA.fencingToken(), readB.fencingToken());
        assertThat(readers).extracting(LockInfo::owner).containsExactly(Optional.of("reader-a"), Optional.of("reader-b"));
        assertThat(readers).allSatisfy(hold -> {
            assertThat(hold.holdId()).contains(Long.toString(hold.fencingToken().orElseThrow()));
            assertThat(hold.permits()).isEmpty();
            assertThat(hold.waiters()).as("the waiting writer").hasValue(1);
            assertThat(hold.detail()).startsWith("key /rw-holds/rwlocks/doc/read/");
        });

        CompletableFuture<Lease.LossReason> lostA = readA.lost().toCompletableFuture();
        LockInfo revokedA = doc.revoke(readers.get(0).holdId().orElseThrow(), "reader stuck").orElseThrow();
        assertThat(revokedA.fencingToken()).isEqualTo(readA.fencingToken());
        assertThat(lostA.get(ENV.handOffTimeout().toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        assertThat(readA.isValid()).isFalse();
        assertThat(readA.extend(lease)).isFalse();
        assertThat(readB.isValid()).isTrue();
        assertThat(readB.extend(lease)).as("the other reader still holds").isTrue();
        assertThat(writing).as("behind the other reader").isNotDone();
        assertThat(doc.holders()).extracting(LockInfo::fencingToken).containsExactly(readB.fencingToken());
        assertThat(doc.revoke(readers.get(0).holdId().orElseThrow(), "again")).as("a second revoke of the same hold").isEmpty();

        readB.release();
        Lease write = writing.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        CompletableFuture<Optional<Lease>> readingC = CompletableFuture.supplyAsync(() -> waitFor(c.readWriteLock("doc").readLock(), lease));
        CompletableFuture<Optional<Lease>> readingD = CompletableFuture.supplyAsync(() -> waitFor(d.readWriteLock("doc").readLock(), lease));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/rw-holds/rwlocks/doc/read/").size() == 2);
        List<LockInfo> writers = doc.holders();
        assertThat(writers).as("the writer alone").hasSize(1);
        LockInfo writer = writers.get(0);
        assertThat(writer.kind()).isEqualTo(LockInfo.Kind.WRITE);
        assertThat(writer.fencingToken()).isEqualTo(write.fencingToken());
        assertThat(writer.owner()).contains("writer-w");
        assertThat(writer.waiters()).as("the two readers behind it").hasValue(2);
        assertThat(writer.detail()).startsWith("key /rw-holds/rwlocks/doc/write/");

        CompletableFuture<Lease.LossReason> lostW = write.lost().toCompletableFuture();
        assertThat(doc.revoke(writer.holdId().orElseThrow(), "writer stuck")).map(LockInfo::fencingToken).contains(write.fencingToken());
        assertThat(lostW.get(ENV.handOffTimeout().toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        Lease readC = readingC.get(ENV.handOffTimeout().toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        Lease readD = readingD.get(ENV.handOffTimeout().toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(write.isValid()).isFalse();
        assertThat(write.extend(lease)).isFalse();
        assertThat(readC.fencingToken().orElseThrow()).isGreaterThan(write.fencingToken().orElseThrow());
        assertThat(readD.fencingToken().orElseThrow()).isGreaterThan(write.fencingToken().orElseThrow());
        assertThat(doc.holders()).extracting(LockInfo::kind).containsExactly(LockInfo.Kind.READ, LockInfo.Kind.READ);
        assertThat(doc.revoke("not-a-revision", "nothing")).isEmpty();
        assertThat(readC.isValid() && readD.isValid()).isTrue();
    }

    /** A hold that is neither released nor renewed ends with its lease (the engine deletes its key). */
    @Test
    void aReadOrWriteHoldWhoseHolderStopsComesBackAfterItsLease() throws Exception {
        LockClient holder = client("/rw-stop");
        LockClient other = client("/rw-stop");
        Duration shortLease = Duration.ofMillis(700);
        Lease read = holder.readWriteLock("job").readLock().tryAcquire(shortLease).orElseThrow();
        long start = System.nanoTime();
        Lease write = waitFor(other.readWriteLock("job").writeLock()).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(shortLease.plus(WOKEN));
        assertThat(read.isValid()).isFalse();
        assertThat(read.lost().toCompletableFuture().get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
        write.release();

        Lease stoppedWriter = holder.readWriteLock("job").writeLock().tryAcquire(shortLease).orElseThrow();
        Lease reader = waitFor(other.readWriteLock("job").readLock()).orElseThrow();
        assertThat(stoppedWriter.isValid()).isFalse();
        assertThat(reader.fencingToken().orElseThrow()).isGreaterThan(stoppedWriter.fencingToken().orElseThrow());
        reader.release();
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/rw-stop/").isEmpty());
    }

    /**
     * The session lease of the reader ends (an operator revokes it): its hold goes at once, the
     * waiting writer is served, and the reader's client learns it at its next keep-alive (its
     * session TTL is 3 s: every second).
     */
    @Test
    void aHoldEndsWithItsSession() throws Exception {
        LockClient holder = client("/rw-session", 3);
        LockClient other = client("/rw-session");
        Lease read = holder.readWriteLock("job").readLock().tryAcquire(Duration.ofSeconds(30), WAIT).orElseThrow();
        CompletableFuture<Optional<Lease>> writing = CompletableFuture.supplyAsync(() -> waitFor(other.readWriteLock("job").writeLock()));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/rw-session/rwlocks/job/write/").size() == 1);
        etcd.revokeLease(etcd.leaseOf(etcd.keys("/rw-session/rwlocks/job/read/").get(0)));
        assertThat(writing.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).isPresent();
        assertThat(read.lost().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
    }

    /** A writer that gives up waiting takes its key with it: the readers behind it are let in at once. */
    @Test
    void aWriterThatStopsWaitingLetsTheReadersBehindItIn() throws Exception {
        LockClient a = client("/rw-giveup");
        LockClient b = client("/rw-giveup");
        LockClient c = client("/rw-giveup");
        Lease read = a.readWriteLock("doc").readLock().tryAcquire(LEASE).orElseThrow();
        CompletableFuture<Optional<Lease>> writing = CompletableFuture.supplyAsync(() -> {
            try {
                return b.readWriteLock("doc").writeLock().tryAcquire(LEASE, Duration.ofMillis(1_500));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/rw-giveup/rwlocks/doc/write/").size() == 1);
        CompletableFuture<Optional<Lease>> reading = CompletableFuture.supplyAsync(() -> waitFor(c.readWriteLock("doc").readLock()));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/rw-giveup/rwlocks/doc/read/").size() == 2);
        assertThat(reading).as("behind the waiting writer").isNotDone();
        assertThat(writing.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).as("the reader holds on").isEmpty();
        assertThat(reading.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).isPresent();
        assertThat(etcd.keys("/rw-giveup/rwlocks/doc/write/")).isEmpty();
        assertThat(etcd.keys("/rw-giveup/abandoned/")).as("a withdrawal after definite answers leaves no marker").isEmpty();
        read.release();
    }

    /**
     * The lock, the read-write lock and the semaphore of one name are three objects; names that look
     * like the other primitives' directories are lock names like any other; {@code holders()} and
     * {@code inspect()} show locks only.
     */
    @Test
    void theThreePrimitivesOfANameAreIndependentAndHoldersListsLocksOnly() {
        LockClient a = client("/rw-apart");
        LockClient b = client("/rw-apart");
        Lease lock = a.lock("x").tryAcquire(LEASE).orElseThrow();
        Lease write = b.readWriteLock("x").writeLock().tryAcquire(LEASE).orElseThrow();
        Lease permit = a.semaphore("x", 1).tryAcquire(LEASE).orElseThrow();
        Lease dirLike = b.lock("../rwlocks/x").tryAcquire(LEASE).orElseThrow();
        Lease semLike = a.lock("semaphores/x").tryAcquire(LEASE).orElseThrow();
        Lease read = a.readWriteLock("rwlocks/x/write").readLock().tryAcquire(LEASE).orElseThrow();

        assertThat(b.lock("x").tryAcquire(LEASE)).isEmpty();
        assertThat(a.readWriteLock("x").readLock().tryAcquire(LEASE)).isEmpty();
        assertThat(b.semaphore("x", 1).tryAcquire(LEASE)).isEmpty();

        assertThat(etcd.keys("/rw-apart/locks/")).hasSize(3);
        assertThat(etcd.keys("/rw-apart/rwlocks/x/write/")).hasSize(1);
        assertThat(etcd.keys("/rw-apart/rwlocks/rwlocks%2Fx%2Fwrite/read/")).hasSize(1);
        assertThat(etcd.keys("/rw-apart/semaphores/x/1/")).hasSize(1);
        assertThat(b.holders("", 10)).extracting(LockInfo::name).containsExactly("../rwlocks/x", "semaphores/x", "x");
        assertThat(b.inspect("rwlocks/x/write")).isEmpty();
        lock.release();
        assertThat(b.inspect("x")).isEmpty();
        assertThat(write.isValid() && permit.isValid() && dirLike.isValid() && semLike.isValid() && read.isValid()).isTrue();
    }

    /**
     * Several clients take read and write holds at random for a while: never a reader beside a
     * writer, never two writers, and every writer's token above every token granted before it.
     */
    @Test
    void underContentionNoReaderBesideAWriterAndWritersTokensAboveEverythingBefore() throws Exception {
        int clientsCount = 6;
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        java.util.concurrent.atomic.AtomicLong highest = new java.util.concurrent.atomic.AtomicLong();
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int i = 0; i < clientsCount; i++) {
            LockClient client = client("/rw-load");
            boolean writer = i % 3 == 0;
            runs.add(CompletableFuture.runAsync(() -> {
                DistributedReadWriteLock rw = client.readWriteLock("hot");
                while (System.nanoTime() - until < 0) {
                    Lease lease = waitFor(writer ? rw.writeLock() : rw.readLock()).orElseThrow();
                    long token = lease.fencingToken().orElseThrow();
                    if (writer) {
                        if (writers.incrementAndGet() > 1 || readers.get() > 0 || token <= highest.get()) {
                            violations.incrementAndGet();
                        }
                        writes.incrementAndGet();
                    } else if (readers.incrementAndGet() > 0 && writers.get() > 0) {
                        violations.incrementAndGet();
                    }
                    highest.accumulateAndGet(token, Math::max);
                    sleep(10);
                    (writer ? writers : readers).decrementAndGet();
                    lease.release();
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        assertThat(writes).as("writers were served").hasValueGreaterThan(2);
        assertThat(violations).hasValue(0);
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
