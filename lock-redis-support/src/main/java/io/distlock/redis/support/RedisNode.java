package io.distlock.redis.support;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The per-node lock primitive: one Redis server, a small connection pool, the lock scripts and
 * release notifications. It knows nothing of quorums or waiting; the single-Redis driver uses one
 * node, Redlock N of them, Redis+WAIT pipelines a {@code WAIT} after its scripts ({@link #send}).
 *
 * <p><b>Failures</b>, in every method: {@link BackendUnavailableException} (naming
 * {@code host:port}) when the server cannot be reached or does not answer within the timeouts;
 * {@link io.distlock.AuthenticationException} when it refuses the credentials or the TLS handshake
 * fails; {@link io.distlock.AccessDeniedException} when the ACL refuses the user a key, channel or
 * command; {@link LockException} with the server's message when it answers with another error (a
 * key of the wrong type). No message contains the password.
 *
 * <p>Thread-safe. Each operation is one round trip on a pooled connection ({@code EVALSHA}; a
 * {@code SCRIPT LOAD} only after {@code NOSCRIPT}). A connection found broken (the server
 * restarted) is replaced and the operation retried once, which is safe because every script is
 * idempotent for its owner token; a timeout is never retried.
 */
public final class RedisNode implements RedisKeyspace {

    /** Renewals sent per pipelined round trip; bounds the memory of one batch. */
    static final int PIPELINE_CHUNK = 4096;

    /**
     * The outcome of one acquire script.
     *
     * @param granted          true if the token now holds the lock
     * @param fence            the fencing token of the grant (the counter after {@code INCR}), if granted
     * @param holderPttlMillis if busy, the holder's remaining time in ms ({@code -1}: no expiry)
     * @param storedPermits    if a semaphore's permit was refused because its holders use another
     *                         count, that count; else 0
     */
    public record Acquired(boolean granted, long fence, long holderPttlMillis, int storedPermits) {

        /**
         * Granted or busy.
         *
         * @param granted          true if the token now holds the lock
         * @param fence            the fencing token of the grant, if granted
         * @param holderPttlMillis if busy, the holder's remaining time in ms
         */
        public Acquired(boolean granted, long fence, long holderPttlMillis) {
            this(granted, fence, holderPttlMillis, 0);
        }

        /**
         * @param storedPermits the count the semaphore's holders use
         * @return a permit refused for another count (nothing was granted or stored)
         */
        public static Acquired refusedFor(int storedPermits) {
            return new Acquired(false, 0, -1, storedPermits);
        }

        /** @return true if a permit was refused for another count ({@link #storedPermits()}) */
        public boolean refused() {
            return storedPermits > 0;
        }
    }

    /**
     * One entry of {@link #extendAll}.
     *
     * @param name        the lock name
     * @param ownerToken  the token that must still hold it
     * @param leaseMillis the new expiry, in ms from now
     */
    public record Extension(String name, String ownerToken, long leaseMillis) {
    }

    private final RedisEndpoint endpoint;
    private final JedisClientConfig config;
    private final ConnectionPool pool;
    /**
     * The connection the split form ({@link #send}) used last, kept out of the pool: a fan-out
     * client calls every node once per operation from one thread, and a pool borrow and return
     * (locks, idle-queue and state bookkeeping) cost more than the rest of the client's work per
     * node. Anyone finding it empty borrows from the pool as before, so concurrent callers still
     * get a connection each. Only healthy connections with every reply read are put here.
     */
    private final AtomicReference<FlushableConnection> hot = new AtomicReference<>();
    private final Duration connectTimeout;
    private final Duration operationTimeout;
    /** For a node of a fan-out: whether it is reachable, and its background reconnect; else null. */
    private final Reconnector reconnector;
    private RedisSubscriber subscriber;
    /** The sharded subscriber ({@code SSUBSCRIBE}) of a Redis Cluster node, made on first use; else null. */
    private RedisSubscriber shardedSubscriber;
    private volatile boolean closed;

    // ssl(boolean) and sslSocketFactory are deprecated in Jedis 8 in favour of SslOptions; they are
    // used here because their behaviour (host-name verification on by default) is the measured one.
    @SuppressWarnings("deprecation")
    private RedisNode(RedisEndpoint endpoint, Duration connectTimeout, Duration operationTimeout, Duration handshakeTimeout,
                      int poolSize, boolean fanOut) {
        this.endpoint = endpoint;
        this.reconnector = fanOut ? new Reconnector(this) : null;
        this.connectTimeout = connectTimeout;
        this.operationTimeout = operationTimeout;
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(connectTimeout))
                .socketTimeoutMillis(millis(operationTimeout))
                .database(endpoint.database())
                .autoNegotiateProtocol(false) // the server default, RESP2: no HELLO round trip per connection
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED); // no CLIENT SETINFO round trips either
        if (endpoint.hasCredentials()) {
            // Read at each new connection (a pool's, the subscriber's, a reconnect): a rotated secret works.
            config.credentialsProvider(RedisFailure.credentialsProvider(endpoint.credentialsSupplier()));
        }
        if (endpoint.tls()) {
            // No sslParameters: Jedis then verifies the host name itself (HTTPS endpoint identification).
            config.ssl(true);
            javax.net.ssl.SSLSocketFactory factory = RedisTls.socketFactory(endpoint);
            if (factory != null) {
                config.sslSocketFactory(factory);
            }
        }
        if (endpoint.option("clientName") != null) {
            config.clientName(endpoint.option("clientName"));
        }
        this.config = config.build();
        GenericObjectPoolConfig<Connection> poolConfig = new GenericObjectPoolConfig<>();
        poolConfig.setMaxTotal(poolSize);
        poolConfig.setMaxIdle(poolSize);
        poolConfig.setMinIdle(0);
        poolConfig.setBlockWhenExhausted(true);
        poolConfig.setMaxWait(operationTimeout);
        poolConfig.setTestOnBorrow(false); // a PING per borrow would double the round trips
        poolConfig.setJmxEnabled(false);
        // Connections that can be flushed without a read, for the split form (send, then read later).
        this.pool = new ConnectionPool(new FlushableConnection.Factory(new HostAndPort(endpoint.host(), endpoint.port()),
                this.config, millis(handshakeTimeout)), poolConfig);
    }

    /**
     * Connects and checks the server answers ({@code PING}), authenticated and on the right database.
     *
     * @param endpoint         the server
     * @param connectTimeout   bound on establishing a connection
     * @param operationTimeout bound on each reply
     * @param poolSize         most connections held at once
     * @return the connected node
     * @throws BackendUnavailableException if the server cannot be reached
     * @throws LockException               if it refuses the credentials or the database
     */
    public static RedisNode connect(RedisEndpoint endpoint, Duration connectTimeout, Duration operationTimeout,
                                    int poolSize) {
        Objects.requireNonNull(endpoint, "endpoint");
        RedisNode node = new RedisNode(endpoint, connectTimeout, operationTimeout, handshake(connectTimeout, operationTimeout),
                poolSize, false);
        try {
            node.withConnection("connect", Jedis::ping);
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * Creates a node without checking the server: for backends that must tolerate a node being
     * down when they start (Redlock). Nothing is connected until the first operation.
     *
     * @param endpoint         the server
     * @param connectTimeout   bound on establishing a connection
     * @param operationTimeout bound on each reply, unless a call gives its own deadline
     * @param poolSize         most connections held at once
     * @return the node
     */
    public static RedisNode open(RedisEndpoint endpoint, Duration connectTimeout, Duration operationTimeout,
                                 int poolSize) {
        return new RedisNode(Objects.requireNonNull(endpoint, "endpoint"), connectTimeout, operationTimeout,
                handshake(connectTimeout, operationTimeout), poolSize, false);
    }

    /**
     * Creates a node of a fan-out (Redlock), without checking the server: its connections are kept
     * between operations, and once a connect or a reply fails the split form ({@link #send}) sends
     * nothing to it — failing at once with {@link RedisFailure#NOT_CONNECTED}, no connect inside the
     * caller's deadline — while a daemon thread reconnects it in the background (see
     * {@link Reconnector}). The first operation connects.
     *
     * @param endpoint         the server
     * @param connectTimeout   bound on establishing a connection
     * @param operationTimeout bound on each reply, unless a call gives its own deadline
     * @param poolSize         most connections held at once
     * @return the node
     */
    public static RedisNode openForFanOut(RedisEndpoint endpoint, Duration connectTimeout, Duration operationTimeout,
                                          int poolSize) {
        return openForFanOut(endpoint, connectTimeout, operationTimeout, handshake(connectTimeout, operationTimeout), poolSize);
    }

    /**
     * {@link #openForFanOut(RedisEndpoint, Duration, Duration, int)} with its own bound on a TLS
     * handshake: a fan-out's per-node timeout is too short for a JVM's first handshakes, which are
     * part of connecting, not of an operation.
     *
     * @param endpoint         the server
     * @param connectTimeout   bound on establishing the TCP connection
     * @param operationTimeout bound on each reply, unless a call gives its own deadline
     * @param handshakeTimeout bound on a TLS handshake (at least the two others are allowed anyway)
     * @param poolSize         most connections held at once
     * @return the node
     */
    public static RedisNode openForFanOut(RedisEndpoint endpoint, Duration connectTimeout, Duration operationTimeout,
                                          Duration handshakeTimeout, int poolSize) {
        return new RedisNode(Objects.requireNonNull(endpoint, "endpoint"), connectTimeout, operationTimeout,
                handshake(handshakeTimeout, operationTimeout), poolSize, true);
    }

    /** A TLS handshake's bound: the longer of the two (Jedis alone would give it the read timeout). */
    private static Duration handshake(Duration connectTimeout, Duration operationTimeout) {
        return connectTimeout.compareTo(operationTimeout) >= 0 ? connectTimeout : operationTimeout;
    }

    /**
     * The split form of a round trip, for a fan-out over many nodes from one thread: writes the
     * calls to a pooled connection and flushes it now, returning at once; the replies are read by
     * {@link PendingReply#await(long)}. Send to every node first, then await each: all nodes work
     * at the same time and the caller pays about one round trip. Never throws: a failure to send
     * is reported by {@code await}.
     *
     * @param operation  what is being done, for messages (no secrets)
     * @param serverInfo true to also ask for {@code INFO} when the connection is new (never used
     *                   before), so that the caller learns of a server restart: every connection
     *                   after a restart is new
     * @param calls      the scripts and commands to run, pipelined in order
     * @return the pending replies; await them exactly once
     */
    public PendingReply send(String operation, boolean serverInfo, List<? extends PendingReply.Call> calls) {
        return send(operation, serverInfo, PendingReply.Batch.of(calls));
    }

    /**
     * {@link #send(String, boolean, List)} with calls encoded once, for sending the same calls to
     * many nodes.
     *
     * @param operation  what is being done, for messages (no secrets)
     * @param serverInfo as for {@link #send(String, boolean, List)}
     * @param batch      the encoded calls
     * @return the pending replies; await them exactly once
     */
    public PendingReply send(String operation, boolean serverInfo, PendingReply.Batch batch) {
        return PendingReply.send(this, operation, serverInfo, batch);
    }

    /**
     * Sends {@code calls} to {@code endpoint} on a connection of their own, opened and closed here,
     * whose connect, TLS handshake, {@code AUTH} and replies are all bounded by {@code deadlineNanos}:
     * for asking one of several servers in turn (Sentinels, cluster seeds), where a frozen one must
     * leave the others their time. A kept node gives its connect and its handshake a whole timeout each.
     *
     * @param endpoint      the server
     * @param operation     what is being done, for messages (no secrets)
     * @param calls         the calls, pipelined in order
     * @param deadlineNanos when the answer must have come, connecting included
     * @return the replies
     * @throws BackendUnavailableException if it cannot be reached or does not answer in time
     * @throws LockException               if it refuses (credentials, ACL)
     */
    public static PendingReply.Replies askWithin(RedisEndpoint endpoint, String operation, List<? extends PendingReply.Call> calls,
                                                 long deadlineNanos) {
        Duration turn = Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), deadlineNanos - System.nanoTime()));
        try (RedisNode probe = open(endpoint, turn, turn, 1)) {
            return probe.send(operation, false, calls).await(deadlineNanos);
        }
    }

    /**
     * {@link #send(String, boolean, List)} with no calls, whose write — a connect, its TLS handshake
     * and {@code AUTH} when the node has no connection yet — runs on a short-lived thread of its own:
     * for a client's first fan-out, so that a node that accepts and never finishes its handshake does
     * not hold up the connects of the nodes after it. {@link PendingReply#await} waits for the write
     * within its deadline; a write still under way then is reported as a timeout, and the connection
     * it makes is dropped.
     *
     * @param operation  what is being done, for messages (no secrets)
     * @param serverInfo as for {@link #send(String, boolean, List)}
     * @return the pending replies; await them exactly once
     */
    public PendingReply sendConnecting(String operation, boolean serverInfo) {
        return PendingReply.sendConnecting(this, operation, serverInfo, PendingReply.Batch.of(List.of()));
    }

    /**
     * Borrows a connection for {@link PendingReply}: the hot one if free, else one from the pool.
     * The caller gives it back with {@link #giveBack} once every reply was read, or discards it
     * (broken, or a reply may still be on its way).
     */
    FlushableConnection borrow() {
        checkOpen();
        FlushableConnection connection = hot.getAndSet(null);
        return connection != null ? connection : (FlushableConnection) pool.getResource();
    }

    /**
     * {@link #borrow()} for the split form: on a node of a fan-out that is being reconnected,
     * nothing — not even a connect.
     *
     * @throws RedisFailure.NotConnected if the node is unreachable for now
     */
    FlushableConnection borrowToSend() {
        if (reconnector != null && !reconnector.reachable()) {
            checkOpen();
            throw new RedisFailure.NotConnected("Redis at " + endpoint + " is unreachable since a connect or a reply failed;"
                    + " it is being reconnected in the background, and nothing was sent to it");
        }
        return borrow();
    }

    /**
     * The split form's connect or reply failed for good: a node of a fan-out that timed out or
     * lost its connection is unreachable until it answers a background {@code PING}.
     */
    void failed(RedisFailure failure) {
        if (reconnector != null && (failure == RedisFailure.TIMEOUT || failure == RedisFailure.CONNECTION_LOST) && !closed) {
            reconnector.unreachable();
        }
    }

    /**
     * Takes back a connection whose replies were all read: kept hot if healthy and that place is
     * free, else returned to the pool (which destroys a broken one). Never throws: returning a
     * broken connection makes the pool open a replacement at once, which fails the same way while
     * the server is down — a failure that says nothing about the operation, already decided.
     */
    void giveBack(FlushableConnection connection) {
        if (!connection.isBroken() && !closed && hot.compareAndSet(null, connection)) {
            if (closed && hot.compareAndSet(connection, null)) {
                returnToPool(connection); // close() ran meanwhile and did not see it: the pool, closed, destroys it
            }
            return;
        }
        returnToPool(connection);
    }

    private static void returnToPool(FlushableConnection connection) {
        try {
            connection.close();
        } catch (JedisException e) {
            // The connection is gone either way; the next borrow finds out about the server.
        }
    }

    /** Drops every idle connection: after one was found broken, the others (same server restart) are too. */
    void clearIdle() {
        if (!closed) {
            dropHot();
            pool.clear();
        }
    }

    private void dropHot() {
        FlushableConnection connection = hot.getAndSet(null);
        if (connection != null) {
            connection.setBroken(); // destroyed, not pooled
            returnToPool(connection);
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** @return the per-reply bound connections go back to the pool with */
    int operationTimeoutMillis() {
        return millis(operationTimeout);
    }

    /** @return the bound on each reply */
    @Override
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** @return the server this node talks to */
    public RedisEndpoint endpoint() {
        return endpoint;
    }

    /** {@link #send} of the calls, then every reply awaited until {@code deadlineNanos}. */
    @Override
    public PendingReply.Replies sendTogether(String operation, List<? extends PendingReply.Call> calls, long deadlineNanos) {
        return send(operation, false, calls).await(deadlineNanos);
    }

    /** @return {@code host:port} */
    @Override
    public String describe() {
        return endpoint.toString();
    }

    /**
     * Runs the acquire script: {@code SET lockKey token NX PX leaseMillis}, then {@code INCR} the
     * fence and write the owner record ({@link LockScripts#ACQUIRE}).
     *
     * @param name        the lock name
     * @param ownerToken  the request's owner token
     * @param leaseMillis the lease time in ms, positive
     * @param owner       the owner description the grant's record carries
     * @return granted with the fence, or busy with the holder's remaining time
     * @throws LockException if a key has the wrong type (nothing was written)
     */
    public Acquired tryAcquire(String name, String ownerToken, long leaseMillis, String owner) {
        return acquired(run("acquire '" + name + "'", acquireCall(name, ownerToken, leaseMillis, owner)));
    }

    /**
     * @param name        the lock name
     * @param ownerToken  the request's owner token
     * @param leaseMillis the lease time in ms, positive
     * @param owner       the owner description the grant's record carries
     * @return the acquire of {@link #tryAcquire}, as a call for a pipeline
     */
    public static PendingReply.ScriptCall acquireCall(String name, String ownerToken, long leaseMillis, String owner) {
        return new PendingReply.ScriptCall(LockScripts.ACQUIRE,
                List.of(LockScripts.lockKey(name), LockScripts.fenceKey(name), LockScripts.abandonedKey(name, ownerToken),
                        LockScripts.ownerKey(name)),
                List.of(ownerToken, Long.toString(leaseMillis), owner));
    }

    /**
     * What an acquire reply says, decoded ({@link #tryAcquire} and the pipelined forms).
     *
     * @param reply the acquire script's reply
     * @return granted with the fence, or busy with the holder's remaining time
     */
    public static Acquired acquired(Object reply) {
        List<?> values = (List<?>) reply;
        long value = (Long) values.get(1);
        return (Long) values.get(0) == 1L ? new Acquired(true, value, 0) : new Acquired(false, 0, value);
    }

    /**
     * Compare-and-extend: sets the lock's expiry to {@code leaseMillis} if {@code ownerToken} holds it.
     *
     * @param name        the lock name
     * @param ownerToken  the owner token
     * @param leaseMillis the new lease time in ms, positive
     * @return extended; lost, with the operator's reason if the lease was revoked
     */
    public ExtendOutcome extend(String name, String ownerToken, long leaseMillis) {
        return extendOutcome(run("extend '" + name + "'", extendCall(name, ownerToken, leaseMillis)));
    }

    /**
     * @param name        the lock name
     * @param ownerToken  the owner token
     * @param leaseMillis the new lease time in ms, positive
     * @return the compare-and-extend of {@link #extend}, as a call for a pipeline or a fan-out
     */
    public static PendingReply.ScriptCall extendCall(String name, String ownerToken, long leaseMillis) {
        return new PendingReply.ScriptCall(LockScripts.EXTEND,
                List.of(LockScripts.lockKey(name), LockScripts.ownerKey(name)),
                List.of(ownerToken, Long.toString(leaseMillis), LockScripts.revokedKey(name, ownerToken)));
    }

    /**
     * What an extend reply says ({@link LockScripts#EXTEND}): 1 extended; a text the revocation's
     * reason; anything else lost.
     *
     * @param reply the extend script's reply
     * @return the outcome
     */
    public static ExtendOutcome extendOutcome(Object reply) {
        if (one(reply)) {
            return ExtendOutcome.extended();
        }
        if (reply instanceof byte[] || reply instanceof String) {
            return ExtendOutcome.revoked(LockSnapshot.text(reply));
        }
        return ExtendOutcome.lost();
    }

    /**
     * Extends many locks in one pipelined round trip (per {@value #PIPELINE_CHUNK} entries), each
     * with the same compare-and-extend as {@link #extend}.
     *
     * @param extensions what to extend
     * @return one result per extension, in order
     */
    public List<ExtendOutcome> extendAll(List<Extension> extensions) {
        List<PendingReply.ScriptCall> calls = new ArrayList<>(extensions.size());
        for (Extension e : extensions) {
            calls.add(extendCall(e.name(), e.ownerToken(), e.leaseMillis()));
        }
        List<ExtendOutcome> results = new ArrayList<>(calls.size());
        for (Object reply : runAll("renew " + extensions.size() + " leases", calls)) {
            results.add(extendOutcome(reply));
        }
        return results;
    }

    /**
     * Runs many scripts pipelined: one round trip per {@value #PIPELINE_CHUNK} calls, each chunk
     * bounded by the operation timeout. A server that lost the scripts gets them again in the same
     * way, pipelined ({@link PendingReply}), never one round trip per call.
     *
     * @param operation what is being done, for messages (no secrets)
     * @param calls     the scripts to run, in order
     * @return one reply per call, in order
     * @throws BackendUnavailableException if a chunk got no answer in time (the calls of the chunks
     *                                     before it have run; those after it were not sent)
     * @throws LockException               if the server answered a call with an error
     */
    @Override
    public List<Object> runAll(String operation, List<? extends PendingReply.Call> calls) {
        List<Object> replies = new ArrayList<>(calls.size());
        for (int from = 0; from < calls.size(); from += PIPELINE_CHUNK) {
            List<? extends PendingReply.Call> chunk = calls.subList(from, Math.min(calls.size(), from + PIPELINE_CHUNK));
            PendingReply.Replies answered = send(operation, false, chunk).await(System.nanoTime() + operationTimeout.toNanos());
            for (int i = 0; i < chunk.size(); i++) {
                replies.add(answered.value(i));
            }
        }
        return replies;
    }

    /**
     * Compare-and-delete: deletes the lock if {@code ownerToken} holds it and publishes the release
     * on the lock's channel, atomically.
     *
     * @param name       the lock name
     * @param ownerToken the owner token
     * @return true if this call deleted it
     */
    public boolean release(String name, String ownerToken) {
        return one(run("release '" + name + "'", releaseCall(name, ownerToken)));
    }

    /**
     * @param name       the lock name
     * @param ownerToken the owner token
     * @return the compare-and-delete of {@link #release}, as a call for a pipeline
     */
    public static PendingReply.ScriptCall releaseCall(String name, String ownerToken) {
        return new PendingReply.ScriptCall(LockScripts.RELEASE, List.of(LockScripts.lockKey(name), LockScripts.ownerKey(name)),
                List.of(ownerToken, LockScripts.releaseChannel(name)));
    }

    /**
     * Withdraws a request whose outcome is unknown: deletes the lock if {@code ownerToken} holds
     * it (announcing the release), and leaves a marker for {@code markerMillis} that makes a write
     * of the request arriving after this call take nothing ({@link LockScripts#ABANDON}).
     *
     * @param name         the lock name
     * @param ownerToken   the withdrawn request's owner token
     * @param markerMillis how long a late write of the request is refused, in ms, positive
     * @return true if this call deleted the lock
     */
    public boolean abandon(String name, String ownerToken, long markerMillis) {
        return one(run("clean up after an acquire of '" + name + "'", abandonCall(name, ownerToken, markerMillis)));
    }

    /**
     * @param name         the lock name
     * @param ownerToken   the withdrawn request's owner token
     * @param markerMillis how long a late write of the request is refused, in ms, positive
     * @return the withdrawal of {@link #abandon}, as a call for a pipeline
     */
    public static PendingReply.ScriptCall abandonCall(String name, String ownerToken, long markerMillis) {
        return new PendingReply.ScriptCall(LockScripts.ABANDON,
                List.of(LockScripts.lockKey(name), LockScripts.abandonedKey(name, ownerToken), LockScripts.ownerKey(name)),
                List.of(ownerToken, Long.toString(markerMillis), LockScripts.releaseChannel(name)));
    }

    /** Locks read per pipelined round trip by {@link #inspectAll}: {@value} × {@value LockSnapshot#CALLS} calls. */
    static final int INSPECT_CHUNK = 512;

    /** Keys a {@code SCAN} call looks at per round trip ({@link #scanLockNames}). */
    static final int SCAN_COUNT = 1000;

    /**
     * Reads who holds a lock, in one round trip ({@link LockSnapshot#calls}: {@code MULTI} of
     * {@code GET}s and a {@code PTTL}), without changing anything.
     *
     * @param name the lock name
     * @return the snapshot
     * @throws BackendUnavailableException if the server did not answer
     * @throws LockException               (an {@link io.distlock.AccessDeniedException} for an ACL refusal)
     */
    @Override
    public LockSnapshot inspect(String name) {
        return inspectAll(List.of(name)).get(0);
    }

    /**
     * {@link #inspect} for many locks, pipelined: one round trip per {@value #INSPECT_CHUNK} locks.
     *
     * @param names the lock names
     * @return one snapshot per name, in order
     */
    @Override
    public List<LockSnapshot> inspectAll(List<String> names) {
        List<LockSnapshot> snapshots = new ArrayList<>(names.size());
        for (int from = 0; from < names.size(); from += INSPECT_CHUNK) {
            List<String> chunk = names.subList(from, Math.min(names.size(), from + INSPECT_CHUNK));
            List<PendingReply.Call> calls = new ArrayList<>(chunk.size() * LockSnapshot.CALLS);
            chunk.forEach(name -> calls.addAll(LockSnapshot.calls(name)));
            String operation = chunk.size() == 1 ? "inspect '" + chunk.get(0) + "'" : "inspect " + chunk.size() + " locks";
            PendingReply.Replies replies = send(operation, false, calls).await(System.nanoTime() + operationTimeout.toNanos());
            for (int i = 0; i < chunk.size(); i++) {
                snapshots.add(LockSnapshot.parse(chunk.get(i), replies, i * LockSnapshot.CALLS, endpoint));
            }
        }
        return snapshots;
    }

    /**
     * The names of the locks whose lock key exists now and whose names start with {@code prefix}:
     * the first {@code limit} in name order. {@code SCAN} with {@code MATCH} and a {@code COUNT} of
     * {@value #SCAN_COUNT}, never {@code KEYS}: the server is never blocked for longer than one
     * batch, but the whole keyspace is walked, one round trip per {@value #SCAN_COUNT} keys, since
     * the first names in order may come last. Only {@code limit} names are kept meanwhile.
     *
     * @param prefix the names' prefix, possibly empty
     * @param limit  at most this many, positive
     * @return the names, in order
     */
    @Override
    public List<String> scanLockNames(String prefix, int limit) {
        String pattern = LockScripts.scanPattern(prefix);
        java.util.TreeSet<String> first = new java.util.TreeSet<>();
        redis.clients.jedis.params.ScanParams params = new redis.clients.jedis.params.ScanParams().match(pattern).count(SCAN_COUNT);
        String cursor = redis.clients.jedis.params.ScanParams.SCAN_POINTER_START;
        do {
            String from = cursor;
            redis.clients.jedis.resps.ScanResult<String> batch = withConnection("list the locks under '" + prefix + "'",
                    jedis -> jedis.scan(from, params));
            for (String key : batch.getResult()) {
                String name = LockScripts.nameOfLockKey(key);
                if (name != null && name.startsWith(prefix)) {
                    first.add(name);
                    if (first.size() > limit) {
                        first.pollLast();
                    }
                }
            }
            cursor = batch.getCursor();
        } while (!redis.clients.jedis.params.ScanParams.SCAN_POINTER_START.equals(cursor));
        return List.copyOf(first);
    }

    /**
     * Reads every hold of a read-write lock or a semaphore, in one round trip ({@link HoldSnapshot#calls}:
     * a {@code MULTI} of reads with the server's {@code TIME}), without changing anything.
     *
     * @param name      the primitive's name
     * @param primitive {@link io.distlock.Feature#READ_WRITE} or {@link io.distlock.Feature#SEMAPHORE}
     * @return the snapshot
     * @throws BackendUnavailableException if the server did not answer
     * @throws LockException               (an {@link io.distlock.AccessDeniedException} for an ACL refusal)
     */
    @Override
    public HoldSnapshot holds(String name, io.distlock.Feature primitive) {
        PendingReply.Replies replies = send("list the holds of " + HoldSnapshot.what(name, primitive), false,
                HoldSnapshot.calls(name, primitive)).await(System.nanoTime() + operationTimeout.toNanos());
        return HoldSnapshot.parse(name, primitive, replies, endpoint);
    }

    /**
     * What {@link LockScripts#REVOKE} ended.
     *
     * @param snapshot the lock as it was just before: holder's token, remaining time, owner record,
     *                 fence counter before the revoke
     */
    public record Revocation(LockSnapshot snapshot) {
    }

    /**
     * Revokes the lease holding {@code name}, atomically ({@link LockScripts#REVOKE}): marker,
     * fence, delete, notifications.
     *
     * @param name   the lock name
     * @param reason the operator's reason
     * @param fenced true to move the fence counter (a backend with fencing tokens)
     * @return what was revoked; null if nobody held the lock (nothing changed)
     * @throws BackendUnavailableException         if the server did not answer (the revoke may have happened)
     * @throws io.distlock.AccessDeniedException if the user may not write the revocation marker (or the lock)
     */
    @Override
    public Revocation revoke(String name, String reason, boolean fenced) {
        return revocation(name, run("revoke '" + name + "'", revokeCall(name, reason, fenced)));
    }

    /**
     * @param name   the lock name
     * @param reason the operator's reason
     * @param fenced true to move the fence counter
     * @return the revoke of {@link #revoke}, as a call for a pipeline (Redis + {@code WAIT}) or a fan-out (Redlock)
     */
    public static PendingReply.ScriptCall revokeCall(String name, String reason, boolean fenced) {
        return new PendingReply.ScriptCall(LockScripts.REVOKE,
                List.of(LockScripts.lockKey(name), LockScripts.ownerKey(name), LockScripts.fenceKey(name)),
                List.of(LockScripts.revokedPrefix(name), reason, Long.toString(LockScripts.REVOKED_MARKER_GRACE_MILLIS),
                        fenced ? "1" : "0", LockScripts.REVOKED_CHANNEL, LockScripts.releaseChannel(name), name));
    }

    /**
     * Decodes the revoke script's reply.
     *
     * @param name  the lock name
     * @param reply the reply
     * @return what was revoked, or null if nothing was held
     */
    public static Revocation revocation(String name, Object reply) {
        if (!(reply instanceof List<?> values) || values.isEmpty() || values.get(0) == null) {
            return null;
        }
        String token = LockSnapshot.text(values.get(0));
        OwnerRecord record = OwnerRecord.parse(values.size() > 1 ? LockSnapshot.text(values.get(1)) : null);
        if (record != null && !record.ownerToken().equals(token)) {
            record = null;
        }
        long pttl = values.size() > 2 && values.get(2) instanceof Long value ? value : -1;
        OptionalLong counter = OptionalLong.empty();
        if (values.size() > 3 && values.get(3) != null) {
            try {
                counter = OptionalLong.of(Long.parseLong(LockSnapshot.text(values.get(3))));
            } catch (NumberFormatException e) {
                // not a counter
            }
        }
        return new Revocation(new LockSnapshot(name, token, pttl, record, counter, false));
    }

    /**
     * Reads the revocation marker of a lease ({@link LockScripts#revokedKey}): proof that an
     * operator revoked it, which a published notice alone is not.
     *
     * @param name       the lock name
     * @param ownerToken the lease's owner token
     * @return the operator's reason, if the lease was revoked (and the marker still lives)
     */
    @Override
    public Optional<String> revocationReason(String name, String ownerToken) {
        return Optional.ofNullable(withConnection("check a revocation of '" + name + "'",
                jedis -> jedis.get(LockScripts.revokedKey(name, ownerToken))));
    }

    /**
     * Runs one script call on a pooled connection, as every single-call operation here does.
     *
     * @param operation what is being done, for messages (no secrets)
     * @param call      the script and its keys and arguments
     * @return the script's reply
     * @throws BackendUnavailableException if the server did not answer
     * @throws LockException               if it answered an error
     */
    @Override
    public Object eval(String operation, PendingReply.ScriptCall call) {
        return run(operation, call);
    }

    /** One script on a pooled connection (see {@link #withConnection}). */
    private Object run(String operation, PendingReply.ScriptCall call) {
        return withConnection(operation, jedis -> call.script().eval(jedis, call.keys(), call.args()));
    }

    /**
     * Calls {@code onChange} whenever the lock is released through {@link #release}, and once after
     * the notification connection recovers from a drop. Shares one subscriber connection and thread
     * per node, started on first use. Returns at once; the watch's {@link Watch#active()} completes
     * when the server has confirmed the subscription (exceptionally if the connection is down).
     *
     * @param name     the lock name
     * @param onChange cheap, non-blocking listener
     * @return the handle that stops the notifications
     */
    @Override
    public Watch watch(String name, Runnable onChange) {
        return subscribe(LockScripts.releaseChannel(name), onChange);
    }

    /** {@link #subscribeMessages} of {@value LockScripts#REVOKED_CHANNEL} on this server. */
    @Override
    public Watch subscribeRevocations(java.util.function.Consumer<String> onNotice) {
        return subscribeMessages(LockScripts.REVOKED_CHANNEL, onNotice);
    }

    /**
     * Calls {@code onMessage} on every message published on {@code channel} on this server, and
     * once after the notification connection recovers from a drop (a message may have been missed
     * meanwhile). The same shared subscriber connection and thread as {@link #watch}; for channels
     * other than a lock's, such as a Sentinel's {@code +switch-master}. Returns at once; the watch's
     * {@link Watch#active()} completes when the server has confirmed the subscription.
     *
     * @param channel   the channel
     * @param onMessage cheap, non-blocking listener; it is not told the message
     * @return the handle that stops the notifications
     * @throws IllegalStateException if this node is closed
     */
    @Override
    public Watch subscribe(String channel, Runnable onMessage) {
        Objects.requireNonNull(onMessage, "onMessage");
        return subscribeMessages(channel, message -> onMessage.run());
    }

    /**
     * {@link #subscribe}, telling the listener each message: called with the message's text, and
     * with null once after the notification connection recovers from a drop (messages may have
     * been missed meanwhile).
     *
     * @param channel   the channel
     * @param onMessage cheap, non-blocking listener
     * @return the handle that stops the notifications
     * @throws IllegalStateException if this node is closed
     */
    public Watch subscribeMessages(String channel, java.util.function.Consumer<String> onMessage) {
        RedisSubscriber s;
        synchronized (this) {
            checkOpen();
            if (subscriber == null) {
                subscriber = new RedisSubscriber(endpoint, config, operationTimeout);
            }
            s = subscriber;
        }
        return s.watch(channel, onMessage);
    }

    /**
     * {@link #subscribe} of a shard channel ({@code SSUBSCRIBE}, Redis 7) on this Redis Cluster
     * node, which must serve the channel's slot: a message {@code SPUBLISH}ed there reaches only
     * the shard's nodes, not the whole cluster. One sharded subscriber connection and thread per
     * node, made when the first such channel is watched. When the node stops serving the slot (a
     * migration, a failover) or refuses the channel ({@code MOVED}), {@code moved} is told the
     * channel — at most once per subscription, on the subscriber's thread — and the watch gets no
     * more messages here: its owner closes it and watches the channel on the node that serves it.
     *
     * @param channel   the shard channel (with the hash tag of the slot it belongs to)
     * @param onMessage cheap, non-blocking listener, also called once after a reconnect
     * @param moved     cheap, non-blocking; told a channel this node gave away. The same for every
     *                  call on this node: the first call's is kept
     * @return the handle that stops the notifications
     * @throws IllegalStateException if this node is closed
     */
    public Watch subscribeSharded(String channel, Runnable onMessage, java.util.function.Consumer<String> moved) {
        Objects.requireNonNull(onMessage, "onMessage");
        Objects.requireNonNull(moved, "moved");
        RedisSubscriber s;
        synchronized (this) {
            checkOpen();
            if (shardedSubscriber == null) {
                shardedSubscriber = new RedisSubscriber(endpoint, config, operationTimeout, moved);
            }
            s = shardedSubscriber;
        }
        return s.watch(channel, message -> onMessage.run());
    }

    /**
     * Runs {@code action} on a pooled connection, translating Jedis failures into distlock's
     * exceptions (see the class comment) and retrying once on a connection found broken.
     *
     * @param operation what is being done, for messages (no secrets)
     * @param action    the Redis calls
     * @param <T>       the result type
     * @return the action's result
     */
    public <T> T withConnection(String operation, Function<Jedis, T> action) {
        for (boolean retried = false; ; retried = true) {
            FlushableConnection connection;
            try {
                connection = borrow(); // the hot connection the batches use too, else a pooled one
            } catch (JedisException | IllegalStateException e) {
                throw translate(operation, e);
            }
            T result;
            try {
                result = action.apply(connection.facade());
            } catch (RuntimeException e) {
                connection.dropFacade();
                giveBack(connection);
                RedisFailure failure = RedisFailure.of(e);
                if (failure == RedisFailure.CONNECTION_LOST && !retried && !closed) {
                    // A pooled connection was dead (the server restarted): its idle siblings are too.
                    clearIdle();
                    continue;
                }
                throw e instanceof JedisException ? translate(operation, e) : e;
            }
            giveBack(connection);
            return result;
        }
    }

    /** Closes the pool and the subscriber. Idempotent. */
    @Override
    public void close() {
        RedisSubscriber s;
        RedisSubscriber sharded;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            s = subscriber;
            sharded = shardedSubscriber;
        }
        if (s != null) {
            s.close();
        }
        if (sharded != null) {
            sharded.close();
        }
        if (reconnector != null) {
            reconnector.close();
        }
        dropHot();
        pool.close();
    }

    @Override
    public String toString() {
        return "RedisNode[" + endpoint + (closed ? ", closed" : "") + "]";
    }

    /**
     * Maps a Jedis failure met on this node, or an error reply read from a pipeline, to the
     * contract's exceptions ({@link RedisFailure#translate}: the one place that decides).
     *
     * @param operation what was being done, for the message (no secrets)
     * @param e         the failure or error reply
     * @return the exception to throw
     */
    public RuntimeException translate(String operation, RuntimeException e) {
        return RedisFailure.translate(e, endpoint, operation, connectTimeout, operationTimeout);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the Redis connection to " + endpoint + " is closed");
        }
    }

    private static boolean one(Object reply) {
        return HoldCalls.one(reply);
    }

    private static int millis(Duration d) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }
}
