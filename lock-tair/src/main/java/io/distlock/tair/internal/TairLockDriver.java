package io.distlock.tair.internal;

import com.aliyun.tair.ModuleCommand;
import com.aliyun.tair.tairstring.TairString;
import com.aliyun.tair.tairstring.params.CasParams;
import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisFailure;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.spi.Attempt;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Watch;
import io.distlock.tair.internal.StrayWrites.ClientRef;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;

import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The Tair {@link LockDriver}: the single-Redis lock's keys on one {@link RedisNode} (its pool,
 * timeouts, failure translation and release notifications), with TairString's {@code CAS} and
 * {@code CAD} in place of the Lua scripts. Waiting, validity and renewal are the engine's.
 *
 * <ul>
 *   <li>acquire: {@code MULTI; SET key token NX PX lease GET; INCR fence; PTTL key; EXEC} in one
 *       round trip. The {@code INCR} runs on every attempt, busy ones too (a transaction has no
 *       condition); its value is a fencing token only when the {@code SET} took — the counter
 *       still only grows, so grants get increasing tokens. {@code GET} (Redis 7.0+ with {@code NX})
 *       answers the holder's token, which recognises a grant of this same request whose reply was
 *       lost, or {@code WRONGTYPE}; {@code PTTL} is the busy holder's time left.</li>
 *   <li>extend: {@code CAS key token token PX lease}, made monotone by the driver ({@link Hold});
 *       release: {@code CAD key token} and {@code PUBLISH} on the lock's channel, pipelined.</li>
 *   <li>late writes: see {@link StrayWrites}. A connection whose reply was given up is killed on
 *       the server before this driver's next command, and an abandon kills the connections still
 *       sending for its token before it deletes by token: a write still on its way then never
 *       runs, or ran before the delete. This replaces single Redis's abandoned marker, which needs
 *       a scripted acquire to check it.</li>
 * </ul>
 *
 * <p>The fencing token is best effort, as on single Redis (a restart without persistence or a
 * failover resets the counter). Thread-safe.
 */
public final class TairLockDriver implements LockDriver {

    private static final System.Logger LOG = System.getLogger(TairLockDriver.class.getName());

    /** Entries per pipelined round trip of {@link #extendAll} and {@link #releaseAll}. */
    private static final int PIPELINE_CHUNK = 4096;

    private final RedisNode node;
    /** One operation's whole budget: the reads of a write (its connection's id, the kills, the action) share it. */
    private final long operationTimeoutNanos;
    private final StrayWrites strays = new StrayWrites();
    /** The server's view of each pooled connection, learnt once per connection ({@code CLIENT INFO}). */
    private final Map<Connection, ClientRef> clients = Collections.synchronizedMap(new WeakHashMap<>());
    private final AtomicBoolean killRefusalLogged = new AtomicBoolean();
    /** Per owner token of a grant: the latest deadline a confirmed acquire or extension asked for. */
    private final Map<String, Hold> holds = new ConcurrentHashMap<>();

    /**
     * What keeps extensions of one grant monotone without {@code PEXPIRE … GT}: {@code CAS … PX}
     * sets the expiry to the lease from now, earlier than before if the lease is shorter than what
     * is left. So each extension asks for at least what is left of the latest deadline any confirmed
     * acquire or extension of the grant asked for (on this JVM's monotonic clock, from its send
     * time: the server applies it later, so its expiry is never earlier), and extensions of one
     * grant are sent one at a time, so that a shorter one computed before a longer one was
     * confirmed cannot land after it.
     */
    private static final class Hold {
        final ReentrantLock lock = new ReentrantLock();
        /** {@link System#nanoTime()} scale; guarded by {@link #lock}. */
        long deadline;

        Hold(long deadline) {
            this.deadline = deadline;
        }
    }

    private TairLockDriver(RedisNode node, Duration operationTimeout) {
        this.node = node;
        this.operationTimeoutNanos = operationTimeout.toNanos();
    }

    /**
     * Connects, checks the credentials and database ({@code PING}), that the server knows
     * {@code CAS} and {@code CAD} ({@code COMMAND INFO}), and learns the connection's client id.
     *
     * @param endpoint the server
     * @param options  the timeouts
     * @param poolSize most connections held at once
     * @return the connected driver
     * @throws BackendUnavailableException if the server cannot be reached
     * @throws LockException               if it refuses the credentials, or lacks {@code CAS} or
     *                                     {@code CAD} (the message names which)
     */
    public static TairLockDriver connect(RedisEndpoint endpoint, LockOptions options, int poolSize) {
        RedisNode node = RedisNode.connect(endpoint, options.connectTimeout(), options.operationTimeout(), poolSize);
        try {
            TairLockDriver driver = new TairLockDriver(node, options.operationTimeout());
            List<String> missing = node.withConnection("check that the server knows CAS and CAD", jedis -> {
                List<?> infos = (List<?>) jedis.sendCommand(Command.COMMAND, "INFO", "CAS", "CAD");
                driver.clientRef(jedis.getConnection());
                List<String> absent = new ArrayList<>();
                if (infos.size() < 2 || infos.get(0) == null) {
                    absent.add("CAS");
                }
                if (infos.size() < 2 || infos.get(1) == null) {
                    absent.add("CAD");
                }
                return absent;
            });
            if (!missing.isEmpty()) {
                throw new LockException("the server at " + endpoint + " does not know " + String.join(" and ", missing)
                        + ": tair:// needs TairString's CAS and CAD (Alibaba Cloud Tair, or Redis with the TairString"
                        + " module loaded); nothing was locked");
            }
            return driver;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        String name = request.name();
        String token = request.ownerToken();
        String key = LockScripts.lockKey(name);
        long lease = RedisLockDriver.millis(request.leaseTime());
        long sent = System.nanoTime();
        Object exec = write("acquire '" + name + "'", token, false, (jedis, c) -> {
            c.sendCommand(Command.MULTI);
            c.sendCommand(Command.SET, key, token, "NX", "PX", Long.toString(lease), "GET");
            c.sendCommand(Command.INCR, LockScripts.fenceKey(name));
            c.sendCommand(Command.PTTL, key);
            c.sendCommand(Command.EXEC);
            List<Object> all = c.getMany(5);
            for (Object reply : all) {
                // A command the ACL refuses is refused when queued, and EXEC then aborts: the refusal
                // (NOPERM) is the answer, not EXECABORT.
                if (reply instanceof JedisDataException e && refusal(e)) {
                    throw e;
                }
            }
            return all.get(4);
        });
        if (!(exec instanceof List<?> replies) || replies.size() != 3) {
            throw new LockException("Tair at " + node.endpoint() + " failed to acquire '" + name + "': "
                    + (exec instanceof JedisDataException e ? e.getMessage() : "unexpected reply " + exec));
        }
        Object holder = replies.get(0); // SET ... NX GET: nil if the key was free (and is now set), else its value
        Object fence = replies.get(1);
        if (holder == null) {
            if (fence instanceof Long value) {
                holds.put(token, new Hold(sent + lease * 1_000_000));
                return Attempt.granted(new Grant(request, OptionalLong.of(value), null));
            }
            undo(name, token);
            throw fenceError(name);
        }
        if (holder instanceof JedisDataException) {
            throw new LockException("Tair at " + node.endpoint() + ": lock key " + key + " holds a " + type(key)
                    + ", not a distlock lock; nothing was taken");
        }
        if (holder instanceof byte[] holding && token.equals(new String(holding, StandardCharsets.UTF_8))) {
            // An earlier attempt of this request took the lock and its reply was lost: granted again,
            // its expiry moved to a whole lease from now (it started with the earlier attempt).
            if (extend(name, token, lease)) {
                if (fence instanceof Long fenceValue) {
                    holds.put(token, new Hold(sent + lease * 1_000_000));
                    return Attempt.granted(new Grant(request, OptionalLong.of(fenceValue), null));
                }
                undo(name, token);
                throw fenceError(name);
            }
            return Attempt.busy();
        }
        long pttl = replies.get(2) instanceof Long value ? value : -1;
        return pttl >= 0 ? Attempt.busy(Duration.ofMillis(pttl)) : Attempt.busy();
    }

    /** A fence key that holds no counter: the grant it came with was deleted again. */
    private LockException fenceError(String name) {
        String fenceKey = LockScripts.fenceKey(name);
        String type = type(fenceKey);
        return new LockException("Tair at " + node.endpoint() + ": fence key " + fenceKey + " holds "
                + ("string".equals(type) ? "a string that is not a counter" : "a " + type)
                + ", not a counter; nothing was taken");
    }

    private String type(String key) {
        return node.withConnection("inspect " + key, jedis -> jedis.type(key));
    }

    /** Takes back a grant nobody will know of (its fence failed). */
    private void undo(String name, String token) {
        write("undo a grant of '" + name + "'", token, false,
                (jedis, c) -> new TairString(jedis).cad(LockScripts.lockKey(name), token));
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        String token = grant.ownerToken();
        Hold hold = holds.computeIfAbsent(token, t -> new Hold(System.nanoTime()));
        hold.lock.lock();
        try {
            long now = System.nanoTime();
            long lease = atLeastWhatIsLeft(RedisLockDriver.millis(leaseTime), hold, now);
            boolean extended = extend(grant.name(), token, lease);
            settle(token, hold, extended, now, lease);
            return ExtendOutcome.of(extended);
        } finally {
            hold.lock.unlock();
        }
    }

    /** {@code leaseMillis}, or what is left of the hold's deadline from {@code now} if that is longer (rounded up). */
    private static long atLeastWhatIsLeft(long leaseMillis, Hold hold, long now) {
        long left = hold.deadline - now;
        return left <= 0 ? leaseMillis : Math.max(leaseMillis, (left + 999_999) / 1_000_000);
    }

    private void settle(String token, Hold hold, boolean extended, long sent, long leaseMillis) {
        if (extended) {
            hold.deadline = Math.max(hold.deadline, sent + leaseMillis * 1_000_000);
        } else {
            holds.remove(token, hold); // lost: nothing more to keep monotone
        }
    }

    /** {@code CAS key token token PX lease}: 1 if the token holds the key; a key of another type is not held. */
    private boolean extend(String name, String token, long lease) {
        return write("extend '" + name + "'", null, false, (jedis, c) -> {
            try {
                return new TairString(jedis).cas(LockScripts.lockKey(name), token, token, new CasParams().px(lease)) == 1L;
            } catch (JedisDataException e) {
                if (isWrongType(e)) {
                    return false;
                }
                throw e;
            }
        });
    }

    /**
     * Pipelined, {@value #PIPELINE_CHUNK} per round trip, each grant's extension made monotone as
     * in {@link #extend(Grant, Duration)} (the grants' holds are taken in owner-token order, so two
     * batches never wait for each other in a circle).
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        List<ExtendOutcome> outcomes = new ArrayList<>(renewals.size());
        for (int from = 0; from < renewals.size(); from += PIPELINE_CHUNK) {
            List<Renewal> chunk = renewals.subList(from, Math.min(renewals.size(), from + PIPELINE_CHUNK));
            List<Hold> locked = new ArrayList<>(chunk.size());
            Map<String, Hold> byToken = new HashMap<>();
            List<Renewal> ordered = new ArrayList<>(chunk);
            ordered.sort(Comparator.comparing(r -> r.grant().ownerToken()));
            try {
                for (Renewal r : ordered) {
                    Hold hold = holds.computeIfAbsent(r.grant().ownerToken(), t -> new Hold(System.nanoTime()));
                    hold.lock.lock();
                    locked.add(hold);
                    byToken.put(r.grant().ownerToken(), hold);
                }
                long now = System.nanoTime();
                long[] leases = new long[chunk.size()];
                Hold[] chunkHolds = new Hold[chunk.size()];
                for (int i = 0; i < chunk.size(); i++) {
                    chunkHolds[i] = byToken.get(chunk.get(i).grant().ownerToken());
                    leases[i] = atLeastWhatIsLeft(RedisLockDriver.millis(chunk.get(i).leaseTime()), chunkHolds[i], now);
                }
                List<Object> replies = write("renew " + renewals.size() + " leases", null, false, (jedis, c) -> {
                    for (int i = 0; i < chunk.size(); i++) {
                        Grant g = chunk.get(i).grant();
                        c.sendCommand(ModuleCommand.CAS, LockScripts.lockKey(g.name()), g.ownerToken(), g.ownerToken(),
                                "PX", Long.toString(leases[i]));
                    }
                    return c.getMany(chunk.size());
                });
                for (int i = 0; i < replies.size(); i++) {
                    Object reply = replies.get(i);
                    if (reply instanceof JedisDataException e && !isWrongType(e)) {
                        throw refusal(e) ? node.translate("renew " + renewals.size() + " leases", e)
                                : new LockException("Tair at " + node.endpoint() + " failed to renew a lease: " + e.getMessage());
                    }
                    boolean extended = reply instanceof Long value && value == 1L;
                    settle(chunk.get(i).grant().ownerToken(), chunkHolds[i], extended, now, leases[i]);
                    outcomes.add(ExtendOutcome.of(extended));
                }
            } finally {
                for (int i = locked.size() - 1; i >= 0; i--) {
                    locked.get(i).lock.unlock();
                }
            }
        }
        return outcomes;
    }

    /** {@code CAD key token}, then {@code PUBLISH} on the lock's channel (a spurious wake-up if it was not held). */
    @Override
    public boolean release(Grant grant) {
        holds.remove(grant.ownerToken());
        String name = grant.name();
        List<Object> replies = write("release '" + name + "'", grant.ownerToken(), true, (jedis, c) -> {
            c.sendCommand(ModuleCommand.CAD, LockScripts.lockKey(name), grant.ownerToken());
            c.sendCommand(Command.PUBLISH, LockScripts.releaseChannel(name), "released");
            return c.getMany(2);
        });
        return deleted(replies.get(0), name);
    }

    /**
     * Every release pipelined, {@value #PIPELINE_CHUNK} per round trip. If a chunk gets no answer,
     * its grants and those after it are reported unconfirmed (the engine retries them; releasing
     * twice is harmless).
     */
    @Override
    public List<Grant> releaseAll(List<Grant> grants) {
        for (int from = 0; from < grants.size(); from += PIPELINE_CHUNK) {
            List<Grant> chunk = grants.subList(from, Math.min(grants.size(), from + PIPELINE_CHUNK));
            try {
                write("release " + chunk.size() + " leases", null, false, (jedis, c) -> {
                    for (Grant g : chunk) {
                        c.sendCommand(ModuleCommand.CAD, LockScripts.lockKey(g.name()), g.ownerToken());
                        c.sendCommand(Command.PUBLISH, LockScripts.releaseChannel(g.name()), "released");
                    }
                    return c.getMany(chunk.size() * 2);
                });
            } catch (BackendUnavailableException e) {
                return List.copyOf(grants.subList(from, grants.size()));
            }
            chunk.forEach(g -> holds.remove(g.ownerToken()));
        }
        return List.of();
    }

    /**
     * A busy attempt wrote nothing, so only a request with an attempt whose reply was lost — or that
     * is still on its way (an interrupted acquire) — can hold the lock, or come to. This kills the
     * server-side connections that carried such attempts ({@link StrayWrites}), so none of their
     * bytes run afterwards, then deletes what the token holds ({@code CAD}) and announces it.
     */
    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        holds.remove(request.ownerToken());
        if (!outcomeUnknown && strays.nothingToKill(request.ownerToken())) {
            return;
        }
        String name = request.name();
        List<Object> replies = write("clean up after an acquire of '" + name + "'", request.ownerToken(), true, (jedis, c) -> {
            c.sendCommand(ModuleCommand.CAD, LockScripts.lockKey(name), request.ownerToken());
            c.sendCommand(Command.PUBLISH, LockScripts.releaseChannel(name), "released");
            return c.getMany(2);
        });
        deleted(replies.get(0), name);
    }

    private boolean deleted(Object cadReply, String name) {
        if (cadReply instanceof JedisDataException e && !isWrongType(e)) {
            throw refusal(e) ? node.translate("release '" + name + "'", e)
                    : new LockException("Tair at " + node.endpoint() + " failed to release '" + name + "': " + e.getMessage());
        }
        return cadReply instanceof Long value && value == 1L;
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return node.watch(name, onChange);
    }

    @Override
    public void close() {
        node.close();
    }

    @Override
    public String toString() {
        return "TairLockDriver[" + node.endpoint() + "]";
    }

    /**
     * Runs {@code action} on a pooled connection after killing the stray connections
     * ({@link StrayWrites#toKill}: every suspect, and with {@code killForToken} also those sending
     * for {@code ownerToken}). When {@code ownerToken} is given and not only killed for, the
     * connection is recorded as sending for it while the action runs. A reply the action did not
     * get makes the connection a suspect.
     */
    private <T> T write(String operation, String ownerToken, boolean killForToken, BiFunction<Jedis, Connection, T> action) {
        // Up to three reads (the connection's id, the kills, the action) answer one operation: each
        // gets what is left of one operation timeout, so that a silent server costs the caller one
        // timeout, not three.
        long deadline = System.nanoTime() + operationTimeoutNanos;
        return node.withConnection(operation, jedis -> {
            Connection c = jedis.getConnection();
            try {
                bound(c, deadline);
                ClientRef me = clientRef(c);
                bound(c, deadline);
                killStrays(c, killForToken ? ownerToken : null);
                bound(c, deadline);
                String sendingFor = killForToken ? null : ownerToken;
                if (sendingFor != null) {
                    strays.sending(sendingFor, me);
                }
                boolean answered = false;
                try {
                    T result = action.apply(jedis, c);
                    answered = true;
                    return result;
                } catch (JedisDataException e) {
                    answered = true; // the server answered, with an error
                    throw e;
                } finally {
                    if (!answered || sendingFor != null) {
                        strays.settled(sendingFor, me, answered);
                    }
                }
            } finally {
                restoreTimeout(c);
            }
        });
    }

    /** Lets {@code c}'s next read wait only until {@code deadline}; past it, the operation has timed out. */
    private static void bound(Connection c, long deadline) {
        long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (leftMillis <= 0) {
            throw new JedisConnectionException("the operation timeout was spent before the reply",
                    new SocketTimeoutException("operation timeout spent"));
        }
        c.setSoTimeout((int) Math.min(leftMillis, Integer.MAX_VALUE));
    }

    /** Back to the connection's own read timeout, for its next user; a broken connection has none to restore. */
    private static void restoreTimeout(Connection c) {
        try {
            c.rollbackTimeout();
        } catch (RuntimeException brokenAlready) {
            // the pool discards a broken connection
        }
    }

    /** The server's id and address of {@code c}, asked once per connection. */
    private ClientRef clientRef(Connection c) {
        ClientRef ref = clients.get(c);
        if (ref != null) {
            return ref;
        }
        c.sendCommand(Command.CLIENT, "INFO");
        String info = new String((byte[]) c.getOne(), StandardCharsets.UTF_8);
        long id = -1;
        String address = null;
        for (String field : info.trim().split(" ")) {
            if (field.startsWith("id=")) {
                id = Long.parseLong(field.substring(3));
            } else if (field.startsWith("addr=")) {
                address = field.substring(5);
            }
        }
        if (id < 0 || address == null) {
            throw new LockException("Tair at " + node.endpoint() + " answered CLIENT INFO without an id and addr");
        }
        ref = new ClientRef(id, address);
        clients.put(c, ref);
        return ref;
    }

    /** Kills the stray connections on the server, pipelined, before {@code c}'s next command. */
    private void killStrays(Connection c, String ownerToken) {
        if (ownerToken == null ? strays.noSuspects() : strays.nothingToKill(ownerToken)) {
            return; // the common case, on every command: no allocation
        }
        List<ClientRef> kill = strays.toKill(ownerToken);
        if (kill.isEmpty()) {
            return;
        }
        for (ClientRef stray : kill) {
            c.sendCommand(Command.CLIENT, "KILL", "ID", Long.toString(stray.id()), "ADDR", stray.address(), "SKIPME", "yes");
        }
        List<Object> replies = c.getMany(kill.size());
        for (Object reply : replies) {
            if (reply instanceof JedisDataException e && killRefusalLogged.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "Tair at " + node.endpoint() + " refused CLIENT KILL (" + e.getMessage()
                        + "): a write whose reply was lost may still land and hold a lock for up to one lease time;"
                        + " grant the user +client|kill");
            }
        }
        strays.killed(kill); // a refused kill is not retried: it would be refused again
    }

    /** An ACL or authentication refusal: reported as such ({@link RedisNode#translate}), never as another error. */
    private static boolean refusal(JedisDataException e) {
        RedisFailure kind = RedisFailure.of(e);
        return kind == RedisFailure.ACCESS_DENIED || kind == RedisFailure.AUTHENTICATION_REFUSED;
    }

    private static boolean isWrongType(JedisDataException e) {
        return RedisFailure.of(e) == RedisFailure.SERVER_ERROR && e.getMessage() != null && e.getMessage().startsWith("WRONGTYPE");
    }
}
