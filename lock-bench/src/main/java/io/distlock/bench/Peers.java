package io.distlock.bench;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Locks;
import io.distlock.bench.DistlockHoldUncontended.Hold;
import io.distlock.redis.support.LockScripts;
import io.distlock.spi.LockBackend;
import io.distlock.tck.fixtures.EtcdCluster;
import io.distlock.tck.fixtures.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.StringJoiner;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Rows of the backends that arrive as plugin modules, each beside its peer on servers of its own.
 * A backend is measured only if its scheme is installed (found by {@link Locks#backends()} on the
 * bench's classpath); lock-bench compiles without it, so a module still in progress never breaks
 * the bench, and adding a backend's row is a runtime dependency plus a method here. Likewise a
 * semaphore or read-lock row exists only where its backend declares the feature
 * ({@link DistlockHoldUncontended#connect}).
 */
final class Peers implements AutoCloseable {

    static final String REDLOCK = "Redlock N=5 tryAcquire+release (no fence)";
    static final String REDIS_WAIT = "distlock Redis + WAIT (1 replica) tryAcquire+release";
    static final String REDIS_WAIT_SCRIPTS = "diagnostic: distlock's scripts + WAIT 1 pipelined on one raw Jedis connection (primary with 1 replica)";
    static final String REDIS_WAIT_SINGLE = "distlock single Redis tryAcquire+release on that primary (no WAIT)";
    static final String TAIR = "distlock Tair (CAS/CAD, no Lua) tryAcquire+release";
    static final String CLUSTER = "distlock Redis Cluster (3+3 nodes) tryAcquire+release";
    static final String CLUSTER_FLOOR = "floor: raw SET NX PX + EVALSHA compare-and-delete on the slot's primary (Redis Cluster)";
    static final String CLUSTER_SCRIPTS = "diagnostic: distlock's sharded scripts on one raw Jedis connection to the slot's primary (Redis Cluster)";
    static final String CLUSTER_DRIVER = "diagnostic: Redis Cluster driver called directly (slot routing, pools, scripts; no engine)";
    static final String CLUSTER_REDISSON = "Redisson 4 RLock lock+unlock, cluster mode (3+3 nodes)";
    static final String CLUSTER_CONTENDED = "contended, 4 clients: distlock Redis Cluster (sharded notification)";
    static final String TAIR_SINGLE = "distlock single Redis tryAcquire+release on the Tair (CAS/CAD) server";

    private final List<AutoCloseable> servers = new ArrayList<>();
    private final List<RedisServer> redisNodes = new ArrayList<>();
    /** Each backend's rows with the servers they run on ({@link #group}), for {@link #retireUnselected}. */
    private final List<Group> groups = new ArrayList<>();
    private EtcdPeers etcd;
    private HazelcastPeers hazelcast;
    private EtcdCluster etcdScale;
    /** Backend → its URI on the bench's servers, for the footprint rows ({@link Footprint}), in row order. */
    private final Map<String, String> footprints = new LinkedHashMap<>();

    /** @return each backend the bench has servers for, with its URI on them (the footprint rows) */
    Map<String, String> footprints() {
        return footprints;
    }

    /** Adds a backend to the footprint rows. */
    void footprint(String backend, String uri) {
        footprints.put(backend, uri);
    }

    /** @return the Redis servers started here (their CPU is counted with the rows that use them) */
    List<RedisServer> redisServers() {
        return List.copyOf(redisNodes);
    }

    /** A backend's part of the bench: the rows it added, the servers it started, its footprint rows. */
    private record Group(String backend, List<Scenario> rows, List<AutoCloseable> servers, List<RedisServer> redisNodes, List<String> footprints) {
    }

    /** Builds one backend's rows ({@link #redlock}, {@link #etcd}, ...), as {@link #group} calls it. */
    @FunctionalInterface
    interface Rows {
        boolean add() throws Exception;
    }

    /**
     * Runs {@code rows}, one of this class's methods that adds a backend's rows to {@code into}, and
     * notes what it added and started, so that {@link #retireUnselected} can stop its servers when
     * {@code --only} keeps none of its rows.
     *
     * @param backend what the rows measure, for the log
     * @return what {@code rows} returned
     */
    boolean group(String backend, List<Scenario> into, Rows rows) throws Exception {
        int scenarioCount = into.size();
        int serverCount = servers.size();
        int nodeCount = redisNodes.size();
        List<String> footprintsBefore = List.copyOf(footprints.keySet());
        boolean added = rows.add();
        groups.add(new Group(backend, List.copyOf(into.subList(scenarioCount, into.size())),
                List.copyOf(servers.subList(serverCount, servers.size())),
                List.copyOf(redisNodes.subList(nodeCount, redisNodes.size())),
                footprints.keySet().stream().filter(f -> !footprintsBefore.contains(f)).toList()));
        return added;
    }

    /**
     * Stops the servers of every {@linkplain #group group} none of whose rows {@code --only} kept:
     * idle servers still take the 2 cores' time (a Hazelcast member's heartbeats, a cluster's gossip,
     * an in-process ZooKeeper), which is noise in the rows measured. A group's floor rows, which
     * {@code --only} keeps whatever it says, go with it: a floor is there to compare its backend's
     * rows.
     *
     * @param into the rows left after {@code --only}; the retired groups' floors are closed and removed
     * @param kept whether {@code --only} keeps a backend's {@linkplain #footprints() footprint} row
     * @param told told of each group retired
     */
    void retireUnselected(List<Scenario> into, Predicate<String> kept, Consumer<String> told) {
        for (Group group : List.copyOf(groups)) {
            boolean wanted = group.rows().stream().anyMatch(r -> !r.name().startsWith("floor:") && into.contains(r))
                    || group.footprints().stream().anyMatch(kept);
            if (wanted || group.servers().isEmpty()) {
                continue;
            }
            for (Scenario row : group.rows()) {
                if (into.remove(row)) {
                    row.close();
                }
            }
            for (AutoCloseable server : group.servers()) {
                try {
                    server.close();
                } catch (Exception e) {
                    told.accept("closing " + server + " failed: " + e);
                }
            }
            servers.removeAll(group.servers());
            if (etcd != null && group.servers().contains(etcd)) {
                etcd = null;
            }
            if (hazelcast != null && group.servers().contains(hazelcast)) {
                hazelcast = null;
            }
            redisNodes.removeAll(group.redisNodes());
            group.footprints().forEach(footprints::remove);
            groups.remove(group);
            told.accept("stopped the " + group.backend() + " rows' servers: --only keeps none of those rows");
        }
    }

    static boolean installed(String scheme) {
        return Locks.backends().stream().map(BackendDescriptor::scheme).anyMatch(scheme::equals);
    }

    /**
     * The installed backend of {@code scheme}, found as the engine finds it ({@link ServiceLoader}: the
     * bench has the backends on its runtime path only), for the rows that call a driver directly. Not
     * the bench's own counting wrappers, which ask this method for their delegates.
     *
     * @throws IllegalStateException if no backend of {@code scheme} is installed
     */
    static LockBackend backend(String scheme) {
        for (ServiceLoader.Provider<LockBackend> provider : ServiceLoader.load(LockBackend.class, Peers.class.getClassLoader())
                .stream().filter(p -> p.type() != CountingEtcdBackend.class && p.type() != CountingRedisBackend.class).toList()) {
            LockBackend backend = provider.get();
            if (backend.descriptor().scheme().equals(scheme)) {
                return backend;
            }
        }
        throw new IllegalStateException(scheme + ":// is not installed (add its module to lock-bench's dependencies)");
    }

    /**
     * @return whether the installed backend of {@code scheme} declares {@code feature} (false if none is installed)
     */
    static boolean declares(String scheme, Feature feature) {
        return Locks.backends().stream().anyMatch(d -> d.scheme().equals(scheme) && d.has(feature));
    }

    /**
     * Redlock over five independent {@code redis-server}s of its own, set against the single-node
     * rows (the target: at most 1.5× single node).
     *
     * @return false if {@code redlock://} is not installed
     */
    boolean redlock(List<Scenario> into) {
        if (!installed("redlock")) {
            return false;
        }
        StringJoiner nodes = new StringJoiner(",", "redlock://", "");
        List<String> endpoints = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RedisServer node = RedisServer.start();
            servers.add(node);
            redisNodes.add(node);
            nodes.add(node.endpoint());
            endpoints.add(node.endpoint());
        }
        into.add(new RawFanOutPair(endpoints));
        // A generous per-node timeout (default 50 ms): this measures latency, not how a loaded
        // 2-core machine's stalls count against the quorum.
        into.add(new DistlockUncontended(REDLOCK, nodes + "?nodeTimeout=1000", "redlock-uncontended", false));
        footprint("Redlock, 5 nodes", nodes + "?nodeTimeout=1000");
        return true;
    }

    /**
     * distlock's Redis + {@code WAIT} backend on a primary with one replica of its own (two
     * {@code redis-server} processes, replicating over loopback), beside the floor written by hand
     * ({@link Floor.PairWithWait}), the same with its {@code SET} and {@code WAIT} pipelined
     * ({@link Floor.PairWithWait#PIPELINED_LABEL}), and single Redis on the same primary (issue 12's target:
     * at most 1.10× the first; issue 28's: at most 1.05× the second).
     *
     * @return false if {@code redis-wait://} is not installed
     */
    boolean redisWait(List<Scenario> into) {
        if (!installed("redis-wait")) {
            return false;
        }
        RedisServer primary = RedisServer.start();
        RedisServer replica = RedisServer.start();
        for (RedisServer server : List.of(primary, replica)) {
            servers.add(server);
            redisNodes.add(server);
        }
        replica.call("REPLICAOF", primary.host(), Integer.toString(primary.port()));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up")) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the bench's replica did not sync with its primary within 30 s");
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        into.add(new Floor.PairWithWait(primary.host(), primary.port(), false));
        into.add(new Floor.PairWithWait(primary.host(), primary.port(), true));
        into.add(new ScriptsOnly(REDIS_WAIT_SCRIPTS, primary.host(), primary.port(), false, 1));
        into.add(new DistlockUncontended(REDIS_WAIT_SINGLE, primary.uri(), "redis-wait-single-uncontended", false));
        into.add(new DistlockUncontended(REDIS_WAIT, "redis-wait://" + primary.endpoint() + "?replicas=1&waitTimeout=1000",
                "redis-wait-uncontended", false));
        footprint("Redis + WAIT", "redis-wait://" + primary.endpoint() + "?replicas=1&waitTimeout=1000");
        return true;
    }

    /**
     * distlock's Redis Cluster backend on a cluster of its own (3 primaries with a replica each,
     * {@code redis-server} processes), beside the raw pair sent straight to the primary of its key's
     * slot and Redisson's {@code RLock} in cluster mode on the same cluster (the targets:
     * p50 at most 1.05× that floor and 0.8× Redisson), distlock's own scripts sent the same way (what
     * the scripts cost on a replicated primary, without the client), its driver without the engine
     * (what slot routing and the per-node pools add to the scripts), and a contended row whose
     * waiters are woken by sharded pub/sub.
     *
     * @return false if {@code redis-cluster://} is not installed
     */
    boolean redisCluster(List<Scenario> into) {
        if (!installed("redis-cluster")) {
            return false;
        }
        io.distlock.tck.fixtures.RedisCluster cluster = io.distlock.tck.fixtures.RedisCluster.start(3, 1);
        servers.add(cluster);
        for (int node = 0; node < cluster.size(); node++) {
            redisNodes.add(cluster.node(node));
        }
        // Every uncontended row on one primary: the floor's, so that a ratio compares the same
        // processes (a primary and its replica), not the luck of which shares a core with the bench.
        int primary = cluster.primaryOf(cluster.slot("floor:pair"));
        RedisServer floorPrimary = cluster.node(primary);
        into.add(new Floor.Pair(CLUSTER_FLOOR, floorPrimary.host(), floorPrimary.port()));
        if (cluster.primaryOf(cluster.slot(LockScripts.lockKey(ScriptsOnly.NAME))) != primary) {
            throw new IllegalStateException("the scripts row's lock '" + ScriptsOnly.NAME + "' is not on the floor's primary");
        }
        into.add(new ScriptsOnly(CLUSTER_SCRIPTS, floorPrimary.host(), floorPrimary.port(), true));
        String uri = "redis-cluster://" + String.join(",", cluster.seedEndpoints());
        into.add(DriverOnly.of(CLUSTER_DRIVER, uri, onPrimary(cluster, primary, "cluster-driver-only", LockScripts::lockKey)));
        into.add(new DistlockUncontended(CLUSTER, uri, onPrimary(cluster, primary, "cluster-uncontended", LockScripts::lockKey), false));
        footprint("Redis Cluster, 3+3 nodes", uri);
        into.add(RedissonUncontended.rLockOnCluster(CLUSTER_REDISSON, cluster.nodeEndpoints(),
                onPrimary(cluster, primary, "redisson-cluster-uncontended", name -> name)));
        into.add(new Contended(CLUSTER_CONTENDED, List.of(Contenders.distlock(uri, "cluster-contended"),
                Contenders.distlock(uri, "cluster-contended"), Contenders.distlock(uri, "cluster-contended"),
                Contenders.distlock(uri, "cluster-contended"))));
        return true;
    }

    /**
     * @param cluster the cluster
     * @param primary the node that must serve the lock
     * @param base    the name wanted
     * @param keyOf   the key a name locks (distlock's {@code distlock:{name}}, Redisson's the name)
     * @return {@code base}, or the first of {@code base-1}, {@code base-2}, ... whose key is on {@code primary}
     */
    private static String onPrimary(io.distlock.tck.fixtures.RedisCluster cluster, int primary, String base,
                                    java.util.function.UnaryOperator<String> keyOf) {
        for (int i = 0; ; i++) {
            String name = i == 0 ? base : base + "-" + i;
            if (cluster.primaryOf(cluster.slot(keyOf.apply(name))) == primary) {
                return name;
            }
        }
    }

    /**
     * distlock's Tair backend on a {@code redis-server} of its own with the project's CAS/CAD module
     * loaded ({@code TairModule}, built on first use), beside single Redis on the same server (the
     * issue's target: Tair's p50 at most 1.0× single Redis's; both rows report the server's command
     * time per operation from {@code INFO commandstats}).
     *
     * @return false if {@code tair://} is not installed
     */
    boolean tair(List<Scenario> into) {
        if (!installed("tair")) {
            return false;
        }
        RedisServer server = RedisServer.builder().tairModule().start();
        servers.add(server);
        redisNodes.add(server);
        into.add(new DistlockUncontended(TAIR_SINGLE, server.uri(), "tair-single-uncontended", false));
        into.add(new DistlockUncontended(TAIR, "tair://" + server.endpoint(), "tair-uncontended", false));
        footprint("Tair", "tair://" + server.endpoint());
        return true;
    }

    /**
     * distlock's ZooKeeper backend and Curator's {@code InterProcessMutex}, twice: on one ZooKeeper
     * server in the bench's JVM, and on one in a JVM of its own (the target: distlock at
     * most 0.9× Curator on both), and the floor ({@link ZooKeeperPeers#floor}: ZooKeeper's own
     * client, the fewest requests a lock needs). On each, where the backend declares them, distlock's semaphore
     * and read lock beside Curator's {@code InterProcessSemaphoreV2} and
     * {@code InterProcessReadWriteLock} (the same target).
     *
     * @param absent told of the semaphore and read-lock rows left out, and why
     * @return false if {@code zookeeper://} is not installed
     */
    boolean zookeeper(List<Scenario> into, Consumer<String> absent) throws Exception {
        if (!installed("zookeeper")) {
            return false;
        }
        for (ZooKeeperPeers zk : List.of(ZooKeeperPeers.inProcess(), ZooKeeperPeers.ownProcess())) {
            servers.add(zk);
            into.add(new DistlockUncontended(zk.row(ZooKeeperPeers.DISTLOCK), zk.uri(), "zk-uncontended", true));
            if (!zk.row("").isEmpty()) { // the server in a JVM of its own, as users run it
                footprint("ZooKeeper", zk.uri());
            }
            into.add(zk.curatorMutex());
            into.add(zk.floor());
            into.add(zk.distlockRequests());
            Optional<DistlockHoldUncontended> semaphore = DistlockHoldUncontended.connect(Hold.PERMIT,
                    zk.row(ZooKeeperPeers.DISTLOCK_SEMAPHORE), zk.uri(), "zk-semaphore-uncontended", absent,
                    zk.row(ZooKeeperPeers.CURATOR_SEMAPHORE));
            if (semaphore.isPresent()) {
                into.add(semaphore.get());
                into.add(zk.curatorSemaphore());
            }
            Optional<DistlockHoldUncontended> read = DistlockHoldUncontended.connect(Hold.READ,
                    zk.row(ZooKeeperPeers.DISTLOCK_READ), zk.uri(), "zk-rw-uncontended", absent,
                    zk.row(ZooKeeperPeers.CURATOR_READ));
            if (read.isPresent()) {
                into.add(read.get());
                into.add(zk.curatorReadLock());
            }
        }
        return true;
    }

    /**
     * distlock's etcd backend beside jetcd's {@code Lock} client and the raw floor, uncontended and
     * with 4 clients, on one etcd member in its own process ({@link EtcdPeers}; the target:
     * distlock's p50 at most 0.8× jetcd's); and distlock's semaphore and read lock where the
     * backend declares them (reported: jetcd has neither).
     *
     * @param absent told of the semaphore and read-lock rows left out, and why
     * @return false if {@code etcd://} is not installed
     */
    boolean etcd(List<Scenario> into, Consumer<String> absent) throws Exception {
        if (!installed("etcd")) {
            return false;
        }
        etcd = EtcdPeers.start();
        servers.add(etcd);
        etcd.rows(into, absent);
        footprint("etcd", etcd.uri());
        return true;
    }

    /**
     * Starts the Hazelcast members in the background ({@link HazelcastPeers}): called before the
     * other servers start, so that the members come up meanwhile; {@link #hazelcast} waits for them.
     *
     * @param absent told why there will be no Hazelcast rows, if there will be none
     */
    void startHazelcast(Consumer<String> absent) {
        if (!installed("hazelcast")) {
            absent.accept("hazelcast:// is not installed: no Hazelcast rows (add lock-hazelcast to lock-bench's dependencies)");
            return;
        }
        hazelcast = HazelcastPeers.start(absent);
    }

    /**
     * distlock's {@code hazelcast://} and {@code hazelcast-map://} beside Hazelcast's own
     * {@code FencedLock} and {@code IMap} lock on the same three members, uncontended and, on CP,
     * with 4 clients (the target: distlock at most 1.1× each peer's p50).
     *
     * @return false if {@link #startHazelcast} started no members
     */
    boolean hazelcast(List<Scenario> into) {
        if (hazelcast == null) {
            return false;
        }
        // Listed here, not when they were started: the group this call runs in (see group) holds them.
        servers.add(hazelcast);
        hazelcast.rows(into);
        footprint(HazelcastPeers.FOOTPRINT_CP, hazelcast.uri("hazelcast"));
        footprint(HazelcastPeers.FOOTPRINT_MAP, hazelcast.uri("hazelcast-map"));
        return true;
    }

    /** @return the Hazelcast members' and client's versions, for the environment line; empty without Hazelcast rows (or once stopped) */
    String hazelcastEnvironment() {
        return hazelcast == null ? "" : hazelcast.environment();
    }

    /** @return the etcd member's version and setup, for the environment line; empty without etcd rows (or once stopped) */
    String etcdEnvironment() {
        return etcd == null ? "" : etcd.environment();
    }

    /**
     * The etcd scale row ({@link EtcdRenewalScale}) on an etcd member of its own, started at the
     * first call and kept for the next runs (each run's client revokes its session at the end, and
     * every key with it).
     */
    Measurement etcdScale(int leases, Duration leaseTime) throws Exception {
        if (etcdScale == null) {
            etcdScale = EtcdCluster.single();
            servers.add(etcdScale);
        }
        return new EtcdRenewalScale(leases, leaseTime).run(etcdScale.memberEndpoints().get(0));
    }

    @Override
    public void close() {
        if (hazelcast != null && !servers.contains(hazelcast)) { // started, and no row was built on them
            servers.add(hazelcast);
        }
        for (AutoCloseable server : servers) {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("closing " + server + " failed: " + e);
            }
        }
    }
}
