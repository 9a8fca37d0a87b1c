package io.distlock.redis.support;

import io.distlock.LockException;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Scripts sent to one {@link RedisNode} whose replies have not been read yet: the split form of a
 * round trip ({@link RedisNode#send}), so that one thread can have N nodes working at once.
 *
 * <p>The connection is written and flushed when this is created; {@link #await(long)} reads the
 * replies with the socket timeout set to what is left until the caller's deadline, so a hung node
 * costs at most that. A connection that timed out is discarded, never given back (neither kept as
 * the node's hot connection nor pooled): its late reply would be read as the answer to someone
 * else's command. A connection found broken
 * for another reason (the server restarted) is replaced and the calls sent once more, if the
 * deadline allows: every lock script is idempotent for its owner token. A server that lost the
 * scripts ({@code NOSCRIPT}) gets the call again as {@code EVAL}, which also reloads it.
 *
 * <p>Not thread-safe: one thread sends and awaits.
 */
public final class PendingReply {

    /** One pipelined call: a script, or a plain command. */
    public sealed interface Call permits ScriptCall, CommandCall {
    }

    /**
     * A native command, such as {@code SET key value NX PX ms GET}: no Lua, the cheapest a server can do.
     *
     * @param command the command's name, one Jedis knows ({@code SET}, {@code PTTL}, ...)
     * @param args    its arguments
     */
    public record CommandCall(String command, List<String> args) implements Call {
        /**
         * @param command the command's name
         * @param args    its arguments
         * @throws IllegalArgumentException if Jedis does not know the command
         */
        public CommandCall {
            Protocol.Command.valueOf(command);
            args = List.copyOf(args);
        }
    }

    /**
     * One script invocation.
     *
     * @param script the script
     * @param keys   its keys
     * @param args   its arguments
     */
    public record ScriptCall(RedisScript script, List<String> keys, List<String> args) implements Call {
        /**
         * @param script the script
         * @param keys   its keys
         * @param args   its arguments
         */
        public ScriptCall {
            Objects.requireNonNull(script, "script");
            keys = List.copyOf(keys);
            args = List.copyOf(args);
        }
    }

    /**
     * What {@code INFO} said about the server, on a new connection.
     *
     * @param runId         the server's random id, new on every start
     * @param uptimeSeconds seconds since the server started
     * @param role          {@code master} or {@code slave}
     */
    public record ServerInfo(String runId, long uptimeSeconds, String role) {
        static ServerInfo parse(String info) {
            String runId = null;
            long uptime = -1;
            String role = null;
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("run_id:")) {
                    runId = line.substring(7).strip();
                } else if (line.startsWith("uptime_in_seconds:")) {
                    uptime = Long.parseLong(line.substring(18).strip());
                } else if (line.startsWith("role:")) {
                    role = line.substring(5).strip();
                }
            }
            if (runId == null || uptime < 0) {
                throw new LockException("the server's INFO has no run_id or uptime_in_seconds");
            }
            return new ServerInfo(runId, uptime, role == null ? "master" : role);
        }
    }

    /**
     * The replies, in the order of the calls.
     *
     * @param values     one per call: the script's reply, or the {@link LockException} its error became
     * @param serverInfo the server's INFO, if it was asked for and the connection was new
     */
    public record Replies(List<Object> values, Optional<ServerInfo> serverInfo) {
        /**
         * @param i the call's index
         * @return the reply of call {@code i}
         * @throws LockException if the server answered that call with an error (say, {@code WRONGTYPE})
         */
        public Object value(int i) {
            Object value = values.get(i);
            if (value instanceof LockException e) {
                throw e;
            }
            return value;
        }
    }

    /**
     * Calls encoded for the wire once, to be sent to many nodes: a fan-out over N nodes then
     * encodes (and allocates) each argument once rather than N times. Immutable once built.
     */
    public static final class Batch {
        private final List<Call> calls;
        private final CommandArguments[] encoded;

        private Batch(List<? extends Call> calls) {
            this.calls = List.copyOf(calls);
            this.encoded = new CommandArguments[this.calls.size()];
            for (int i = 0; i < encoded.length; i++) {
                if (this.calls.get(i) instanceof ScriptCall script) {
                    encoded[i] = new CommandArguments(Protocol.Command.EVALSHA).addObjects((Object[]) arguments(script.script().sha1(), script));
                } else {
                    CommandCall command = (CommandCall) this.calls.get(i);
                    encoded[i] = new CommandArguments(Protocol.Command.valueOf(command.command())).addObjects(command.args());
                }
            }
        }

        /**
         * @param calls the scripts and commands to run, pipelined in order
         * @return them, encoded
         */
        public static Batch of(List<? extends Call> calls) {
            return new Batch(calls);
        }

        /** @return the calls, in order */
        public List<Call> calls() {
            return calls;
        }
    }

    private final RedisNode node;
    private final String operation;
    private final boolean serverInfo;
    private final Batch batch;
    private final List<Call> calls;
    private FlushableConnection connection;
    private boolean infoAsked;
    private RuntimeException failure;
    private RedisFailure failureKind;
    /** Whether the last {@link #write()} got a connection: false when the connect itself failed. */
    private boolean connected;
    /** Whether any {@link #write()} got a connection: then the calls may have reached the server. */
    private boolean carried;
    private boolean awaited;
    /**
     * The write of {@link #sendConnecting}, done on a thread of its own; null for {@link #send}. Its
     * completion publishes what the write set (the connection, a failure) to the awaiting thread.
     */
    private CompletableFuture<Void> writing;
    /** Guarded by this: the awaiter gave up on a write still under way; the write drops its connection. */
    private boolean abandoned;
    /** Guarded by this: {@link #sendConnecting}'s write is done (what it set is visible to whoever holds this after). */
    private boolean writeDone;

    private PendingReply(RedisNode node, String operation, boolean serverInfo, Batch batch) {
        this.node = node;
        this.operation = operation;
        this.serverInfo = serverInfo;
        this.batch = batch;
        this.calls = batch.calls;
    }

    static PendingReply send(RedisNode node, String operation, boolean serverInfo, Batch batch) {
        PendingReply pending = new PendingReply(node, operation, serverInfo, Objects.requireNonNull(batch, "batch"));
        pending.write();
        return pending;
    }

    static PendingReply sendConnecting(RedisNode node, String operation, boolean serverInfo, Batch batch) {
        PendingReply pending = new PendingReply(node, operation, serverInfo, Objects.requireNonNull(batch, "batch"));
        CompletableFuture<Void> written = new CompletableFuture<>();
        pending.writing = written;
        Thread connecting = new Thread(() -> {
            try {
                pending.write();
            } finally {
                synchronized (pending) {
                    pending.writeDone = true;
                    if (pending.abandoned) {
                        pending.discardConnection(); // nobody reads its replies: never back to the pool
                    }
                }
                written.complete(null);
            }
        }, "distlock-redis-connect-" + node.endpoint());
        connecting.setDaemon(true);
        connecting.start();
        return pending;
    }

    /**
     * Waits for {@link #sendConnecting}'s write until {@code deadlineNanos}.
     *
     * @return true if it is done; false if it is still under way (it then drops what it connects)
     */
    private boolean written(long deadlineNanos) {
        try {
            writing.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return doneOrAbandoned();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return doneOrAbandoned();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the write to " + node.endpoint() + " failed", e.getCause()); // write() catches what it expects
        }
    }

    private synchronized boolean doneOrAbandoned() {
        abandoned = !writeDone;
        return writeDone;
    }

    /** @return the node the calls went to */
    public RedisNode node() {
        return node;
    }

    private void write() {
        try {
            connected = false;
            connection = node.borrowToSend();
            connected = true;
            carried = true;
            infoAsked = serverInfo && !connection.serverInfoSeen;
            if (infoAsked) {
                connection.sendCommand(Protocol.Command.INFO);
            }
            List<RedisScript> loaded = connection.scriptSent ? List.of() : new ArrayList<>(1);
            for (int i = 0; i < batch.encoded.length; i++) {
                if (!connection.scriptSent && calls.get(i) instanceof ScriptCall script && !loaded.contains(script.script())) {
                    // Each script's first call on a new connection goes as EVAL: see FlushableConnection#scriptSent.
                    connection.sendCommand(Protocol.Command.EVAL, arguments(script.script().source(), script));
                    loaded.add(script.script());
                } else {
                    connection.sendCommand(batch.encoded[i]); // only read: one encoding serves every node
                }
            }
            connection.scriptSent |= !loaded.isEmpty();
            connection.flushNow();
        } catch (JedisException | IllegalStateException | RedisFailure.NotConnected e) {
            failure = e;
            discardConnection();
        }
    }

    /**
     * Reads the replies, waiting at most until {@code deadlineNanos}.
     *
     * @param deadlineNanos a {@link System#nanoTime()} reading
     * @return the replies
     * @throws io.distlock.BackendUnavailableException if the node could not be reached or did not
     *                                                 answer in time (naming it)
     * @throws LockException                           if it refused (credentials, ACL)
     * @throws IllegalStateException                   if awaited twice, or the node was closed
     */
    public Replies await(long deadlineNanos) {
        if (awaited) {
            throw new IllegalStateException("replies from " + node.endpoint() + " were already read");
        }
        awaited = true;
        if (writing != null && !written(deadlineNanos)) {
            // Still connecting (a TLS handshake nobody answers): nothing was sent, and no more time is left.
            failureKind = RedisFailure.TIMEOUT;
            node.failed(failureKind);
            throw node.translate(operation, new JedisConnectionException("no connection within the deadline: the connect"
                    + " or its TLS handshake was still under way", new SocketTimeoutException("connect")));
        }
        for (boolean resent = false; ; resent = true) {
            if (failure == null) {
                try {
                    return read(deadlineNanos);
                } catch (JedisException | IllegalStateException e) {
                    failure = e;
                    discardConnection();
                }
            }
            failureKind = RedisFailure.of(failure);
            // Only a connection that broke is worth a second try (a pooled one may be left over from a
            // server process that has restarted since); a timeout or a failed connect is not.
            if (resent || !connected || failureKind != RedisFailure.CONNECTION_LOST || node.isClosed()
                    || System.nanoTime() - deadlineNanos >= 0) {
                node.failed(failureKind);
                throw node.translate(operation, failure);
            }
            // A pooled connection was dead (the server restarted): its idle siblings are too.
            node.clearIdle();
            failure = null;
            write();
        }
    }

    private Replies read(long deadlineNanos) {
        connection.setSoTimeout(millisLeft(deadlineNanos));
        Optional<ServerInfo> info = Optional.empty();
        if (infoAsked) {
            info = Optional.of(ServerInfo.parse(text(connection.getOne())));
            connection.serverInfoSeen = true;
        }
        List<Object> values = new ArrayList<>(calls.size());
        List<Integer> noScript = List.of(); // allocated only when a server lost a script
        for (int i = 0; i < calls.size(); i++) {
            try {
                values.add(connection.getOne());
            } catch (JedisDataException e) {
                if (RedisFailure.of(e) == RedisFailure.NO_SCRIPT) {
                    noScript = noScript.isEmpty() ? new ArrayList<>() : noScript;
                    noScript.add(values.size());
                }
                values.add(e); // read on: every reply must be taken off the connection
            }
        }
        if (!noScript.isEmpty()) {
            resendUnknownScripts(noScript, values);
        }
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) instanceof JedisDataException e) {
                RuntimeException translated = node.translate(operation, e);
                values.set(i, translated instanceof LockException ? translated : new LockException(translated.getMessage(), e));
            }
        }
        connection.setSoTimeout(node.operationTimeoutMillis());
        node.giveBack(connection);
        connection = null;
        return new Replies(values, info);
    }

    /**
     * @return true if the calls may have reached the server: a connection carried them (whatever
     *         happened then); false if none could be had (nothing was sent)
     */
    public boolean mayHaveReachedServer() {
        return carried;
    }

    /**
     * @return what the failure {@link #await} threw was, by type; empty if it did not fail (or was
     *         not awaited yet)
     */
    public Optional<RedisFailure> failure() {
        return java.util.Optional.ofNullable(failureKind);
    }

    /**
     * The server lost the scripts of the calls at {@code indexes} (restarted, flushed): sends them
     * again in one pipeline, each script's first call as {@code EVAL} — which runs it and puts it
     * back into the server's cache — and the rest as {@code EVALSHA}, which the server runs after
     * that {@code EVAL}. A batch of 10,000 renewals costs one more round trip, not 10,000.
     *
     * <p>A {@code WAIT} pipelined after the first of them is sent again too, after them, and its
     * new reply replaces the first: {@code WAIT} counts the replicas that acknowledged the writes
     * this connection sent <em>before</em> it, and the first one ran before the scripts that are
     * only now written. Its first reply would confirm a replication that never included them.
     */
    private void resendUnknownScripts(List<Integer> indexes, List<Object> values) {
        List<Integer> resent = new ArrayList<>(indexes);
        for (int i = indexes.get(0) + 1; i < calls.size(); i++) {
            if (calls.get(i) instanceof CommandCall command && command.command().equals("WAIT")) {
                resent.add(i);
            }
        }
        List<RedisScript> reloaded = new ArrayList<>(1);
        for (int i : resent) {
            if (!(calls.get(i) instanceof ScriptCall call)) {
                connection.sendCommand(batch.encoded[i]); // a WAIT, after the scripts
            } else if (reloaded.contains(call.script())) {
                connection.sendCommand(batch.encoded[i]);
            } else {
                connection.sendCommand(Protocol.Command.EVAL, arguments(call.script().source(), call));
                reloaded.add(call.script());
            }
        }
        connection.flushNow();
        for (int i : resent) {
            try {
                values.set(i, connection.getOne());
            } catch (JedisDataException e) {
                values.set(i, e); // read on: every reply must be taken off the connection
            }
        }
    }

    private void discardConnection() {
        if (connection != null) {
            connection.setBroken(); // never back to the pool: a late reply may still arrive on it
            try {
                connection.close();
            } catch (JedisException e) {
                // The pool may try to replace it at once, and fail the same way: it is gone either way.
            } finally {
                connection = null;
            }
        }
    }

    private static String[] arguments(String scriptOrSha, ScriptCall call) {
        String[] out = new String[2 + call.keys().size() + call.args().size()];
        out[0] = scriptOrSha;
        out[1] = Integer.toString(call.keys().size());
        int i = 2;
        for (String key : call.keys()) {
            out[i++] = key;
        }
        for (String arg : call.args()) {
            out[i++] = arg;
        }
        return out;
    }

    private static int millisLeft(long deadlineNanos) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        // At least 1 ms: 0 would mean "wait forever", and a reply may already be in the buffer.
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, left));
    }

    private static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    @Override
    public String toString() {
        return "PendingReply[" + node.endpoint() + ", " + operation + (awaited ? ", read" : "") + "]";
    }
}
