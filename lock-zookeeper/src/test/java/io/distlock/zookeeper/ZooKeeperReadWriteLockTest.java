package io.distlock.zookeeper;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import io.distlock.zookeeper.internal.LockNodes;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.distlock.zookeeper.HoldLines.line;
import static io.distlock.zookeeper.HoldLines.request;
import static io.distlock.zookeeper.HoldLines.roundTrip;
import static io.distlock.zookeeper.HoldLines.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Read-write locks against one real server, each client a process of its own: readers share, a
 * writer excludes readers and writers, a waiting writer holds back the readers that come after it
 * and gets the lock while readers keep arriving, tokens in one order, holds whose holder stops come
 * back, the name's three primitives are independent and {@code holders()} lists none but locks, a
 * waiter is woken only by what can let it in; the read-write lock's own {@code holders()} lists its
 * readers or its writer and {@code revoke(holdId, reason)} takes one back.
 */
class ZooKeeperReadWriteLockTest {

    private static final String CHROOT = "/rw-test";
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
        return client("rw-test");
    }

    private LockClient client(String owner) {
        return opened.add(Locks.connect(URI.create(server.uri(CHROOT)), LockOptions.builder().owner(owner).build()));
    }

    /** The hold id of a node of the read-write lock {@code name}: its sequence and its directory's czxid. */
    private static String holdId(String name, String node) throws Exception {
        return LockNodes.holdId(node, raw.exists(LockNodes.readWriteDir(CHROOT, name), false).getCzxid());
    }

    private static List<String> rwLine(String name) {
        return line(raw, LockNodes.readWriteDir(CHROOT, name));
    }

    private static long writersInLine(String name) {
        return rwLine(name).stream().filter(node -> node.startsWith("write-")).count();
    }

    @Test
    void readersShareAndAWriterExcludesReadersAndWriters() {
        String name = unique("share");
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        Lease readA = a.readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();
        Lease readB = b.readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();
        assertThat(c.readWriteLock(name).writeLock().tryAcquire(LEASE)).as("a writer beside two readers").isEmpty();
        assertThat(rwLine(name)).as("the refused writer left nothing").hasSize(2).allMatch(node -> node.startsWith("read-"));
        readA.release();
        assertThat(c.readWriteLock(name).writeLock().tryAcquire(LEASE)).as("a writer beside one reader").isEmpty();
        readB.release();

        Lease write = c.readWriteLock(name).writeLock().tryAcquire(LEASE).orElseThrow();
        assertThat(a.readWriteLock(name).readLock().tryAcquire(LEASE)).as("a reader beside the writer").isEmpty();
        assertThat(b.readWriteLock(name).writeLock().tryAcquire(LEASE)).as("a second writer").isEmpty();
        assertThat(c.readWriteLock(name).readLock().tryAcquire(LEASE)).as("the writer's own client reading: just another hold").isEmpty();
        assertThat(rwLine(name)).hasSize(1);
        write.release();
        assertThat(rwLine(name)).isEmpty();
        a.readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow().release();
    }

    @Test
    void aWaitingWriterHoldsBackLaterReadersAndGetsTheLockWhileReadersKeepArriving() throws Exception {
        String name = unique("preference");
        LockClient first = client();
        LockClient writer = client();
        LockClient late = client();
        List<LockClient> readers = List.of(client(), client(), client());
        Lease firstRead = first.readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();

        // A stream of overlapping readers: without write preference, the lock would never be free of them.
        AtomicBoolean writing = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger readsWhileWriting = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        for (LockClient reader : readers) {
            executor.submit(() -> {
                DistributedLock read = reader.readWriteLock(name).readLock();
                while (!stop.get()) {
                    Optional<Lease> lease = read.tryAcquire(LEASE, WAIT);
                    if (lease.isPresent()) {
                        if (writing.get()) {
                            readsWhileWriting.incrementAndGet();
                        }
                        reads.incrementAndGet();
                        Thread.sleep(40); // the reader's work; the others overlap it
                        lease.get().release();
                    }
                }
                return null;
            });
        }
        await().atMost(WAIT).until(() -> reads.get() >= 6);

        long start = System.nanoTime();
        Future<Optional<Lease>> waiting = executor.submit(() -> writer.readWriteLock(name).writeLock().tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> writersInLine(name) == 1);
        assertThat(late.readWriteLock(name).readLock().tryAcquire(LEASE)).as("a reader that comes after the waiting writer").isEmpty();
        assertThat(firstRead.isValid()).as("a reader already holding keeps its hold").isTrue();
        firstRead.release();

        Lease write = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        writing.set(true);
        System.out.printf("[ZooKeeperReadWriteLockTest] the writer waited %d ms among %d reads%n",
                (System.nanoTime() - start) / 1_000_000, reads.get());
        assertThat(write.isValid()).isTrue();
        // Readers keep trying while the writer holds: none may get in for a while (and none did at once).
        await("no reader beside the writer").during(Duration.ofMillis(100)).atMost(WAIT)
                .until(() -> readsWhileWriting.get() == 0);
        writing.set(false);
        write.release();
        int before = reads.get();
        await("readers go on after the writer").atMost(WAIT).until(() -> reads.get() > before);
        stop.set(true);
        assertThat(readsWhileWriting).as("readers granted while the writer held").hasValue(0);
    }

    @Test
    void tokensFollowOneOrderForReadersAndWriters() throws Exception {
        String name = unique("tokens");
        LockClient w1 = client();
        LockClient r1 = client();
        LockClient r2 = client();
        LockClient w2 = client();
        LockClient r3 = client();
        Lease firstWrite = w1.readWriteLock(name).writeLock().tryAcquire(LEASE).orElseThrow();
        Future<Optional<Lease>> read1 = executor.submit(() -> r1.readWriteLock(name).readLock().tryAcquire(LEASE, WAIT));
        Future<Optional<Lease>> read2 = executor.submit(() -> r2.readWriteLock(name).readLock().tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> rwLine(name).size() == 3);
        Future<Optional<Lease>> write2 = executor.submit(() -> w2.readWriteLock(name).writeLock().tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> writersInLine(name) == 2);

        long first = firstWrite.fencingToken().orElseThrow();
        firstWrite.release();
        Lease readA = read1.get(10, TimeUnit.SECONDS).orElseThrow();
        Lease readB = read2.get(10, TimeUnit.SECONDS).orElseThrow();
        long readerA = readA.fencingToken().orElseThrow();
        long readerB = readB.fencingToken().orElseThrow();
        assertThat(readerA).as("a reader after the writer").isGreaterThan(first);
        assertThat(readerB).as("a reader after the writer").isGreaterThan(first).isNotEqualTo(readerA);
        assertThat(write2.isDone()).as("the second writer waits for both readers").isFalse();
        readA.release();
        readB.release();
        Lease secondWrite = write2.get(10, TimeUnit.SECONDS).orElseThrow();
        long second = secondWrite.fencingToken().orElseThrow();
        assertThat(second).as("a writer's token is above every token granted before it").isGreaterThan(Math.max(readerA, readerB));
        secondWrite.release();
        Lease lastRead = r3.readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();
        assertThat(lastRead.fencingToken().orElseThrow()).isGreaterThan(second);
        lastRead.release();
    }

    @Test
    void aReadOrWriteHoldWhoseHolderStopsRenewingComesBackAfterItsLease() throws Exception {
        for (boolean readHold : new boolean[] {true, false}) {
            String name = unique(readHold ? "stopped-reader" : "stopped-writer");
            LockClient holder = client();
            LockClient writer = client();
            DistributedLock side = readHold ? holder.readWriteLock(name).readLock() : holder.readWriteLock(name).writeLock();
            Lease stopped = side.tryAcquire(SHORT_LEASE).orElseThrow(); // never extended, never released
            long start = System.nanoTime();
            Lease next = writer.readWriteLock(name).writeLock().tryAcquire(LEASE, WAIT).orElseThrow();
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertThat(stopped.isValid()).isFalse();
            assertThat(stopped.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
            assertThat(waited).as("ms waited for a " + (readHold ? "read" : "write") + " hold of " + SHORT_LEASE)
                    .isBetween(SHORT_LEASE.toMillis() / 2, SHORT_LEASE.toMillis() + 4_000);
            assertThat(rwLine(name)).as("the stopped hold's node is gone").hasSize(1);
            next.release();
        }
    }

    @Test
    void renewedReadAndWriteHoldsOutliveTheirLeaseTime() {
        String name = unique("renewed");
        LockClient a = client();
        LockClient b = client();
        Lease read = a.readWriteLock(name).readLock().tryAcquire(SHORT_LEASE).orElseThrow().autoRenew();
        Lease otherRead = b.readWriteLock(name).readLock().tryAcquire(SHORT_LEASE).orElseThrow();
        assertThat(otherRead.extend(SHORT_LEASE.multipliedBy(3))).isTrue();
        await().during(SHORT_LEASE.multipliedBy(3).dividedBy(2)).atMost(SHORT_LEASE.multipliedBy(4)).until(read::isValid);
        assertThat(b.readWriteLock(name).writeLock().tryAcquire(LEASE)).as("a writer beside a renewed reader").isEmpty();
        read.release();
        otherRead.release();
        Lease write = b.readWriteLock(name).writeLock().tryAcquire(SHORT_LEASE).orElseThrow().autoRenew();
        await().during(SHORT_LEASE.multipliedBy(3).dividedBy(2)).atMost(SHORT_LEASE.multipliedBy(4)).until(write::isValid);
        assertThat(a.readWriteLock(name).readLock().tryAcquire(LEASE)).as("a reader beside a renewed writer").isEmpty();
        write.release();
    }

    @Test
    void aHoldWhoseClientsSessionEndsComesBackAtOnce() throws Exception {
        String name = unique("session");
        LockClient holder = client();
        LockClient writer = client();
        Lease read = holder.readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();
        Future<Optional<Lease>> waiting = executor.submit(() -> writer.readWriteLock(name).writeLock().tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> writersInLine(name) == 1);
        long start = System.nanoTime();
        server.expireSession(holder);
        Lease write = waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("long before the read lease's end").isLessThan(LEASE.dividedBy(2));
        assertThat(read.lost().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
        write.release();
    }

    @Test
    void theThreePrimitivesOfANameAreIndependentAndNoLockNameReachesThem() {
        String name = unique("same");
        LockClient a = client();
        LockClient b = client();
        Lease lock = a.lock(name).tryAcquire(LEASE).orElseThrow();
        Lease write = b.readWriteLock(name).writeLock().tryAcquire(LEASE).orElseThrow();
        Lease permit = a.semaphore(name, 1).tryAcquire(LEASE).orElseThrow();
        // Lock names that look like the primitives' paths are just lock names.
        for (String lookalike : List.of(".rw", ".rw/" + name, ".semaphore/" + name, "rw/" + name)) {
            b.lock(lookalike).tryAcquire(LEASE).orElseThrow().release();
        }
        assertThat(a.readWriteLock(name).readLock().tryAcquire(LEASE)).as("the write side is held").isEmpty();
        assertThat(b.semaphore(name, 1).tryAcquire(LEASE)).as("the permit is held").isEmpty();
        assertThat(a.lock(".rw").tryAcquire(LEASE)).isPresent();
        lock.release();
        write.release();
        permit.release();
    }

    @Test
    void holdersListsLocksOnlyNeverTheReadWriteLocksOrSemaphoresBesideThem() {
        String prefix = unique("listed");
        LockClient a = client();
        Lease lock = a.lock(prefix + "-lock").tryAcquire(LEASE).orElseThrow();
        Lease read = a.readWriteLock(prefix + "-rw").readLock().tryAcquire(LEASE).orElseThrow();
        Lease write = a.readWriteLock(prefix + "-lock").writeLock().tryAcquire(LEASE).orElseThrow();
        Lease permit = a.semaphore(prefix + "-sem", 2).tryAcquire(LEASE).orElseThrow();
        assertThat(client().holders("", 1_000)).extracting(LockInfo::name).contains(prefix + "-lock")
                .doesNotContain(prefix + "-rw", prefix + "-sem");
        assertThat(client().holders(prefix, 10)).extracting(LockInfo::name).containsExactly(prefix + "-lock");
        lock.release();
        assertThat(client().holders(prefix, 10)).as("the write lock of the same name is no lock").isEmpty();
        read.release();
        write.release();
        permit.release();
    }

    /**
     * {@code holders()} shows the readers that hold (not the writer waiting behind them, nor the
     * reader behind it), each as READ with its node's sequence as hold id, then the writer alone as
     * WRITE; a revoke of one of two readers leaves the other valid and lets the waiting writer in
     * only once that one goes too; a waiter's id revokes nothing.
     */
    @Test
    void holdersShowsTheReadersThenTheWriterAndARevokeOfOneReaderLeavesTheOther() throws Exception {
        String name = unique("readers");
        LockClient operator = client("ops");
        assertThat(operator.readWriteLock(name).holders()).as("nothing held").isEmpty();
        Lease r1 = client("reader-1").readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();
        Lease r2 = client("reader-2").readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();
        Future<Optional<Lease>> writing = executor.submit(() -> client("writer").readWriteLock(name).writeLock().tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> writersInLine(name) == 1);
        Future<Optional<Lease>> lateReading = executor.submit(() -> client("reader-3").readWriteLock(name).readLock().tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> rwLine(name).size() == 4);
        List<String> nodes = rwLine(name);

        List<LockInfo> holds = operator.readWriteLock(name).holders();
        assertThat(holds).extracting(LockInfo::kind).containsExactly(LockInfo.Kind.READ, LockInfo.Kind.READ);
        assertThat(holds).extracting(info -> info.holdId().orElseThrow()).containsExactly(holdId(name, nodes.get(0)), holdId(name, nodes.get(1)));
        assertThat(holds).extracting(LockInfo::owner).containsExactly(Optional.of("reader-1"), Optional.of("reader-2"));
        assertThat(holds).extracting(LockInfo::fencingToken).containsExactly(r1.fencingToken(), r2.fencingToken());
        assertThat(holds).allSatisfy(info -> {
            assertThat(info.permits()).isEmpty();
            assertThat(info.waiters()).hasValue(2);
            assertThat(info.detail()).startsWith("node " + LockNodes.readWriteDir(CHROOT, name) + "/read-*-"
                    + info.holdId().orElseThrow().substring(0, 10));
        });

        DistributedReadWriteLock rw = operator.readWriteLock(name);
        assertThat(rw.revoke(holdId(name, nodes.get(2)), "the waiting writer holds nothing")).isEmpty();
        assertThat(rw.revoke(holdId(name, nodes.get(3)), "nor the reader behind it")).isEmpty();
        assertThat(rwLine(name)).isEqualTo(nodes);

        assertThat(rw.revoke(holdId(name, nodes.get(0)), "one reader too many")).map(LockInfo::owner).contains(Optional.of("reader-1"));
        assertThat(r1.lost().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        assertThat(r2.isValid()).as("the other reader").isTrue();
        assertThat(r2.extend(LEASE)).isTrue();
        assertThat(writing.isDone()).as("the writer waits for the other reader").isFalse();
        r2.release();
        Lease write = writing.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        String writerId = holdId(name, nodes.get(2));
        assertThat(operator.readWriteLock(name).holders()).singleElement().satisfies(info -> {
            assertThat(info.kind()).isEqualTo(LockInfo.Kind.WRITE);
            assertThat(info.holdId()).contains(writerId);
            assertThat(info.owner()).contains("writer");
            assertThat(info.fencingToken()).isEqualTo(write.fencingToken());
            assertThat(info.waiters()).hasValue(1);
            assertThat(info.detail()).startsWith("node " + LockNodes.readWriteDir(CHROOT, name) + "/write-*-");
        });
        write.release();
        lateReading.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow().release();
        assertThat(operator.readWriteLock(name).holders()).isEmpty();
    }

    /**
     * A revoked writer: the readers waiting behind it get in at once, with tokens above its own; the
     * writer learns it without renewing and may not extend; its id revokes nothing a second time.
     */
    @Test
    void aRevokedWriterLetsTheWaitingReadersInAtOnceWithHigherTokens() throws Exception {
        String name = unique("writer-revoked");
        Lease write = client("writer").readWriteLock(name).writeLock().tryAcquire(LEASE).orElseThrow();
        CompletableFuture<Lease.LossReason> lost = write.lost().toCompletableFuture();
        Future<Optional<Lease>> read1 = executor.submit(() -> client("reader-1").readWriteLock(name).readLock().tryAcquire(LEASE, WAIT));
        Future<Optional<Lease>> read2 = executor.submit(() -> client("reader-2").readWriteLock(name).readLock().tryAcquire(LEASE, WAIT));
        await().atMost(WAIT).until(() -> rwLine(name).size() == 3);
        DistributedReadWriteLock rw = client("ops").readWriteLock(name);
        String id = rw.holders().get(0).holdId().orElseThrow();

        LockInfo revoked = rw.revoke(id, "writer stuck").orElseThrow();
        assertThat(revoked.kind()).isEqualTo(LockInfo.Kind.WRITE);
        assertThat(revoked.fencingToken()).isEqualTo(write.fencingToken());
        Lease readA = read1.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        Lease readB = read2.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(readA.fencingToken().orElseThrow()).isGreaterThan(write.fencingToken().orElseThrow());
        assertThat(readB.fencingToken().orElseThrow()).isGreaterThan(write.fencingToken().orElseThrow());
        assertThat(lost.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        assertThat(write.isValid()).isFalse();
        assertThat(write.extend(LEASE)).isFalse();
        assertThat(rw.revoke(id, "again")).isEmpty();
        assertThat(rw.holders()).extracting(LockInfo::kind).containsExactly(LockInfo.Kind.READ, LockInfo.Kind.READ);
        readA.release();
        readB.release();
    }

    /**
     * Readers R1 and R2 hold; writer W waits behind them and watches R2, its predecessor; reader R3
     * comes after W and watches it, the closest writer ahead. R1 going wakes nobody; a reader
     * joining wakes nobody; R2 going wakes W only; W going wakes R3. Then the writer ahead of a
     * reader is not the first: with W1 holding and W2 waiting, a reader behind W2 is not woken when
     * W1 goes.
     */
    @Test
    void aWaiterIsWokenOnlyByTheDeletionOfWhatCanLetItIn() throws Exception {
        String name = unique("herd");
        ZkLockDriver r1 = driver();
        ZkLockDriver r2 = driver();
        ZkLockDriver w = driver();
        ZkLockDriver r3 = driver();
        ZkLockDriver r4 = driver();
        Grant read1 = r1.tryAcquire(request(name, Hold.READ)).grant();
        Grant read2 = r2.tryAcquire(request(name, Hold.READ)).grant();
        LockRequest writeRequest = request(name, Hold.WRITE);
        assertThat(w.tryAcquire(writeRequest).isBusy()).isTrue();
        LockRequest lateRead = request(name, Hold.READ);
        assertThat(r3.tryAcquire(lateRead).isBusy()).as("a reader behind a waiting writer").isTrue();
        AtomicInteger writerWoken = new AtomicInteger();
        AtomicInteger readerWoken = new AtomicInteger();
        w.watch(writeRequest, writerWoken::incrementAndGet);
        r3.watch(lateRead, readerWoken::incrementAndGet);

        r1.release(read1);
        LockRequest anotherRead = request(name, Hold.READ);
        assertThat(r4.tryAcquire(anotherRead).isBusy()).as("another late reader joins").isTrue();
        roundTrip(w.zooKeeper());
        roundTrip(r3.zooKeeper());
        assertThat(writerWoken).as("the writer, when a reader it does not watch goes, or one joins behind").hasValue(0);
        assertThat(readerWoken).hasValue(0);

        r2.release(read2);
        await().atMost(WAIT).until(() -> writerWoken.get() > 0);
        Grant write = w.tryAcquire(writeRequest).grant();
        roundTrip(r3.zooKeeper());
        assertThat(readerWoken).as("the reader, when a reader ahead of the writer goes").hasValue(0);
        assertThat(r3.tryAcquire(lateRead).isBusy()).isTrue();

        w.release(write);
        await().atMost(WAIT).until(() -> readerWoken.get() > 0);
        Grant read3 = r3.tryAcquire(lateRead).grant();
        assertThat(read3.fencingToken().orElseThrow()).isGreaterThan(write.fencingToken().orElseThrow());
        r3.release(read3);
        r4.abandon(anotherRead, false);

        // The closest writer ahead, not the first one.
        String second = unique("herd-writers");
        Grant firstWrite = r1.tryAcquire(request(second, Hold.WRITE)).grant();
        LockRequest waitingWrite = request(second, Hold.WRITE);
        assertThat(w.tryAcquire(waitingWrite).isBusy()).isTrue();
        LockRequest readBehind = request(second, Hold.READ);
        assertThat(r3.tryAcquire(readBehind).isBusy()).isTrue();
        AtomicInteger behindWoken = new AtomicInteger();
        r3.watch(readBehind, behindWoken::incrementAndGet);
        r1.release(firstWrite);
        Grant secondWrite = awaitGranted(w, waitingWrite);
        roundTrip(r3.zooKeeper());
        assertThat(behindWoken).as("a reader behind the second writer, when the first goes").hasValue(0);
        w.release(secondWrite);
        await().atMost(WAIT).until(() -> behindWoken.get() > 0);
        r3.release(r3.tryAcquire(readBehind).grant());
    }

    /**
     * A grant the engine cannot use (no validity left when it arrived, a session it cannot vouch for)
     * is given back by abandoning its request: the grant's node goes, and the lock is free at once. The
     * request leaves its line at the grant; the abandon used to find nothing there and leave the node,
     * which held the lock for the session's life (a free lock found busy, seen in the TLS TCK's 1.4).
     */
    @Test
    void aGrantGivenBackByAbandoningItsRequestLeavesTheLockFree() {
        String name = unique("given-back");
        ZkLockDriver driver = driver();
        LockRequest request = request(name, Hold.WRITE);
        assertThat(driver.tryAcquire(request).isGranted()).isTrue();
        assertThat(rwLine(name)).hasSize(1);
        driver.abandon(request, false);
        assertThat(rwLine(name)).as("the node of the grant given back").isEmpty();
        ZkLockDriver other = driver();
        other.release(other.tryAcquire(request(name, Hold.WRITE)).grant());
    }

    private static Grant awaitGranted(ZkLockDriver driver, LockRequest request) {
        AtomicReference<Grant> granted = new AtomicReference<>();
        await().atMost(WAIT).until(() -> {
            io.distlock.spi.Attempt attempt = driver.tryAcquire(request);
            if (attempt.isGranted()) {
                granted.set(attempt.grant());
            }
            return attempt.isGranted();
        });
        return granted.get();
    }

    private ZkLockDriver driver() {
        return opened.add(ZkLockDriver.connect(ZkEndpoint.parse(URI.create(server.uri(CHROOT))), LockOptions.defaults(),
                new RecordingContext("rw-test")));
    }
}
