package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.tck.NodeFaults;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;
import org.awaitility.core.ConditionTimeoutException;

import java.io.Closeable;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * Real ZooKeeper servers for the tests, every one on free loopback ports: a single in-process
 * server (curator-test), or a 3-node ensemble of child JVMs ({@link ZkMember}), each behind a
 * {@link io.distlock.tck.fixtures.FaultProxy} on its client port, whose start is followed by a wait
 * for quorum (a first write that succeeds). Fault hooks: stop the leader, restart a member without
 * its data, slow or partition one member's client traffic, freeze a member ({@code SIGSTOP}),
 * expire a client's session on the server.
 */
final class ZkServers implements Closeable {

    /**
     * Ticks of 500 ms: sessions may last 1 s .. 10 s, and a follower may lag 2.5 s (syncLimit, 5
     * ticks) before the leader drops it. Shorter ticks make a busy 2-core machine lose its quorum
     * (and every client its connection) now and then, with no fault injected.
     */
    static final int TICK_MILLIS = 500;

    /** The four-letter words the servers answer: status, and the watch tables. */
    static final String FOUR_LETTER_WORDS = "srvr,stat,ruok,wchs,wchc";

    static {
        System.setProperty("zookeeper.admin.enableServer", "false");
        System.setProperty("zookeeper.4lw.commands.whitelist", FOUR_LETTER_WORDS);
        System.setProperty("zookeeper.jmx.log4j.disable", "true");
    }

    /**
     * The session timeout of the TCK's clients: a client behind a partitioned or frozen member
     * notices after its read timeout (2/3 of it, 2.7 s) and reconnects elsewhere after a random
     * back-off of up to 1 s, before the ensemble expires its session (4 s, rounded up to a tick).
     */
    static final int SESSION_TIMEOUT_MILLIS = 4_000;

    /**
     * How long such a client takes to move to a healthy member (the TCK's {@code NodeFaults.failover()}):
     * 2.7 s read timeout + up to 1 s back-off + a round trip, rounded up to the session timeout.
     */
    static final Duration FAILOVER = Duration.ofMillis(SESSION_TIMEOUT_MILLIS);

    private final TestingServer single;
    private final InstanceSpec singleSpec;
    private final List<ZkMember> members;
    private final Path root;
    /** The member the most recent stopLeader() stopped. */
    private volatile ZkMember lastStopped;
    /** The client opened last ({@link #opened}): the one a slow, partitioned or paused member should be under. */
    private volatile LockClient newest;

    private ZkServers(TestingServer single, InstanceSpec singleSpec, List<ZkMember> members, Path root) {
        this.single = single;
        this.singleSpec = singleSpec;
        this.members = members;
        this.root = root;
    }

    /**
     * The data directory goes under {@code root}: an embedded server writes its configuration file
     * next to its data directory (a {@code zookeeper.configuration*.properties}), which would
     * otherwise be left in the system's temporary directory at every start.
     */
    private static InstanceSpec spec(int serverId, Path root) throws IOException {
        return new InstanceSpec(Files.createDirectories(root.resolve("data")).toFile(), FreePorts.find(), FreePorts.find(),
                FreePorts.find(), true, serverId, TICK_MILLIS, 100, Map.of(), FreePorts.LOOPBACK);
    }

    static ZkServers single() {
        try {
            Path root = Files.createTempDirectory("distlock-zk-");
            InstanceSpec spec = spec(1, root);
            TestingServer server = new TestingServer(spec, true);
            ZkServers servers = new ZkServers(server, spec, List.of(), root);
            servers.awaitWritable(Duration.ofSeconds(30));
            return servers;
        } catch (Exception e) {
            throw new IllegalStateException("could not start a ZooKeeper server", e);
        }
    }

    static ZkServers ensemble() {
        ZkServers servers = null;
        try {
            Path root = Files.createTempDirectory("distlock-zk-");
            servers = new ZkServers(null, null, ZkMember.configure(root, 3, TICK_MILLIS), root);
            ZkServers started = servers;
            // A test JVM that dies without close() must not leave servers behind.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> started.members.forEach(ZkMember::close)));
            servers.members.forEach(ZkMember::start);
            servers.awaitWritable(Duration.ofSeconds(90)); // the members elect a leader first
            servers.awaitAllServing(Duration.ofSeconds(60));
            return servers;
        } catch (Exception e) {
            if (servers != null) {
                servers.close();
            }
            throw new IllegalStateException("could not start a 3-node ZooKeeper ensemble", e);
        }
    }

    /** @return the connect string clients use: the single server, or the members' proxies */
    String connectString() {
        return single != null ? single.getConnectString()
                : members.stream().map(member -> member.proxy().endpoint()).collect(Collectors.joining(","));
    }

    /** @return {@code host:port} of every server's own client port (not the shared proxies'), in member order */
    List<String> serverEndpoints() {
        return serverPorts().stream().map(port -> FreePorts.LOOPBACK + ":" + port).toList();
    }

    /** @return a fault proxy of its own in front of the first server's client port: one client's link */
    FaultProxy linkToServer() {
        return FaultProxy.start(FreePorts.LOOPBACK, serverPorts().get(0));
    }

    /** The servers' own client ports (not the proxies'), for four-letter-word queries. */
    private List<Integer> serverPorts() {
        return single != null ? List.of(singleSpec.getPort()) : members.stream().map(member -> member.clientPort).toList();
    }

    private static String srvr(int port) {
        try {
            return FourLetterWordMain.send4LetterWord(FreePorts.LOOPBACK, port, "srvr", false, 1_000);
        } catch (Exception e) {
            return ""; // stopped, frozen or not serving
        }
    }

    /** The watches the servers hold for every session together (4lw {@code wchs}: "Total watches:N"). */
    int serverWatches() {
        int total = 0;
        for (int port : serverPorts()) {
            try {
                String wchs = FourLetterWordMain.send4LetterWord(FreePorts.LOOPBACK, port, "wchs", false, 1_000);
                Matcher matcher = Pattern.compile("Total watches:(\\d+)").matcher(wchs);
                if (!matcher.find()) {
                    throw new IllegalStateException("unexpected wchs answer: " + wchs);
                }
                total += Integer.parseInt(matcher.group(1));
            } catch (IOException | X509Exception.SSLContextException e) {
                throw new IllegalStateException("wchs on port " + port + " failed", e);
            }
        }
        return total;
    }

    String uri() {
        return uri("");
    }

    String uri(String suffix) {
        return "zookeeper://" + connectString() + suffix;
    }

    /** Waits until a write succeeds: the server (or a quorum) serves. */
    void awaitWritable(Duration atMost) {
        Exception[] last = {null};
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> {
                try {
                    ZooKeeper zk = connect(connectString(), Duration.ofSeconds(2));
                    try {
                        String path = zk.create("/quorum-check-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
                        zk.delete(path, -1);
                        return true;
                    } finally {
                        zk.close();
                    }
                } catch (IOException | KeeperException e) {
                    last[0] = e; // still electing, or not yet listening
                    return false;
                }
            });
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("ZooKeeper at " + connectString() + " did not take a write within " + atMost
                    + membersLogs(), last[0]);
        }
    }

    /** The members' latest log lines, for a failure message (nothing for a single server, which logs in-process). */
    private String membersLogs() {
        return members.stream().map(member -> "\n--- " + member + ", last lines of its log:\n" + member.logTail(30))
                .collect(Collectors.joining());
    }

    /** A plain ZooKeeper client, connected. */
    static ZooKeeper connect(String connectString, Duration timeout) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 5_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IOException("no connection to " + connectString + " within " + timeout);
        }
        return zk;
    }

    /** The ensemble member that is leading now. */
    ZkMember leader() {
        for (ZkMember member : members) {
            if (srvr(member.clientPort).contains("Mode: leader")) {
                return member;
            }
        }
        throw new IllegalStateException("no leader among " + members);
    }

    /** The client connections all members report now (4lw {@code srvr}), not counting the queries'. */
    int clientConnections() {
        int total = 0;
        for (int port : serverPorts()) {
            for (String line : srvr(port).split("\n")) { // a stopped member has no connections
                if (line.startsWith("Connections:")) {
                    // minus this very query's own connection, which the server counts too
                    total += Integer.parseInt(line.substring("Connections:".length()).trim()) - 1;
                }
            }
        }
        return total;
    }

    /**
     * Waits until the members that run hold at least {@code before} client connections again: the
     * clients of a stopped member have reconnected elsewhere (and are no longer SUSPENDED). Gives
     * up quietly after {@code atMost}: a client closed meanwhile never comes back.
     */
    void awaitReconnected(int before, Duration atMost) {
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(20)).until(() -> clientConnections() >= before);
        } catch (ConditionTimeoutException e) {
            // quietly: see above
        }
    }

    /** Waits until every member reports itself leader or follower (none is still looking or syncing). */
    void awaitAllServing(Duration atMost) {
        for (int port : serverPorts()) {
            try {
                await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> {
                    String stat = srvr(port);
                    return stat.contains("Mode: leader") || stat.contains("Mode: follower") || stat.contains("Mode: standalone");
                });
            } catch (ConditionTimeoutException e) {
                throw new IllegalStateException("the server on port " + port + " is not serving after " + atMost
                        + membersLogs(), e);
            }
        }
    }

    /** Stops the current leader, the worst minority: the ensemble must elect another before it serves again. */
    NodeFaults.Fault stopLeader() {
        if (single != null) {
            throw new IllegalStateException("a single server has no leader to stop");
        }
        ZkMember leader = leader();
        lastStopped = leader;
        try {
            int connected = clientConnections();
            long start = System.nanoTime();
            leader.kill();
            // ZooKeeper serves nobody while the survivors elect a new leader (a fraction of a
            // second to a few on a busy machine), and the leader's clients are SUSPENDED until
            // they reconnect elsewhere: the fault is "one of three down", so it starts once the
            // two that are left serve writes again and have taken the leader's clients over.
            awaitWritable(Duration.ofSeconds(60));
            long elected = System.nanoTime();
            awaitReconnected(connected, Duration.ofSeconds(3));
            System.out.printf("[ZkServers] stopped leader %d: writable after %d ms, %d of %d client connections back after %d ms%n",
                    leader.id, (elected - start) / 1_000_000, clientConnections(), connected,
                    (System.nanoTime() - start) / 1_000_000);
        } catch (Exception e) {
            throw new IllegalStateException("could not stop " + leader, e);
        }
        // Healed once the old leader is back and every member serves: a client must not land on a
        // server still syncing.
        return healed("stopped (leader " + leader.id + ")", () -> {
            try {
                leader.start();
            } catch (Exception e) {
                throw new IllegalStateException("could not restart " + leader, e);
            }
        });
    }

    /**
     * Kills a member that the last {@link #stopLeader()} left running (a follower if one is), wipes
     * its snapshots and transaction logs, and starts it again: a restart without persistence. It
     * rejoins with nothing and must sync from the leader; returns when every member serves.
     */
    void restartOneWithoutPersistence() {
        ZkMember leader = leader();
        ZkMember victim = members.stream().filter(member -> member != lastStopped && member != leader).findFirst()
                .orElse(leader);
        try {
            int connected = clientConnections();
            victim.kill();
            victim.wipeData();
            victim.start();
            awaitWritable(Duration.ofSeconds(60));
            awaitAllServing(Duration.ofSeconds(60));
            awaitReconnected(connected, Duration.ofSeconds(3));
        } catch (Exception e) {
            throw new IllegalStateException("could not restart " + victim + " without its data", e);
        }
    }

    /** Notes {@code client} as the newest one: the next slow, partition or pause fault targets its member. */
    LockClient opened(LockClient client) {
        newest = client;
        return client;
    }

    /**
     * The hook the TCK's node-fault rules use. Stop: the leader (the worst minority). Slow and
     * partition: the client traffic (through its proxy) of the member the newest client
     * ({@link #opened}) is connected to, so that the fault meets it; the member keeps talking to
     * its peers. Pause ({@code SIGSTOP}): that member if it is a follower, else a follower (a
     * frozen leader stops the whole ensemble for an election: not a minority fault). Each fault
     * ends with the ensemble writable and every member serving again.
     */
    NodeFaults faults() {
        return new NodeFaults() {
            @Override
            public Set<Kind> offered() {
                return EnumSet.allOf(Kind.class);
            }

            @Override
            public Duration failover() {
                return FAILOVER;
            }

            @Override
            public Fault stopMinority() {
                return stopLeader();
            }

            @Override
            public void restartOneWithoutPersistence() {
                ZkServers.this.restartOneWithoutPersistence();
            }

            @Override
            public Fault slowMinority(Duration latency) {
                ZkMember member = faultTarget(true);
                member.proxy().latency(latency);
                return healed("slowed " + member, () -> member.proxy().heal());
            }

            @Override
            public Fault partitionMinority() {
                ZkMember member = faultTarget(true);
                member.proxy().blackhole();
                return healed("partitioned " + member, () -> member.proxy().heal());
            }

            @Override
            public Fault pauseMinority() {
                ZkMember member = faultTarget(false);
                member.pause();
                return healed("paused " + member, member::resume);
            }
        };
    }

    /**
     * The member the newest client is connected to (a follower instead, unless {@code leaderToo});
     * the leader, or the first follower, when that is unknown.
     */
    private ZkMember faultTarget(boolean leaderToo) {
        ZkMember leader = leader();
        ZkMember target = memberOf(newest);
        if (target == null || (target == leader && !leaderToo)) {
            target = leaderToo ? leader : members.stream().filter(member -> member != leader).findFirst().orElseThrow();
        }
        System.out.printf("[ZkServers] fault on member %d (%s); the newest client is on %s%n", target.id,
                target == leader ? "leader" : "follower", target == memberOf(newest) ? "it" : "another member");
        return target;
    }

    /** The member whose proxy {@code client}'s session is connected through now, if known. */
    private ZkMember memberOf(LockClient client) {
        if (client == null) {
            return null;
        }
        // ZooKeeper names its server in toString() only: "... remoteserver:host/127.0.0.1:<port> ..."
        String state = driverOf(client).zooKeeper().toString();
        int at = state.indexOf("remoteserver:");
        if (at < 0) {
            return null;
        }
        String remote = state.substring(at).split("\\s")[0];
        for (ZkMember member : members) {
            if (remote.endsWith(":" + member.proxy().port())) {
                return member;
            }
        }
        return null;
    }

    /** A fault that {@code heal} ends, after which the ensemble takes writes and every member serves again. */
    private NodeFaults.Fault healed(String what, Runnable heal) {
        long start = System.nanoTime();
        return new NodeFaults.Fault() {
            private boolean closed;

            @Override
            public synchronized void close() {
                if (closed) {
                    return;
                }
                closed = true;
                heal.run();
                try {
                    awaitWritable(Duration.ofSeconds(60));
                    awaitAllServing(Duration.ofSeconds(60)); // a resumed follower rejoins and syncs
                } catch (Exception e) {
                    throw new IllegalStateException("the ensemble did not serve again after it was " + what, e);
                }
                System.out.printf("[ZkServers] %s for %d ms; serving again%n", what, (System.nanoTime() - start) / 1_000_000);
            }
        };
    }

    /**
     * Expires the session of {@code client} on the server: a second connection takes the session
     * over with its id and password and closes it, so the server deletes its ephemeral nodes at
     * once, and the client hears SESSIONEXPIRED when it next talks to the server.
     */
    void expireSession(LockClient client) {
        expireSession(driverOf(client).zooKeeper());
    }

    /** As {@link #expireSession(LockClient)}, for the session of handle {@code zk}. */
    void expireSession(ZooKeeper zk) {
        try {
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper thief = new ZooKeeper(connectString(), 5_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            }, zk.getSessionId(), zk.getSessionPasswd());
            try {
                if (!connected.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("could not take over the session of " + zk);
                }
            } finally {
                thief.close(); // closes the session: the server deletes its ephemeral nodes
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("could not expire the session of " + zk, e);
        }
    }

    /**
     * The client's driver: the engine keeps it private, a test may look. It is found by its type
     * among the client's fields and theirs (the engine's parts hold it), so a reshuffle of those
     * parts does not break the tests that expire a client's session.
     */
    static ZkLockDriver driverOf(LockClient client) {
        try {
            ZkLockDriver found = findDriver(client, 3);
            if (found == null) {
                throw new IllegalStateException("no ZkLockDriver among the fields of " + client);
            }
            return found;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reach the driver of " + client, e);
        }
    }

    private static ZkLockDriver findDriver(Object holder, int depth) throws ReflectiveOperationException {
        if (holder instanceof ZkLockDriver driver) {
            return driver;
        }
        if (holder == null || depth == 0 || !holder.getClass().getName().startsWith("io.distlock.")) {
            return null;
        }
        for (Class<?> type = holder.getClass(); type != null; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (field.getType().isPrimitive() || java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                field.setAccessible(true);
                ZkLockDriver found = findDriver(field.get(holder), depth - 1);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    @Override
    public void close() {
        try {
            if (single != null) {
                single.close();
            }
            for (ZkMember member : members) {
                member.close();
            }
            if (root != null) {
                try (Stream<Path> files = Files.walk(root)) {
                    for (Path file : files.sorted(Comparator.reverseOrder()).toArray(Path[]::new)) {
                        Files.deleteIfExists(file);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
