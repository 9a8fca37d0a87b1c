package io.distlock.bench;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.instance.BuildInfoProvider;
import com.hazelcast.map.IMap;
import io.distlock.tck.fixtures.HazelcastCluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One Hazelcast cluster shared by the Hazelcast rows: three 5.3.8 members (the last Community line
 * with a CP Subsystem) in JVMs of their own, every one a CP member ({@link HazelcastCluster}, on free
 * loopback ports). On it, each row a client of its own:
 * <ul>
 *   <li>{@link #DISTLOCK_CP} ({@code hazelcast://}, the CP Subsystem's {@code FencedLock}) beside
 *       {@link #FENCED_LOCK}, the same lock through the Hazelcast 5.4 client's API:
 *       {@code lockAndGetFence()} + {@code unlock()} on the calling thread, as its users lock;</li>
 *   <li>{@link #DISTLOCK_MAP} ({@code hazelcast-map://}, {@code IMap.lock} with a lease) beside
 *       {@link #IMAP}: {@code IMap.lock(key, 10 s)} + {@code unlock(key)};</li>
 *   <li>contended, 4 clients on one name: distlock's CP lock, and {@code FencedLock}'s
 *       {@code tryLockAndGetFence(30 s)}, whose wait is the CP group's (it answers a waiter once the
 *       lock is the waiter's; distlock's waiters poll on the engine's back-off).</li>
 * </ul>
 *
 * <p>The members take seconds to come up (three JVMs loading classes, a CP group to form), so
 * {@link #start} launches them on a thread of its own while the bench starts its other servers, and
 * {@link #rows} waits for them.
 */
final class HazelcastPeers implements AutoCloseable {

    /** The members' version: the parent pom's {@code hazelcast.member.cp.version}, copied by lock-bench's pom. */
    static final String MEMBER_VERSION = "5.3.8";

    static final String DISTLOCK_CP = "distlock Hazelcast CP tryAcquire+release, fence read";
    static final String FENCED_LOCK = "Hazelcast 5.4 FencedLock lockAndGetFence+unlock";
    static final String DISTLOCK_MAP = "distlock Hazelcast map tryAcquire+release";
    static final String IMAP = "Hazelcast 5.4 IMap lock(key, 10 s)+unlock";
    static final String DRIVER_CP = "diagnostic: Hazelcast CP driver called directly (no engine)";
    static final String DRIVER_MAP = "diagnostic: Hazelcast map driver called directly (no engine)";
    static final String CONTENDED_DISTLOCK = "contended, 4 clients: distlock Hazelcast CP";
    static final String CONTENDED_FENCED_LOCK = "contended, 4 clients: Hazelcast 5.4 FencedLock";

    /** The backends' names in the footprint rows ({@link Footprint#name}). */
    static final String FOOTPRINT_CP = "Hazelcast CP";
    static final String FOOTPRINT_MAP = "Hazelcast map";

    /** Every row {@link #rows} adds. */
    static final List<String> ROWS = List.of(DISTLOCK_CP, FENCED_LOCK, DRIVER_CP, DISTLOCK_MAP, DRIVER_MAP, IMAP,
            CONTENDED_DISTLOCK, CONTENDED_FENCED_LOCK);

    /**
     * Why smoke mode leaves these rows out unless {@code --only} asks for them: the build runs smoke
     * mode in every build (BenchSmokeTest), and the members and twelve clients cost it more than the
     * 15 s it can spare (BENCHMARKS.md, "Hazelcast").
     */
    static final String LEFT_OUT_OF_SMOKE = "Hazelcast rows left out of smoke mode, for the build's time (their 3 member"
            + " JVMs and 12 clients; BENCHMARKS.md, \"Hazelcast\"): --smoke --only '.*Hazelcast.*' runs them";

    /**
     * The CP sessions' TTL and heartbeat interval: Hazelcast's defaults, as users run it, not the
     * fixture's 6 s and 1 s (made for fault tests, where a crashed holder's lock should go soon).
     * With 6 s, a client whose connections dropped on a loaded machine (distlock's heartbeat timeout
     * is its 2 s operation timeout) lost its session in a full run, and the bench with it.
     */
    static final Duration SESSION_TTL = Duration.ofSeconds(300);
    static final Duration SESSION_HEARTBEAT = Duration.ofSeconds(5);

    /** Held: the JDK keeps loggers weakly, and would forget the level with the logger. */
    private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");

    static {
        // Hazelcast logs to java.util.logging; every client's connect would add a dozen INFO lines to the bench's output.
        HAZELCAST_LOG.setLevel(Level.WARNING);
    }

    private final CompletableFuture<HazelcastCluster> cluster;

    private HazelcastPeers(CompletableFuture<HazelcastCluster> cluster) {
        this.cluster = cluster;
    }

    /**
     * Starts the members in the background, if the member jar is there.
     *
     * @param absent told why there are no Hazelcast rows, when the jar is missing
     * @return the peers whose members are starting, or null without the jar
     */
    static HazelcastPeers start(Consumer<String> absent) {
        Path jar;
        try {
            jar = HazelcastCluster.memberJar(MEMBER_VERSION);
        } catch (IllegalStateException e) {
            absent.accept("no Hazelcast rows: " + e.getMessage());
            return null;
        }
        CompletableFuture<HazelcastCluster> cluster = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            try {
                cluster.complete(HazelcastCluster.builder().memberJar(jar).members(3).cpSubsystem(true)
                        .cpSessionTtl(SESSION_TTL).cpHeartbeat(SESSION_HEARTBEAT).start());
            } catch (Throwable e) {
                cluster.completeExceptionally(e);
            }
        }, "bench-hazelcast-start");
        starter.setDaemon(true);
        starter.start();
        return new HazelcastPeers(cluster);
    }

    /** @return the URI of {@code scheme} ({@code hazelcast} or {@code hazelcast-map}) on the members, once they are up */
    String uri(String scheme) {
        return cluster.join().uri(scheme, "");
    }

    /** Waits for the members, then adds every Hazelcast row: uncontended pairs, then the contended pair. */
    void rows(List<Scenario> into) {
        HazelcastCluster members = cluster.join();
        String cp = members.uri("hazelcast", "");
        into.add(new DistlockUncontended(DISTLOCK_CP, cp, "hz-cp-uncontended", true));
        HazelcastInstance fencedClient = client(members);
        FencedLock fenced = fencedClient.getCPSubsystem().getLock("hz-fenced-uncontended");
        into.add(peer(FENCED_LOCK, fencedClient, () -> {
            if (fenced.lockAndGetFence() == FencedLock.INVALID_FENCE) { // the fence read, as distlock's row reads its own
                throw new IllegalStateException(FENCED_LOCK + ": no fence");
            }
            fenced.unlock();
        }));
        into.add(DriverOnly.of(DRIVER_CP, cp, "hz-cp-driver-only"));
        into.add(new DistlockUncontended(DISTLOCK_MAP, members.uri("hazelcast-map", ""), "hz-map-uncontended", false));
        into.add(DriverOnly.of(DRIVER_MAP, members.uri("hazelcast-map", ""), "hz-map-driver-only"));
        HazelcastInstance mapClient = client(members);
        IMap<String, String> map = mapClient.getMap("bench-imap");
        into.add(peer(IMAP, mapClient, () -> {
            map.lock("imap-uncontended", 10, TimeUnit.SECONDS);
            map.unlock("imap-uncontended");
        }));
        List<Contended.Contender> distlock = new ArrayList<>();
        List<Contended.Contender> fencedLocks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            distlock.add(Contenders.distlock(cp, "hz-cp-contended"));
            fencedLocks.add(Contenders.fencedLock(client(members), "hz-fenced-contended"));
        }
        into.add(new Contended(CONTENDED_DISTLOCK, distlock, Duration.ZERO, false));
        into.add(new Contended(CONTENDED_FENCED_LOCK, fencedLocks, Duration.ZERO, false));
    }

    /** @return the members' and the client's versions, for the environment line */
    String environment() {
        return "Hazelcast " + MEMBER_VERSION + " × 3 (CP Subsystem of 3, CP session TTL " + SESSION_TTL.toSeconds() + " s, heartbeat "
                + SESSION_HEARTBEAT.toSeconds() + " s, JVMs of their own), client "
                + BuildInfoProvider.getBuildInfo().getVersion() + ", on 127.0.0.1";
    }

    /** @return {@code lockAndUnlock} in a loop, on {@code client}, which the row shuts down when it closes */
    private static LoopScenario peer(String name, HazelcastInstance client, Runnable lockAndUnlock) {
        return new LoopScenario(name, false) {
            @Override
            void op() {
                lockAndUnlock.run();
            }

            @Override
            public void close() {
                client.shutdown();
            }
        };
    }

    /** @return a Hazelcast client of its own on the members, with Hazelcast's defaults, as its users start one */
    static HazelcastInstance client(HazelcastCluster members) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(members.clusterName());
        config.getNetworkConfig().setAddresses(new ArrayList<>(members.endpoints()));
        // Not a default kept: a bench has no business reporting to hazelcast.com (and may be offline).
        config.setProperty("hazelcast.phone.home.enabled", "false");
        return HazelcastClient.newHazelcastClient(config);
    }

    /** Stops the members, once they have started (a start that failed has cleaned up after itself). */
    @Override
    public void close() {
        try {
            cluster.join().close();
        } catch (RuntimeException e) {
            // the start failed: the failure is the bench's, reported where the rows waited for it
        }
    }

    @Override
    public String toString() {
        return "Hazelcast members " + (cluster.isDone() && !cluster.isCompletedExceptionally() ? cluster.join().endpoints() : "(starting)");
    }
}
