package io.distlock.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.impl.clientside.HazelcastClientInstanceImpl;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.FencedLockGetLockOwnershipCodec;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.internal.RaftGroupId;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.hazelcast.internal.HazelcastEndpoint;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.HazelcastCluster;
import io.distlock.tck.fixtures.HazelcastMemberTasks;
import org.awaitility.Awaitility;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The members this module's tests share in one test JVM, each set started on first use (sets needed
 * together start side by side) and stopped when the JVM exits: three 5.3.8 members with a CP
 * Subsystem of three CP members ({@code hazelcast://}), three 5.7.0 members (Community, no CP:
 * {@code hazelcast-map://}, and the refusal of {@code hazelcast://}), and one 5.3.8 member without CP
 * configuration (unsafe mode, refused). The module's test JVMs run different classes, so each starts
 * only the sets its classes use. A 5.4.0 client of the CP members stands in for an operator: it asks
 * whether a lock is held and closes a holder's session. Public for the tests of the backend's internals.
 */
public final class HazelcastMembers {

    /** The CP session TTL of the CP members: short, so that a crashed or frozen holder's lock goes soon. */
    static final Duration CP_SESSION_TTL = Duration.ofSeconds(HazelcastCluster.DEFAULT_SESSION_TTL_SECONDS);
    /** Operation timeout of the tests' clients: it outlasts a CP leader election. */
    static final Duration RIDE_THROUGH = Duration.ofSeconds(4);
    /**
     * Connect timeout of the tests' clients: a client that connects while a member is frozen moves off
     * it within the fixture's failover time (its connect's CP calls are asked again meanwhile), with
     * room for a loaded machine. A connect asks the CP group's name of the METADATA group: when the
     * frozen member led it, healthy members keep asking the frozen one until the cluster drops it,
     * later still when it was also the master. Under load a connect during rule 4.7's freeze took more
     * than the failover time plus 5 s once, and more than plus 15 s twice (CI, and 1 of 4 runs with
     * both cores busy besides).
     */
    static final Duration CONNECT = HazelcastCluster.FAILOVER.plusSeconds(40);
    /** The last Community line with a CP Subsystem. */
    static final String CP_VERSION = "5.3.8";
    /** The newest Community line: no CP Subsystem. */
    static final String COMMUNITY_VERSION = "5.7.0";

    private static HazelcastCluster cp;
    private static HazelcastCluster community;
    private static HazelcastCluster unsafe;
    private static HazelcastInstance operator;
    private static HazelcastInstance communityOperator;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(HazelcastMembers::close, "hazelcast-members-stop"));
    }

    private HazelcastMembers() {
    }

    /** @return the options of the tests' clients: connect timeout {@link #CONNECT}, operation timeout {@link #RIDE_THROUGH} */
    public static LockOptions options() {
        return LockOptions.builder().connectTimeout(CONNECT).operationTimeout(RIDE_THROUGH).build();
    }

    /** Starts every set not started yet, side by side (a failed start leaves the others started, and closed at exit). */
    static synchronized void startAll() {
        CompletableFuture<HazelcastCluster> cpStart = cp != null ? null : CompletableFuture.supplyAsync(HazelcastMembers::startCp);
        CompletableFuture<HazelcastCluster> communityStart = community != null ? null
                : CompletableFuture.supplyAsync(HazelcastMembers::startCommunity);
        CompletableFuture<HazelcastCluster> unsafeStart = unsafe != null ? null
                : CompletableFuture.supplyAsync(HazelcastMembers::startUnsafe);
        try {
            CompletableFuture.allOf(Stream.of(cpStart, communityStart, unsafeStart).filter(Objects::nonNull)
                    .toArray(CompletableFuture[]::new)).join();
        } finally {
            // allOf completes once every start has: each is done here, started or failed.
            cp = started(cpStart, cp);
            community = started(communityStart, community);
            unsafe = started(unsafeStart, unsafe);
        }
    }

    private static HazelcastCluster started(CompletableFuture<HazelcastCluster> start, HazelcastCluster before) {
        return start == null || start.isCompletedExceptionally() ? before : start.join();
    }

    private static HazelcastCluster startCp() {
        return HazelcastCluster.start(HazelcastCluster.memberJar(CP_VERSION), 3, true);
    }

    private static HazelcastCluster startCommunity() {
        return HazelcastCluster.start(HazelcastCluster.memberJar(COMMUNITY_VERSION), 3, false);
    }

    private static HazelcastCluster startUnsafe() {
        return HazelcastCluster.start(HazelcastCluster.memberJar(CP_VERSION), 1, false);
    }

    /** @return the 3 CP members (5.3.8) */
    static synchronized HazelcastCluster cp() {
        if (cp == null) {
            cp = startCp();
        }
        return cp;
    }

    /** @return the 3 Community members (5.7.0) */
    public static synchronized HazelcastCluster community() {
        if (community == null) {
            community = startCommunity();
        }
        return community;
    }

    /** @return the 5.3.8 member without CP configuration */
    static synchronized HazelcastCluster unsafe() {
        if (unsafe == null) {
            unsafe = startUnsafe();
        }
        return unsafe;
    }

    /**
     * @param lockName a lock's name
     * @return whether its {@code FencedLock} is held, as the CP group answers
     */
    static boolean cpLocked(String lockName) {
        return ownership(lockName).fence != 0;
    }

    /**
     * @param lockName a held lock's name
     * @return the thread id its {@code FencedLock} is held under, as the CP group answers
     */
    static long cpOwnerThread(String lockName) {
        return ownership(lockName).threadId;
    }

    /**
     * Closes the CP session that holds {@code lockName} on the group with an operator's
     * {@code forceCloseSession} (run on a member); returns once the group has let go of the lock.
     * Waits up to 10 s for the lock to be held first: TCK rule 4.19 calls this once a reply is held
     * back on the client's links, and that reply can be another call's (a session heartbeat) while
     * the acquire is still on its way to the group.
     *
     * @param lockName a lock's name, held or about to be
     * @throws org.awaitility.core.ConditionTimeoutException if nobody holds it within 10 s
     */
    static void closeHoldersSession(String lockName) {
        FencedLockGetLockOwnershipCodec.ResponseParameters owner = Awaitility.await("'" + lockName + "' held, so that its"
                + " session can be closed").atMost(Duration.ofSeconds(10)).until(() -> ownership(lockName), now -> now.fence != 0);
        if (!HazelcastMemberTasks.forceCloseSession(cp(), "default", owner.sessionId)) {
            throw new IllegalStateException("CP session " + owner.sessionId + " of '" + lockName + "' was not open");
        }
        // The group frees the session's locks as it applies the close: wait for it (a waiter may take
        // the lock at once, with a new fence: then it is no longer the closed session's either).
        Awaitility.await("'" + lockName + "' freed with its session " + owner.sessionId).atMost(Duration.ofSeconds(10))
                .until(() -> {
                    FencedLockGetLockOwnershipCodec.ResponseParameters now = ownership(lockName);
                    return now.fence != owner.fence || now.sessionId != owner.sessionId;
                });
    }

    /**
     * @param lockName a lock's name
     * @return whether the Community members' map lock of that name is held
     */
    public static boolean mapLocked(String lockName) {
        return communityOperator().getMap(HazelcastEndpoint.DEFAULT_MAP).isLocked(lockName);
    }

    /**
     * Force-unlocks {@code lockName} in the Community members' map lock, as an operator would
     * ({@code IMap.forceUnlock}: whoever holds it).
     *
     * @param lockName a lock's name
     */
    public static void forceUnlock(String lockName) {
        communityOperator().getMap(HazelcastEndpoint.DEFAULT_MAP).forceUnlock(lockName);
    }

    /**
     * The partition hook of {@code cluster}: a client whose links to every member go through fault
     * proxies of its own ({@link #proxiedUri}).
     *
     * @param scheme         the scheme
     * @param cluster        the members
     * @param sessionTimeout how long the members keep the client's session once they hear nothing (CP), or zero
     * @return the hook
     */
    static ClientPartition clientPartition(String scheme, HazelcastCluster cluster, Duration sessionTimeout) {
        Duration timeout = Duration.ofSeconds(2);
        LockOptions options = LockOptions.builder().connectTimeout(timeout).operationTimeout(timeout).build();
        return ClientPartition.of(() -> FaultProxy.partitionedClient(cluster.endpoints(),
                proxies -> Locks.connect(proxiedUri(scheme, cluster, proxies), options)), timeout, Duration.ofSeconds(3), sessionTimeout);
    }

    /**
     * The URI of a client that reaches every member of {@code cluster} through a proxy of its own: it
     * lists the proxies, and maps each member's address to its proxy ({@code natMap}) so that the
     * connections it opens to members it learns of go through them too.
     *
     * @param scheme  the scheme
     * @param cluster the members
     * @param proxies one per member, in the order of {@link HazelcastCluster#endpoints()}
     * @return the URI
     */
    static URI proxiedUri(String scheme, HazelcastCluster cluster, List<FaultProxy> proxies) {
        List<String> members = cluster.endpoints();
        String natMap = IntStream.range(0, members.size()).mapToObj(i -> members.get(i) + "=" + proxies.get(i).endpoint())
                .collect(Collectors.joining(","));
        return URI.create(scheme + "://" + proxies.stream().map(FaultProxy::endpoint).collect(Collectors.joining(","))
                + "/" + cluster.clusterName() + "?natMap=" + natMap);
    }

    private static FencedLockGetLockOwnershipCodec.ResponseParameters ownership(String lockName) {
        return FencedLockGetLockOwnershipCodec.decodeResponse(call(FencedLockGetLockOwnershipCodec.encodeRequest(defaultGroup(),
                lockName)));
    }

    private static RaftGroupId defaultGroup() {
        return (RaftGroupId) operator().getCPSubsystem().getLock("distlock").getGroupId();
    }

    private static ClientMessage call(ClientMessage request) {
        HazelcastClientInstanceImpl client = ((HazelcastClientProxy) operator()).client;
        try {
            return new ClientInvocation(client, request, "operator").invoke().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the operator's call to " + cp().endpoints() + " failed", e);
        }
    }

    private static synchronized HazelcastInstance communityOperator() {
        if (communityOperator == null) {
            communityOperator = client(community());
        }
        return communityOperator;
    }

    private static HazelcastInstance client(HazelcastCluster cluster) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(cluster.clusterName());
        config.getNetworkConfig().setAddresses(new ArrayList<>(cluster.endpoints()));
        config.setProperty("hazelcast.phone.home.enabled", "false");
        return HazelcastClient.newHazelcastClient(config);
    }

    private static synchronized HazelcastInstance operator() {
        if (operator == null) {
            operator = client(cp());
        }
        return operator;
    }

    private static synchronized void close() {
        for (HazelcastInstance client : new HazelcastInstance[] {operator, communityOperator}) {
            if (client != null) {
                client.getLifecycleService().terminate();
            }
        }
        for (HazelcastCluster started : new HazelcastCluster[] {cp, community, unsafe}) {
            if (started != null) {
                started.close();
            }
        }
    }
}
