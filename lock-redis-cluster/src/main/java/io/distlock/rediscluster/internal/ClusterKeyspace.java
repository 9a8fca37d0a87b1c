package io.distlock.rediscluster.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.redis.support.HoldSnapshot;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.LockSnapshot;
import io.distlock.redis.support.MovableWatch;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.PendingReply.Call;
import io.distlock.redis.support.PendingReply.CommandCall;
import io.distlock.redis.support.PendingReply.Replies;
import io.distlock.redis.support.PendingReply.ScriptCall;
import io.distlock.redis.support.ReadWriteScripts;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisKeyspace;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.RedisRedirect;
import io.distlock.redis.support.SemaphoreScripts;
import io.distlock.spi.Backoff;
import io.distlock.spi.ServerList;
import io.distlock.spi.Watch;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;


/**
 * A Redis Cluster as one {@link RedisKeyspace}: every call goes to the primary that serves its
 * keys' hash slot, over a connection pool of that primary's own ({@link RedisNode}), so the
 * Redis-family lock driver runs on a cluster unchanged.
 *
 * <p><b>The slot map</b> is read at connect ({@code CLUSTER SHARDS}, from the first seed that
 * answers) and read again when a node answers {@code MOVED} (the slot has a new owner), when a
 * primary cannot be reached or answers that it is not serving (a failover under way), or when it
 * refuses a shard channel. Nodes that are no longer primaries are dropped, their connections
 * closed. {@code ASK} (a slot half migrated, this key already gone to the importing node) is
 * followed for that one call, with {@code ASKING} pipelined in front of it; {@code TRYAGAIN} (the
 * call's keys split between the two nodes of a migration) and {@code CLUSTERDOWN} are retried with
 * back-off. Every redirect, refresh and retry happens inside the operation's deadline (the
 * operation timeout, counted from the call): a call still unanswered then fails with
 * {@link BackendUnavailableException} — unreachable, never busy. A retry resends a script whose
 * first send may have run: every lock script is idempotent for its owner token.
 *
 * <p><b>Wake-ups</b> are shard channels ({@code SSUBSCRIBE} on the slot's primary; the scripts
 * notify with {@code SPUBLISH}, their {@linkplain io.distlock.redis.support.RedisScript#sharded()
 * sharded twins}): a release reaches the one shard that serves the lock, not every node of the
 * cluster as a plain {@code PUBLISH} would. A subscription follows its slot: when the node gives
 * the slot away it unsubscribes the channel itself, and a refreshed map that names another owner
 * moves it too; the waiter is then woken once, since a release during the move may have gone
 * unheard. Revocation notices stay plain {@code PUBLISH} (the cluster bus carries them to every
 * node): each primary's subscriber listens, and a notice is believed only once its marker is read
 * on the slot's primary.
 *
 * <p>Thread-safe.
 */
public final class ClusterKeyspace implements RedisKeyspace {

    private static final System.Logger LOG = System.getLogger("io.distlock.redis");

    /** Calls per pipelined round trip to one node. */
    static final int PIPELINE_CHUNK = 4096;

    /** Redirects followed for one call before the map is taken to be in flux and the call retried with back-off. */
    private static final int REDIRECTS_IN_A_ROW = 5;

    /** Between retries of a call that met a node not serving (failover, migration, CLUSTERDOWN). */
    private static final Backoff RETRY = Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(250));

    /** The least time between two reads of the slot map that a failure (not a MOVED) asks for. */
    private static final long MIN_REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final CommandCall ASKING = new CommandCall("ASKING", List.of());

    /**
     * Who serves each slot, as last read.
     *
     * @param owners    the address (as this client reaches it) of each slot's primary; null if none serves it
     * @param primaries every primary's address, in the order the cluster listed them
     * @param replicas  how many replicas each primary has, up or down
     * @param readNanos when it was read ({@link System#nanoTime()})
     */
    private record SlotMap(String[] owners, List<String> primaries, Map<String, Integer> replicas, long readNanos) {
    }

    /** The replies of calls to one slot, and the node that answered them. */
    private record Answer(Replies replies, RedisNode node) {
    }

    private final ClusterSettings settings;
    private final Duration connectTimeout;
    private final Duration operationTimeout;
    private final Map<String, RedisNode> nodes = new ConcurrentHashMap<>();
    private final Object refreshing = new Object();
    private final Set<ShardWatch> watches = ConcurrentHashMap.newKeySet();
    private final Map<String, Watch> revocationWatches = new ConcurrentHashMap<>();
    private final ExecutorService mover;
    private volatile Consumer<String> revocationListener;
    private volatile SlotMap map;
    private volatile boolean closed;

    private ClusterKeyspace(ClusterSettings settings, LockOptions options) {
        this.settings = settings;
        this.connectTimeout = options.connectTimeout();
        this.operationTimeout = options.operationTimeout();
        this.mover = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "distlock-redis-cluster-moves");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Asks the seeds, in order, until one answers that it is a cluster node and gives the slot map.
     *
     * @param settings the parsed URI
     * @param options  the client's timeouts
     * @return the connected keyspace
     * @throws IllegalArgumentException    if a seed answers that it is not in cluster mode
     * @throws BackendUnavailableException if no seed answers within the connect timeout (naming them)
     * @throws LockException               if a seed refuses the credentials (an {@link io.distlock.AuthenticationException})
     */
    public static ClusterKeyspace connect(ClusterSettings settings, LockOptions options) {
        ClusterKeyspace keyspace = new ClusterKeyspace(settings, options);
        try {
            List<String> failures = new ArrayList<>();
            long deadline = System.nanoTime() + options.connectTimeout().toNanos();
            List<RedisEndpoint> seeds = settings.seeds();
            for (int k = 0; k < seeds.size(); k++) {
                RedisEndpoint seed = seeds.get(k);
                String address = settings.reachable(seed.endpoint());
                // A frozen seed must leave the others time to answer within the connect timeout: the
                // seed is asked on a connection of its own whose connect, TLS handshake and AUTH are
                // all bounded by the seed's turn (the client's nodes give each of them a whole timeout).
                long until = ServerList.turnDeadline(deadline, k, seeds.size());
                String info;
                try {
                    info = text(RedisNode.askWithin(keyspace.endpointOf(address), "check that it is a cluster node",
                            List.of(INFO_CLUSTER), until).value(0));
                } catch (BackendUnavailableException e) {
                    failures.add(e.getMessage());
                    continue;
                }
                RedisNode node = keyspace.node(address);
                if (!info.contains("cluster_enabled:1")) {
                    throw new IllegalArgumentException("redis-cluster URI '" + settings + "': " + seed.endpoint()
                            + " is a Redis server not in cluster mode (INFO cluster: cluster_enabled:0); use redis:// for a"
                            + " single server, redis-wait:// for a primary with replicas");
                }
                keyspace.map = keyspace.readMap(node);
                return keyspace;
            }
            throw new BackendUnavailableException(settings.seeds().get(0).endpoint(), "no seed of the Redis Cluster '" + settings
                    + "' answered within the connect timeout (" + options.connectTimeout().toMillis() + " ms): "
                    + String.join("; ", failures), null);
        } catch (RuntimeException e) {
            keyspace.close();
            throw e;
        }
    }

    // ---- the calls ------------------------------------------------------------------------

    /** A name that starts with {@code }} would leave its keys without a hash tag ({@link Slots}). */
    @Override
    public void checkName(String name) {
        if (name.startsWith("}")) {
            throw new IllegalArgumentException("lock name '" + name + "' starts with '}': in a Redis Cluster every key of a lock"
                    + " carries the hash tag {<name>}, and Redis ends a tag at its first '}', so this name would leave the"
                    + " lock's keys on different hash slots, where no one script can reach them all. Choose a name that does"
                    + " not start with '}'");
        }
    }

    @Override
    public Object eval(String operation, ScriptCall call) {
        return send(operation, Slots.slotOf(call.keys()), List.of(sharded(call)), deadline()).replies().value(0);
    }

    /**
     * Calls grouped by the primary of their slot, one pipeline per primary, all primaries at once;
     * a call whose slot moved meanwhile is sent again on its own. A plain command is routed by its
     * first argument, its key.
     */
    @Override
    public List<Object> runAll(String operation, List<? extends Call> calls) {
        List<Routed> routed = new ArrayList<>(calls.size());
        for (Call call : calls) {
            routed.add(new Routed(slotOf(call), List.of(call instanceof ScriptCall script ? sharded(script) : call)));
        }
        List<Answer> answers = sendAll(operation, routed, deadline());
        List<Object> replies = new ArrayList<>(calls.size());
        for (Answer answer : answers) {
            replies.add(answer.replies().value(0));
        }
        return replies;
    }

    /** Routed by the first call's slot; its scripts in their sharded twins ({@link #sharded}). */
    @Override
    public Replies sendTogether(String operation, List<? extends Call> calls, long deadlineNanos) {
        List<Call> sent = new ArrayList<>(calls.size());
        for (Call call : calls) {
            sent.add(call instanceof ScriptCall script ? sharded(script) : call);
        }
        return send(operation, slotOf(calls.get(0)), sent, deadlineNanos).replies();
    }

    /**
     * By the primary of each call's slot in the map as last read; a call whose slot no one serves
     * is a group of its own (its {@link #sendTogether} waits for the slot within its deadline). A
     * slot that moves before a group is sent makes that group follow the redirect and meet the
     * others' refusals: it fails within its deadline, and the map read meanwhile groups the next
     * attempt right.
     */
    @Override
    public List<List<Integer>> byServer(List<? extends Call> calls) {
        List<Integer> unserved = new ArrayList<>();
        Map<String, List<Integer>> byOwner = byOwner(currentMap(), calls.size(), i -> slotOf(calls.get(i)), unserved);
        List<List<Integer>> groups = new ArrayList<>();
        unserved.forEach(i -> groups.add(List.of(i)));
        groups.addAll(byOwner.values());
        return groups;
    }

    /**
     * @param seen     the slot map to group by
     * @param count    how many items
     * @param slotOf   each item's slot, by index
     * @param unserved receives, in order, the indexes of items whose slot no one serves
     * @return the other indexes, grouped by the address of their slot's primary, each group in order
     */
    private static Map<String, List<Integer>> byOwner(SlotMap seen, int count, IntUnaryOperator slotOf, List<Integer> unserved) {
        Map<String, List<Integer>> byOwner = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String owner = seen.owners()[slotOf.applyAsInt(i)];
            if (owner == null) {
                unserved.add(i);
            } else {
                byOwner.computeIfAbsent(owner, o -> new ArrayList<>()).add(i);
            }
        }
        return byOwner;
    }

    @Override
    public List<LockSnapshot> inspectAll(List<String> names) {
        List<Routed> routed = new ArrayList<>(names.size());
        for (String name : names) {
            routed.add(new Routed(Slots.slot(LockScripts.lockKey(name)), List.copyOf(LockSnapshot.calls(name))));
        }
        String operation = names.size() == 1 ? "inspect '" + names.get(0) + "'" : "inspect " + names.size() + " locks";
        List<Answer> answers = sendAll(operation, routed, deadline());
        List<LockSnapshot> snapshots = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            snapshots.add(LockSnapshot.parse(names.get(i), answers.get(i).replies(), 0, answers.get(i).node().endpoint()));
        }
        return snapshots;
    }

    /** {@code SCAN} on every primary ({@link RedisNode#scanLockNames}), merged in name order. */
    @Override
    public List<String> scanLockNames(String prefix, int limit) {
        TreeSet<String> first = new TreeSet<>();
        for (String primary : currentMap().primaries()) {
            for (String name : node(primary).scanLockNames(prefix, limit)) {
                first.add(name);
                if (first.size() > limit) {
                    first.pollLast();
                }
            }
        }
        return List.copyOf(first);
    }

    @Override
    public HoldSnapshot holds(String name, Feature primitive) {
        String key = primitive == Feature.SEMAPHORE ? SemaphoreScripts.holdersKey(name) : ReadWriteScripts.readersKey(name);
        Answer answer = send("list the holds of " + HoldSnapshot.what(name, primitive), Slots.slot(key),
                List.copyOf(HoldSnapshot.calls(name, primitive)), deadline());
        return HoldSnapshot.parse(name, primitive, answer.replies(), answer.node().endpoint());
    }

    @Override
    public RedisNode.Revocation revoke(String name, String reason, boolean fenced) {
        return RedisNode.revocation(name, eval("revoke '" + name + "'", RedisNode.revokeCall(name, reason, fenced)));
    }

    @Override
    public Optional<String> revocationReason(String name, String ownerToken) {
        String key = LockScripts.revokedKey(name, ownerToken);
        Object reply = send("check a revocation of '" + name + "'", Slots.slot(key), List.of(new CommandCall("GET", List.of(key))),
                deadline()).replies().value(0);
        return Optional.ofNullable(reply == null ? null
                : reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : reply.toString());
    }

    @Override
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** @return the seeds, {@code host:port,host:port (Redis Cluster)}: messages read "Redis at" it */
    @Override
    public String describe() {
        return String.join(",", settings.seeds().stream().map(RedisEndpoint::endpoint).toList()) + " (Redis Cluster)";
    }

    @Override
    public String toString() {
        return "ClusterKeyspace[" + settings + "]";
    }

    /**
     * Refuses a cluster none of whose primaries has {@code replicas} replicas (their shards in
     * {@code CLUSTER SHARDS}, as last read): no grant could ever be confirmed by {@code WAIT}, the
     * URI asks for more than the deployment has. A shard short of replicas only for now (a failover
     * under way, a replica down or still attaching to its new primary) is not refused: grants on its
     * slots are reported unknown until its replicas are back.
     *
     * @param replicas how many replicas must acknowledge each grant
     * @throws IllegalArgumentException saying how many replicas the primaries have
     */
    public void requireReplicas(int replicas) {
        int most = currentMap().replicas().values().stream().mapToInt(Integer::intValue).max().orElse(0);
        if (most < replicas) {
            throw new IllegalArgumentException("redis-cluster URI '" + settings + "' asks for replicas=" + replicas
                    + ", but no primary of the cluster has more than " + most + " replica(s) (CLUSTER SHARDS): no grant could"
                    + " ever be confirmed. Lower replicas, or add replicas to the shards");
        }
    }

    // ---- routing --------------------------------------------------------------------------

    /** Calls that go to one slot, pipelined in order. */
    private record Routed(int slot, List<Call> calls) {
    }

    private long deadline() {
        return System.nanoTime() + operationTimeout.toNanos();
    }

    private static int slotOf(Call call) {
        if (call instanceof ScriptCall script) {
            return Slots.slotOf(script.keys());
        }
        CommandCall command = (CommandCall) call;
        if (command.args().isEmpty()) {
            throw new IllegalArgumentException("a Redis Cluster routes a command by its key; " + command.command() + " has none");
        }
        return Slots.slot(command.args().get(0));
    }

    private static ScriptCall sharded(ScriptCall call) {
        return call.script().sharded() == call.script() ? call : new ScriptCall(call.script().sharded(), call.keys(), call.args());
    }

    /**
     * Groups the calls by the primary of their slot and sends each group as one pipeline (all
     * primaries at once, then every reply read); a group, or one call in it, that met a redirect or
     * a node not serving is sent again on its own ({@link #send}).
     */
    private List<Answer> sendAll(String operation, List<Routed> routed, long deadline) {
        Answer[] answers = new Answer[routed.size()];
        List<Integer> alone = new ArrayList<>();
        Map<String, List<Integer>> byOwner = byOwner(currentMap(), routed.size(), i -> routed.get(i).slot(), alone);
        List<Batch> batches = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> group : byOwner.entrySet()) {
            RedisNode node = node(group.getKey());
            List<Integer> indexes = group.getValue();
            int from = 0;
            while (from < indexes.size()) {
                List<Call> calls = new ArrayList<>();
                int to = from;
                while (to < indexes.size() && (to == from || calls.size() + routed.get(indexes.get(to)).calls().size() <= PIPELINE_CHUNK)) {
                    calls.addAll(routed.get(indexes.get(to)).calls());
                    to++;
                }
                batches.add(new Batch(node, indexes.subList(from, to), sendNow(node, operation, calls)));
                from = to;
            }
        }
        for (Batch batch : batches) {
            Replies replies;
            try {
                replies = batch.pending() == null ? null : batch.pending().await(deadline);
            } catch (BackendUnavailableException | IllegalStateException e) {
                if (closed) {
                    throw e;
                }
                replies = null; // the node is down or was dropped: each call is routed again
            }
            int offset = 0;
            for (int index : batch.indexes()) {
                int size = routed.get(index).calls().size();
                if (replies == null) {
                    alone.add(index);
                } else {
                    Replies slice = new Replies(replies.values().subList(offset, offset + size), Optional.empty());
                    if (redirected(slice) != null || notServing(slice) != null) {
                        alone.add(index);
                    } else {
                        answers[index] = new Answer(slice, batch.node());
                    }
                }
                offset += size;
            }
        }
        for (int index : alone) {
            answers[index] = send(operation, routed.get(index).slot(), routed.get(index).calls(), deadline);
        }
        return List.of(answers);
    }

    private record Batch(RedisNode node, List<Integer> indexes, PendingReply pending) {
    }

    private static PendingReply sendNow(RedisNode node, String operation, List<Call> calls) {
        try {
            return node.send(operation, false, calls);
        } catch (IllegalStateException closedNode) {
            return null; // dropped from the map meanwhile: routed again
        }
    }

    /**
     * Sends calls to one slot's primary and follows the cluster until they are answered: a
     * {@code MOVED} goes to the new owner (and the map is read again), an {@code ASK} to the
     * importing node for this call, a node not serving or unreachable is retried with back-off
     * after the map is read again — all until {@code deadline}.
     */
    private Answer send(String operation, int slot, List<Call> calls, long deadline) {
        RedisNode node = owner(slot);
        boolean asking = false;
        int redirects = 0;
        int failures = 0;
        while (true) {
            RuntimeException failure;
            Replies replies = null;
            if (node == null) {
                // No node serves the slot in the map as last read. Like a CLUSTERDOWN answer, this is
                // "not served now": the slot may be covered again (or the map read again) before the deadline.
                failure = uncovered(slot, operation);
            } else {
                try {
                    List<Call> sent = calls;
                    if (asking) {
                        sent = new ArrayList<>(calls.size() + 1);
                        sent.add(ASKING);
                        sent.addAll(calls);
                    }
                    PendingReply pending = node.send(operation, false, sent);
                    replies = pending.await(deadline);
                    if (asking) {
                        replies = new Replies(replies.values().subList(1, replies.values().size()), replies.serverInfo());
                    }
                    RedisRedirect redirect = redirected(replies);
                    if (redirect != null && ++redirects <= REDIRECTS_IN_A_ROW) {
                        if (!redirect.ask()) {
                            refresh(null); // the map is stale for sure
                        }
                        node = node(settings.reachable(redirect.target()));
                        asking = redirect.ask();
                        continue;
                    }
                    failure = redirect != null ? redirect : notServing(replies);
                    if (failure == null) {
                        return new Answer(replies, node);
                    }
                } catch (BackendUnavailableException | IllegalStateException e) {
                    if (closed) {
                        throw e instanceof IllegalStateException ? e : new IllegalStateException("the Redis Cluster client is closed", e);
                    }
                    failure = e instanceof BackendUnavailableException ? e : new BackendUnavailableException(node.endpoint().endpoint(),
                            "Redis at " + node.endpoint() + " was dropped from the cluster's map during " + operation, e);
                }
            }
            // Not served now: a failover or a migration under way, an uncovered slot, or a node down.
            if (!pause(deadline, ++failures)) {
                if (failure instanceof RedisRedirect redirect) {
                    // Still redirected at the deadline: the slot kept moving (or calls of one group were
                    // split by a move). No answer, not a refusal.
                    throw new BackendUnavailableException(node.endpoint().endpoint(), "the Redis Cluster kept redirecting "
                            + operation + " (slot " + redirect.slot() + ", last to " + redirect.target() + ") until the"
                            + " operation timeout", redirect);
                }
                throw failure;
            }
            refresh(map);
            node = owner(slot);
            asking = false;
            redirects = 0;
        }
    }

    /** @return the first redirect among the replies, or null */
    private static RedisRedirect redirected(Replies replies) {
        for (Object value : replies.values()) {
            if (value instanceof RedisRedirect redirect) {
                return redirect;
            }
        }
        return null;
    }

    /** @return the first "not serving now" answer ({@code TRYAGAIN}, {@code CLUSTERDOWN}, {@code READONLY}, {@code LOADING}), or null */
    private static BackendUnavailableException notServing(Replies replies) {
        for (Object value : replies.values()) {
            if (value instanceof BackendUnavailableException unavailable) {
                return unavailable;
            }
        }
        return null;
    }

    /** Waits before a retry; false if the deadline leaves no time for one, or the thread was interrupted. */
    private static boolean pause(long deadline, int failures) {
        long left = deadline - System.nanoTime();
        long delay = RETRY.delayNanos(failures);
        if (left <= delay || Thread.currentThread().isInterrupted()) {
            return false;
        }
        LockSupport.parkNanos(delay);
        return !Thread.currentThread().isInterrupted();
    }

    /**
     * @return the node serving {@code slot}, reading the map again if it names none (unless it was
     *     read moments ago); null if the map still names none
     */
    private RedisNode owner(int slot) {
        SlotMap seen = currentMap();
        String owner = seen.owners()[slot];
        if (owner == null) {
            refresh(seen);
            owner = currentMap().owners()[slot];
        }
        return owner == null ? null : node(owner);
    }

    /** What a call reports when, up to its deadline, no node served its slot. */
    private BackendUnavailableException uncovered(int slot, String operation) {
        return new BackendUnavailableException(settings.seeds().get(0).endpoint(), "no node of the Redis Cluster at " + describe()
                + " serves hash slot " + slot + " (" + operation + "): the cluster is down for it (CLUSTERDOWN)", null);
    }

    private SlotMap currentMap() {
        SlotMap current = map;
        if (current == null) {
            throw new IllegalStateException("the Redis Cluster client is closed");
        }
        return current;
    }

    /** The pool of the node at {@code address} ({@code host:port} as this client reaches it), made on first use. */
    private RedisNode node(String address) {
        if (closed) {
            throw new IllegalStateException("the Redis Cluster client is closed");
        }
        return nodes.computeIfAbsent(address, a -> RedisNode.open(endpointOf(a), connectTimeout, operationTimeout, settings.poolSize()));
    }

    /** @return the node at {@code host:port}, with the URI's credentials and TLS */
    private RedisEndpoint endpointOf(String address) {
        int colon = address.lastIndexOf(':');
        return settings.seeds().get(0).withAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }

    // ---- the slot map ---------------------------------------------------------------------

    /**
     * Reads the map again, unless another thread did since {@code seen} was read (or a read asked
     * for by a failure came less than {@value #MIN_REFRESH_NANOS} ns ago). Asks the primaries of the
     * current map, then the seeds; if none answers, the map stays as it was.
     *
     * @param seen the map the caller found wanting; null after a {@code MOVED} (read it in any case)
     */
    private void refresh(SlotMap seen) {
        SlotMap before;
        SlotMap after;
        synchronized (refreshing) {
            before = map;
            if (before == null || closed) {
                return;
            }
            if (seen != null && (before != seen || System.nanoTime() - before.readNanos() < MIN_REFRESH_NANOS)) {
                return;
            }
            List<String> candidates = new ArrayList<>(before.primaries());
            settings.seeds().forEach(seed -> {
                String address = settings.reachable(seed.endpoint());
                if (!candidates.contains(address)) {
                    candidates.add(address);
                }
            });
            after = null;
            for (String candidate : candidates) {
                try {
                    after = readMap(node(candidate));
                    break;
                } catch (LockException e) {
                    LOG.log(System.Logger.Level.DEBUG, "{0} could not tell the slot map: {1}", candidate, e.getMessage());
                }
            }
            if (after == null) {
                return;
            }
            map = after;
        }
        moved(before, after);
    }

    private static final CommandCall CLUSTER_SHARDS = new CommandCall("CLUSTER", List.of("SHARDS"));
    private static final CommandCall INFO_CLUSTER = new CommandCall("INFO", List.of("cluster"));

    /**
     * {@code CLUSTER SHARDS} of one node (Redis 7.0+), within the operation timeout: for each shard
     * with slots, its primary — the node whose role is {@code master} and whose health is
     * {@code online} (a failed primary stays listed in its shard after its replica took over) — at
     * its TLS port if this client speaks TLS, with every address as this client reaches it
     * ({@code natMap}). A shard whose primary is not online serves nothing now.
     */
    private SlotMap readMap(RedisNode from) {
        Object reply = from.send("read the cluster's slot map", false, List.of(CLUSTER_SHARDS)).await(deadline()).value(0);
        boolean tls = from.endpoint().tls();
        String[] owners = new String[Slots.COUNT];
        List<String> primaries = new ArrayList<>();
        Map<String, Integer> replicas = new HashMap<>();
        for (Object shardReply : (List<?>) reply) {
            Map<String, Object> shard = fields(shardReply);
            Map<String, Object> primary = null;
            int shardReplicas = 0;
            for (Object nodeReply : (List<?>) shard.getOrDefault("nodes", List.of())) {
                Map<String, Object> node = fields(nodeReply);
                boolean online = "online".equals(text(node.get("health")));
                if ("master".equals(text(node.get("role"))) && online) {
                    primary = node;
                } else if ("replica".equals(text(node.get("role")))) {
                    shardReplicas++;
                }
            }
            List<?> ranges = (List<?>) shard.getOrDefault("slots", List.of());
            if (primary == null || ranges.isEmpty()) {
                continue;
            }
            String host = text(primary.get("endpoint"));
            if (host == null || host.isEmpty() || host.equals("?")) {
                host = primary.get("ip") != null ? text(primary.get("ip")) : from.endpoint().host();
            }
            Object port = tls && primary.get("tls-port") != null ? primary.get("tls-port") : primary.get("port");
            if (port == null) {
                continue;
            }
            String address = settings.reachable(host + ":" + port);
            for (int i = 0; i + 1 < ranges.size(); i += 2) {
                for (int slot = ((Long) ranges.get(i)).intValue(); slot <= ((Long) ranges.get(i + 1)).intValue(); slot++) {
                    owners[slot] = address;
                }
            }
            if (!primaries.contains(address)) {
                primaries.add(address);
            }
            replicas.put(address, shardReplicas);
        }
        return new SlotMap(owners, List.copyOf(primaries), Map.copyOf(replicas), System.nanoTime());
    }

    /** A RESP2 map: a flat list of names and values. */
    private static Map<String, Object> fields(Object reply) {
        List<?> flat = (List<?>) reply;
        Map<String, Object> fields = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            fields.put(text(flat.get(i)), flat.get(i + 1));
        }
        return fields;
    }

    private static String text(Object reply) {
        return reply == null ? null : reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    /**
     * After a new map: shard watches whose slot has another owner move there (woken once), the
     * revocation subscription reaches every new primary, and nodes no longer primaries are closed.
     */
    private void moved(SlotMap before, SlotMap after) {
        for (ShardWatch watch : watches) {
            if (!java.util.Objects.equals(after.owners()[watch.slot], watch.address())) {
                schedule(watch, false);
            }
        }
        Consumer<String> listener = revocationListener;
        if (listener != null) {
            after.primaries().forEach(primary -> listenForRevocations(primary, listener));
        }
        for (String gone : before.primaries()) {
            if (!after.primaries().contains(gone) && watches.stream().noneMatch(w -> gone.equals(w.address()))) {
                Watch revocations = revocationWatches.remove(gone);
                if (revocations != null) {
                    revocations.close();
                }
                RedisNode node = nodes.remove(gone);
                if (node != null) {
                    node.close();
                }
            }
        }
    }

    // ---- notifications --------------------------------------------------------------------

    @Override
    public Watch subscribe(String channel, Runnable onMessage) {
        ShardWatch watch = new ShardWatch(channel, Slots.slot(channel), onMessage);
        watches.add(watch);
        watch.attach(false);
        return watch.watch;
    }

    /** Plain {@code SUBSCRIBE} on every primary: the cluster bus brings each revocation notice to all of them. */
    @Override
    public Watch subscribeRevocations(Consumer<String> onNotice) {
        revocationListener = onNotice;
        for (String primary : currentMap().primaries()) {
            listenForRevocations(primary, onNotice);
        }
        return new Watch() {
            @Override
            public CompletionStage<Void> active() {
                List<CompletableFuture<Void>> all = revocationWatches.values().stream()
                        .map(w -> w.active().toCompletableFuture()).toList();
                return CompletableFuture.anyOf(all.toArray(new CompletableFuture<?>[0])).thenApply(any -> null);
            }

            @Override
            public void close() {
                revocationListener = null;
                List<Watch> open = new ArrayList<>(revocationWatches.values());
                revocationWatches.clear();
                open.forEach(Watch::close);
            }
        };
    }

    private void listenForRevocations(String primary, Consumer<String> onNotice) {
        revocationWatches.computeIfAbsent(primary, p -> {
            try {
                return node(p).subscribeMessages(LockScripts.REVOKED_CHANNEL, onNotice);
            } catch (IllegalStateException closedNode) {
                return Watch.NONE;
            }
        });
    }

    /** The node at {@code address} gave {@code channel} away (or refused it): its watches there move to the slot's owner. */
    private void channelMoved(String address, String channel) {
        for (ShardWatch watch : watches) {
            if (watch.channel.equals(channel) && address.equals(watch.address())) {
                schedule(watch, true);
            }
        }
    }

    private void schedule(ShardWatch watch, boolean again) {
        try {
            mover.execute(() -> {
                refresh(map);
                watch.attach(again);
                watch.watch.listener().run(); // a release during the move may have gone unheard
            });
        } catch (RejectedExecutionException closing) {
            // closed meanwhile
        }
    }

    /** A shard channel's subscription on the node that serves its slot, moved with the slot. */
    private final class ShardWatch {
        final String channel;
        final int slot;
        final MovableWatch watch;

        ShardWatch(String channel, int slot, Runnable onMessage) {
            this.channel = channel;
            this.slot = slot;
            this.watch = new MovableWatch(onMessage, () -> watches.remove(this));
        }

        /** @return the address of the node it is subscribed on, or null */
        String address() {
            return (String) watch.where();
        }

        /**
         * Subscribes on the slot's owner now, and closes the subscription on the node before.
         *
         * @param again true if the node gave the channel away: subscribe even if the map still names it
         */
        void attach(boolean again) {
            SlotMap current = map;
            String owner = current == null ? null : current.owners()[slot];
            if (owner == null) {
                watch.unavailable(new BackendUnavailableException(settings.seeds().get(0).endpoint(),
                        "no node serves the slot of " + channel, null));
                return;
            }
            if (!again && owner.equals(address()) && watch.subscribed()) {
                return;
            }
            watch.moveTo(owner, listener -> node(owner).subscribeSharded(channel, listener, moved -> channelMoved(owner, moved)));
        }
    }

    /** Closes every node's connections and subscriptions. Idempotent. */
    @Override
    public void close() {
        closed = true;
        List<ShardWatch> open = new ArrayList<>(watches);
        open.forEach(w -> w.watch.close());
        revocationWatches.clear();
        mover.shutdownNow();
        synchronized (refreshing) {
            map = null;
        }
        List<RedisNode> all = new ArrayList<>(nodes.values());
        nodes.clear();
        all.forEach(RedisNode::close);
    }
}
