package io.distlock.bench;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.bench.DistlockHoldUncontended.Hold;
import io.distlock.spi.Attempt;
import io.distlock.spi.Grant;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockNames;
import io.distlock.spi.LockRequest;
import io.distlock.tck.fixtures.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One etcd member shared by the etcd rows: etcd 3.4 ({@code /usr/bin/etcd}) in a process of its
 * own, on free loopback ports, its WAL fsynced as etcd always does ({@link EtcdCluster#single()}).
 * Every row talks to the member's own client port, not to the fixture's fault proxy, so no proxy
 * hop is measured, for every library alike; each row has a client of its own.
 *
 * <p>The rows, uncontended (one lock, one client, acquire then release, back to back):
 * <ul>
 *   <li>{@link #FLOOR}: the fewest round trips any etcd lock needs — one transaction that puts the
 *       lock key bound to a lease if it is absent, one delete; with jetcd's KV client;</li>
 *   <li>{@link #JETCD}: jetcd's {@code Lock} client (etcd's server-side lock service: the
 *       transaction runs inside the member), lock then unlock, with one lease granted once and kept
 *       alive by jetcd, as a jetcd user writes it;</li>
 *   <li>{@link #DISTLOCK}: distlock's {@code etcd://} backend through the public API;</li>
 *   <li>{@link #DRIVER}: the same backend's driver called without the engine, to tell the engine's
 *       share from the driver's;</li>
 *   <li>{@link #DIRECTORY_RANGE}: the read inside distlock's acquire on its own (see
 *       {@link DirectoryRange}).</li>
 *   <li>{@link #SEMAPHORE} and {@link #READ_LOCK}: distlock's semaphore and read lock through the
 *       public API ({@link DistlockHoldUncontended}), where the backend declares them; reported
 *       only, jetcd having neither.</li>
 * </ul>
 * and contended (4 clients on one lock): distlock and jetcd's {@code Lock}. Each row notes what the
 * server did per operation ({@link EtcdMetered}) and, uncontended, each step's median
 * ({@link TwoStepScenario}).
 */
final class EtcdPeers implements AutoCloseable {

    /** The session TTL of every etcd client here (distlock's {@code sessionTtl}, jetcd's lease TTL), in seconds. */
    static final int SESSION_TTL_SECONDS = 6;

    static final String FLOOR = "floor: etcd raw Txn put-if-absent bound to a lease + DeleteRange (jetcd KV; 2 round trips)";
    static final String DRIVER = "diagnostic: distlock etcd driver called directly (EtcdLockDriver, no engine)";
    static final String DISTLOCK = "distlock etcd tryAcquire+release, fence read";
    static final String DIRECTORY_RANGE = "diagnostic: etcd Range of the distlock row's lock directory, first key by create"
            + " revision (the read in its acquire's Txn)";
    static final String JETCD = "jetcd 0.8 Lock lock+unlock (one kept-alive lease)";
    static final String CONTENDED_DISTLOCK = "contended, 4 clients: distlock etcd";
    static final String CONTENDED_JETCD = "contended, 4 clients: jetcd 0.8 Lock";
    static final String SEMAPHORE = "distlock etcd semaphore (" + DistlockHoldUncontended.PERMITS + " permits) tryAcquire+release";
    static final String READ_LOCK = "distlock etcd read lock tryAcquire+release";

    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final String PREFIX = "/distlock-bench";

    /**
     * The contended rows' shortest slice. etcd (3.4) delivers an event to a watch that starts at a
     * revision it has already reached only at its next catch-up pass over such watches, every
     * 100 ms; a waiter whose watch was opened just before its predecessor's deletion is then woken
     * up to 100 ms late — both libraries' waiters meet it (measured: p50 of a few ms, p99 near
     * 100 ms). A 100 ms slice would end during most of those hand-offs and keep the short ones.
     */
    static final Duration CONTENDED_MIN_SLICE = Duration.ofMillis(500);

    private final EtcdCluster etcd;
    private final String endpoint;

    private EtcdPeers(EtcdCluster etcd) {
        this.etcd = etcd;
        this.endpoint = etcd.memberEndpoints().get(0);
    }

    /** Starts the member. */
    static EtcdPeers start() {
        return new EtcdPeers(EtcdCluster.single());
    }

    /** @return the member's own client address, {@code 127.0.0.1:port} */
    String endpoint() {
        return endpoint;
    }

    /** @return distlock's URI for the member, with {@link #SESSION_TTL_SECONDS} */
    String uri() {
        return "etcd://" + endpoint + PREFIX + "?sessionTtl=" + SESSION_TTL_SECONDS;
    }

    /**
     * @return the member's version (its {@code /version}) and how it runs, e.g.
     *         {@code etcd 3.4.23, one member in its own process, WAL fsync on, 127.0.0.1}
     */
    String environment() {
        String version = "?";
        try {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://" + endpoint + "/version"))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            Matcher server = Pattern.compile("\"etcdserver\":\"([^\"]+)\"").matcher(answer.body());
            if (server.find()) {
                version = server.group(1);
            }
        } catch (IOException e) {
            // the version stays unknown
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "etcd " + version + " (one member in its own process, WAL fsync on) on 127.0.0.1";
    }

    /**
     * Adds every etcd row, uncontended then contended, each metered on the member; the semaphore and
     * read-lock rows (no peer: jetcd has neither) where the backend declares them.
     *
     * @param absent told of the semaphore and read-lock rows left out, and why
     */
    void rows(List<Scenario> into, Consumer<String> absent) throws Exception {
        into.add(metered(new Floor(endpoint)));
        into.add(metered(new DriverOnly(uri())));
        into.add(metered(new Distlock(uri())));
        into.add(metered(new DirectoryRange(endpoint, PREFIX, Distlock.LOCK_NAME)));
        into.add(metered(new JetcdLock(endpoint)));
        DistlockHoldUncontended.connect(Hold.PERMIT, SEMAPHORE, uri(), "etcd-semaphore-uncontended", absent)
                .ifPresent(row -> into.add(metered(row)));
        DistlockHoldUncontended.connect(Hold.READ, READ_LOCK, uri(), "etcd-rw-uncontended", absent)
                .ifPresent(row -> into.add(metered(row)));
        List<Contended.Contender> distlock = new ArrayList<>();
        List<Contended.Contender> jetcd = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            distlock.add(Contenders.distlock(uri(), "etcd-contended"));
            jetcd.add(Contenders.jetcd(endpoint, "jetcd-contended"));
        }
        into.add(metered(new Contended(CONTENDED_DISTLOCK, distlock, CONTENDED_MIN_SLICE)));
        into.add(metered(new Contended(CONTENDED_JETCD, jetcd, CONTENDED_MIN_SLICE)));
    }

    private Scenario metered(Scenario row) {
        return new EtcdMetered(row, endpoint);
    }

    @Override
    public void close() {
        etcd.close();
    }

    @Override
    public String toString() {
        return "etcd at " + endpoint;
    }

    /**
     * The floor: {@code Txn(If createRevision(key) = 0, Then put(key, lease))}, then
     * {@code DeleteRange(key)} — two round trips and two WAL fsyncs, the least a lock that is
     * taken by a write and given back by a delete can cost. The key is fixed and the value empty:
     * the floor pays for nothing it does not send.
     */
    static final class Floor extends TwoStepScenario {
        private final JetcdSession session;
        private final KV kv;
        private final ByteSequence key = JetcdSession.bytes("/bench-floor/lock");
        private final PutOption withLease;
        private final Cmp absent = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0));

        Floor(String endpoint) throws Exception {
            super(FLOOR, "Txn", "DeleteRange");
            this.session = JetcdSession.open(endpoint);
            this.kv = session.client().getKVClient();
            this.withLease = PutOption.builder().withLeaseId(session.leaseId()).build();
        }

        @Override
        Object first() throws Exception {
            if (!kv.txn().If(absent).Then(Op.put(key, ByteSequence.EMPTY, withLease)).commit().get(10, TimeUnit.SECONDS).isSucceeded()) {
                throw new IllegalStateException(key + " was held by someone else");
            }
            return key;
        }

        @Override
        void second(Object held) throws Exception {
            if (kv.delete(key).get(10, TimeUnit.SECONDS).getDeleted() != 1) {
                throw new IllegalStateException(key + " was gone before its delete");
            }
        }

        @Override
        public void close() {
            session.close();
        }
    }

    /** jetcd's {@code Lock} client: {@code lock(name, lease)}, then {@code unlock(key)}, on one kept-alive lease. */
    static final class JetcdLock extends TwoStepScenario {
        private final JetcdSession session;
        private final Lock lock;
        private final ByteSequence name = JetcdSession.bytes("jetcd-uncontended");

        JetcdLock(String endpoint) throws Exception {
            super(JETCD, "lock", "unlock");
            this.session = JetcdSession.open(endpoint);
            this.lock = session.client().getLockClient();
        }

        @Override
        Object first() throws Exception {
            LockResponse granted = lock.lock(name, session.leaseId()).get(10, TimeUnit.SECONDS);
            return granted.getKey();
        }

        @Override
        void second(Object key) throws Exception {
            lock.unlock((ByteSequence) key).get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            session.close();
        }
    }

    /** distlock's {@code etcd://} through the public API: {@code tryAcquire(lease)} and the fence, then {@code release()}. */
    static final class Distlock extends TwoStepScenario {
        static final String LOCK_NAME = "etcd-uncontended";

        private final LockClient client;
        private final DistributedLock lock;
        private long fenceSum;
        private long acquires;

        Distlock(String uri) {
            super(DISTLOCK, "tryAcquire", "release");
            this.client = Locks.connect(uri);
            this.lock = client.lock(LOCK_NAME);
        }

        @Override
        Object first() {
            Lease lease = lock.tryAcquire(LEASE).orElseThrow(() -> new IllegalStateException(lock + " was busy"));
            fenceSum += lease.fencingToken().orElseThrow();
            acquires++;
            return lease;
        }

        /**
         * Each acquire writes a key of its own (named by its owner token) and the release deletes
         * it: until etcd compacts (the fixture never does, nor does etcd 3.4 by default) each stays
         * in the member's index as a deleted key under the lock's directory.
         */
        @Override
        public Measurement result() {
            Measurement m = super.result();
            Map<String, Double> extras = new LinkedHashMap<>(m.extras());
            extras.put("acquires since the member started (deleted keys in the directory)", (double) acquires);
            return new Measurement(m.name(), m.opsPerSec(), m.p50(), m.p99(), m.p999(), m.count(), extras);
        }

        @Override
        void second(Object lease) {
            ((Lease) lease).release();
        }

        @Override
        public void close() {
            client.close();
        }

        @Override
        public String toString() {
            return name() + " (fence sum " + fenceSum + ")";
        }
    }

    /**
     * A diagnostic: the read of the distlock row's acquire on its own — a {@code Range} of the
     * lock's directory (a prefix), keys only, sorted by create revision, limit 1 — read-only, no
     * fsync. etcd 3.4 visits every key of the prefix in its index to answer, deleted ones included
     * until a compaction, so its cost follows the distlock row's acquires so far. The directory is
     * where the etcd backend keeps a lock's requests ({@code <prefix>/locks/<name as a path
     * segment>/}): an internal layout, read here for the diagnosis only.
     */
    static final class DirectoryRange extends LoopScenario {
        private final Client client;
        private final KV kv;
        private final ByteSequence directory;
        private final GetOption firstByCreateRevision = GetOption.builder().isPrefix(true).withKeysOnly(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();

        DirectoryRange(String endpoint, String prefix, String lockName) {
            super(DIRECTORY_RANGE, false);
            this.client = Client.builder().endpoints("http://" + endpoint).build();
            this.kv = client.getKVClient();
            this.directory = JetcdSession.bytes(prefix + "/locks/" + LockNames.pathSegment(lockName) + "/");
        }

        @Override
        void op() throws Exception {
            kv.get(directory, firstByCreateRevision).get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * The etcd backend's driver called directly: the same transaction and delete as the distlock row,
     * without the engine (no SecureRandom owner token — a counter of the same length instead —, no
     * lease object, no keeper scheduling, no validity arithmetic).
     */
    static final class DriverOnly extends TwoStepScenario {
        private final LockDriver driver;
        private long token;

        DriverOnly(String uri) {
            super(DRIVER, "tryAcquire", "release");
            this.driver = etcdBackend().connect(URI.create(uri), LockOptions.defaults(),
                    io.distlock.tck.fixtures.NoEngine.INSTANCE); // as the Redis driver-only row: no engine here either
        }

        @Override
        Object first() {
            // 22 characters, as long as the engine's owner tokens (128 bits, URL-safe Base64)
            Attempt attempt = driver.tryAcquire(new LockRequest("etcd-driver-only", String.format(Locale.ROOT, "%022d", ++token), LEASE));
            if (!attempt.isGranted()) {
                throw new IllegalStateException("etcd-driver-only was busy");
            }
            return attempt.grant();
        }

        @Override
        void second(Object grant) {
            if (!driver.release((Grant) grant)) {
                throw new IllegalStateException("etcd-driver-only was not released");
            }
        }

        @Override
        public void close() {
            driver.close();
        }
    }

    /** @return the installed {@code etcd://} backend */
    static LockBackend etcdBackend() {
        return Peers.backend("etcd");
    }
}
