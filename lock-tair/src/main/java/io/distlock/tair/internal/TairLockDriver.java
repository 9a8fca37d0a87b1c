package io.distlock.tair.internal;

import com.aliyun.tair.ModuleCommand;
import com.aliyun.tair.tairstring.TairString;
import com.aliyun.tair.tairstring.params.CasParams;
import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.LockSnapshot;
import io.distlock.redis.support.OwnerRecord;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisFailure;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.Revocations;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Revoked;
import io.distlock.spi.Watch;
import io.distlock.tair.internal.StrayWrites.ClientRef;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
     * Per owner token of a grant: the owner record this driver wrote for it, so that its extension
     * and release touch that record only ({@code CAS}/{@code CAD} compare the whole value).
     */
    private final Map<String, String> records = new ConcurrentHashMap<>();
    private final Revocations revocations;

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

    private TairLockDriver(RedisNode node, Duration operationTimeout, DriverContext context) {
        this.node = node;
        this.operationTimeoutNanos = operationTimeout.toNanos();
        this.revocations = new Revocations(context);
    }

    /**
     * Connects, checks the credentials and database ({@code PING}), that the server knows
     * {@code CAS} and {@code CAD} ({@code COMMAND INFO}), and learns the connection's client id.
     *
     * @param endpoint the server
     * @param options  the timeouts
     * @param poolSize most connections held at once
     * @param context  the engine: the owner description grants record, and where revocations go
     * @return the connected driver
     * @throws BackendUnavailableException if the server cannot be reached
     * @throws LockException               if it refuses the credentials, or lacks {@code CAS} or
     *                                     {@code CAD} (the message names which)
     */
    public static TairLockDriver connect(RedisEndpoint endpoint, LockOptions options, int poolSize, DriverContext context) {
        RedisNode node = RedisNode.connect(endpoint, options.connectTimeout(), options.operationTimeout(), poolSize);
        try {
            TairLockDriver driver = new TairLockDriver(node, options.operationTimeout(), context);
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
        revocations.listenOn(node); // subscribed, and the token listened for, while the acquire is on its way
        revocations.acquiring(name, token, lease);
        java.util.concurrent.atomic.AtomicReference<Object> acquiredAt = new java.util.concurrent.atomic.AtomicReference<>();
        Object exec = write("acquire '" + name + "'", token, false, (jedis, c) -> {
            c.sendCommand(Command.MULTI);
            c.sendCommand(Command.SET, key, token, "NX", "PX", Long.toString(lease), "GET");
            c.sendCommand(Command.INCR, LockScripts.fenceKey(name));
            c.sendCommand(Command.PTTL, key);
            c.sendCommand(Command.EXEC);
            // The grant's time for its owner record: right behind the transaction, in the same round
            // trip, but outside it, so that a user whose ACL line predates it (no +time) still locks.
            c.sendCommand(Command.TIME);
            List<Object> all = c.getMany(6);
            for (Object reply : all.subList(0, 5)) {
                // A command the ACL refuses is refused when queued, and EXEC then aborts: the refusal
                // (NOPERM) is the answer, not EXECABORT.
                if (reply instanceof JedisDataException e && refusal(e)) {
                    throw e;
                }
            }
            acquiredAt.set(all.get(5)); // an error reply (refused) is no time
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
                granted(request, value, acquiredAt.get(), lease);
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
            if (extend(name, token, lease).isExtended()) {
                if (fence instanceof Long fenceValue) {
                    holds.put(token, new Hold(sent + lease * 1_000_000));
                    granted(request, fenceValue, acquiredAt.get(), lease);
                    return Attempt.granted(new Grant(request, OptionalLong.of(fenceValue), null));
                }
                undo(name, token);
                throw fenceError(name);
            }
            revocations.ended(token);
            return Attempt.busy();
        }
        revocations.ended(token);
        long pttl = replies.get(2) instanceof Long value ? value : -1;
        return pttl >= 0 ? Attempt.busy(Duration.ofMillis(pttl)) : Attempt.busy();
    }

    /**
     * After a grant: writes its owner record ({@link OwnerRecord}: fence, the server's {@code TIME}
     * read right behind the acquire's transaction, owner token, owner description) with the lease's expiry,
     * and listens for the lease's revocation. Tair has no Lua, and a transaction has no condition, so
     * the record is written in a second round trip, by the grant it describes — never by a busy
     * attempt, which would overwrite the holder's. A record that could not be written (no answer)
     * only leaves the lease shown without an owner: the grant stands.
     */
    private void granted(LockRequest request, long fence, Object time, long lease) {
        Instant at = null;
        if (time instanceof List<?> t && t.size() == 2) {
            at = Instant.ofEpochSecond(Long.parseLong(text(t.get(0))), Long.parseLong(text(t.get(1))) * 1000);
            at = Instant.ofEpochMilli(at.toEpochMilli());
        }
        String record = new OwnerRecord(OptionalLong.of(fence), at, request.ownerToken(), revocations.owner()).format();
        records.put(request.ownerToken(), record);
        try {
            write("record the owner of '" + request.name() + "'", null, false, (jedis, c) -> {
                c.sendCommand(Command.SET, LockScripts.ownerKey(request.name()), record, "PX", Long.toString(lease));
                return c.getOne();
            });
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "the owner record of ''{0}'' on {1} was not written: {2}", request.name(),
                    node.endpoint(), e.getMessage());
        }
        revocations.granted(request.name(), request.ownerToken(), lease);
        revocations.awaitListening(node);
    }

    private static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
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
            ExtendOutcome outcome = extend(grant.name(), token, lease);
            settle(token, hold, outcome.isExtended(), now, lease);
            return outcome;
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
            revocations.extended(token, leaseMillis);
        } else {
            holds.remove(token, hold); // lost: nothing more to keep monotone
            records.remove(token);
            revocations.ended(token);
        }
    }

    /**
     * {@code CAS key token token PX lease}, and the same on the grant's owner record (pipelined; its
     * answer does not count: a record that is not there only shows no owner): extended if the token
     * holds the key; a key of another type is not held. Not held: the revocation marker says whether
     * an operator revoked it ({@link #revokedReason}).
     */
    private ExtendOutcome extend(String name, String token, long lease) {
        String record = records.get(token);
        boolean extended = write("extend '" + name + "'", null, false, (jedis, c) -> {
            c.sendCommand(ModuleCommand.CAS, LockScripts.lockKey(name), token, token, "PX", Long.toString(lease));
            if (record != null) {
                c.sendCommand(ModuleCommand.CAS, LockScripts.ownerKey(name), record, record, "PX", Long.toString(lease));
            }
            List<Object> replies = c.getMany(record != null ? 2 : 1);
            Object reply = replies.get(0);
            if (reply instanceof JedisDataException e) {
                if (isWrongType(e)) {
                    return false;
                }
                throw e;
            }
            return reply instanceof Long value && value == 1L;
        });
        if (extended) {
            return ExtendOutcome.extended();
        }
        return revokedReason(List.<String[]>of(new String[] {name, token})).get(0).map(ExtendOutcome::revoked).orElse(ExtendOutcome.lost());
    }

    /**
     * The revocation markers of leases found not held, read in one pipelined round trip: an
     * operator revoked those that have one. A user without read rights on the markers (the line
     * before revocation) is answered "none": its leases end as lost, not revoked.
     *
     * @param leases each a lock name and an owner token
     * @return per lease, the revocation's reason if there is a marker
     */
    private List<Optional<String>> revokedReason(List<String[]> leases) {
        return write("check the revocation of " + leases.size() + " lease(s)", null, false, (jedis, c) -> {
            for (String[] lease : leases) {
                c.sendCommand(Command.GET, LockScripts.revokedKey(lease[0], lease[1]));
            }
            List<Optional<String>> reasons = new ArrayList<>(leases.size());
            for (Object reply : c.getMany(leases.size())) {
                reasons.add(reply instanceof byte[] bytes ? Optional.of(new String(bytes, StandardCharsets.UTF_8)) : Optional.empty());
            }
            return reasons;
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
                String[] chunkRecords = new String[chunk.size()];
                for (int i = 0; i < chunk.size(); i++) {
                    chunkRecords[i] = records.get(chunk.get(i).grant().ownerToken());
                }
                List<Object> replies = write("renew " + renewals.size() + " leases", null, false, (jedis, c) -> {
                    int sentCalls = 0;
                    for (int i = 0; i < chunk.size(); i++) {
                        Grant g = chunk.get(i).grant();
                        c.sendCommand(ModuleCommand.CAS, LockScripts.lockKey(g.name()), g.ownerToken(), g.ownerToken(),
                                "PX", Long.toString(leases[i]));
                        sentCalls++;
                        if (chunkRecords[i] != null) {
                            c.sendCommand(ModuleCommand.CAS, LockScripts.ownerKey(g.name()), chunkRecords[i], chunkRecords[i],
                                    "PX", Long.toString(leases[i]));
                            sentCalls++;
                        }
                    }
                    List<Object> all = c.getMany(sentCalls);
                    List<Object> locks = new ArrayList<>(chunk.size());
                    for (int i = 0, at = 0; i < chunk.size(); i++) {
                        locks.add(all.get(at));
                        at += chunkRecords[i] != null ? 2 : 1; // the record's answer does not count
                    }
                    return locks;
                });
                List<Integer> lost = new ArrayList<>();
                ExtendOutcome[] chunkOutcomes = new ExtendOutcome[chunk.size()];
                for (int i = 0; i < replies.size(); i++) {
                    Object reply = replies.get(i);
                    if (reply instanceof JedisDataException e && !isWrongType(e)) {
                        throw refusal(e) ? node.translate("renew " + renewals.size() + " leases", e)
                                : new LockException("Tair at " + node.endpoint() + " failed to renew a lease: " + e.getMessage());
                    }
                    boolean extended = reply instanceof Long value && value == 1L;
                    settle(chunk.get(i).grant().ownerToken(), chunkHolds[i], extended, now, leases[i]);
                    chunkOutcomes[i] = ExtendOutcome.of(extended);
                    if (!extended) {
                        lost.add(i);
                    }
                }
                if (!lost.isEmpty()) {
                    List<String[]> gone = new ArrayList<>();
                    lost.forEach(i -> gone.add(new String[] {chunk.get(i).grant().name(), chunk.get(i).grant().ownerToken()}));
                    List<Optional<String>> reasons = revokedReason(gone);
                    for (int k = 0; k < lost.size(); k++) {
                        int i = lost.get(k);
                        reasons.get(k).ifPresent(reason -> chunkOutcomes[i] = ExtendOutcome.revoked(reason));
                    }
                }
                outcomes.addAll(List.of(chunkOutcomes));
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
        revocations.ended(grant.ownerToken());
        String name = grant.name();
        String record = records.get(grant.ownerToken());
        List<Object> replies = write("release '" + name + "'", grant.ownerToken(), true, (jedis, c) -> {
            c.sendCommand(ModuleCommand.CAD, LockScripts.lockKey(name), grant.ownerToken());
            c.sendCommand(Command.PUBLISH, LockScripts.releaseChannel(name), "released");
            if (record != null) {
                c.sendCommand(ModuleCommand.CAD, LockScripts.ownerKey(name), record);
            }
            return c.getMany(record != null ? 3 : 2);
        });
        records.remove(grant.ownerToken());
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
                    int sentCalls = 0;
                    for (Grant g : chunk) {
                        c.sendCommand(ModuleCommand.CAD, LockScripts.lockKey(g.name()), g.ownerToken());
                        c.sendCommand(Command.PUBLISH, LockScripts.releaseChannel(g.name()), "released");
                        sentCalls += 2;
                        String record = records.get(g.ownerToken());
                        if (record != null) {
                            c.sendCommand(ModuleCommand.CAD, LockScripts.ownerKey(g.name()), record);
                            sentCalls++;
                        }
                    }
                    return c.getMany(sentCalls);
                });
            } catch (BackendUnavailableException e) {
                return List.copyOf(grants.subList(from, grants.size()));
            }
            chunk.forEach(g -> {
                holds.remove(g.ownerToken());
                records.remove(g.ownerToken());
                revocations.ended(g.ownerToken());
            });
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
        revocations.ended(request.ownerToken());
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

    /** One round trip: the Redis family's {@code MULTI} of reads ({@link LockSnapshot}), which needs no Lua. */
    @Override
    public Optional<LockInfo> inspect(String name) {
        LockSnapshot snapshot = node.inspect(name);
        if (snapshot.wrongType()) {
            throw new LockException("Tair at " + node.endpoint() + ": lock key " + LockScripts.lockKey(name)
                    + " holds another type than a string: it is not a distlock lock");
        }
        return snapshot.held() ? Optional.of(snapshot.info(true, false)) : Optional.empty();
    }

    /** {@code SCAN} of the whole keyspace in batches, then the first {@code limit} locks read pipelined. */
    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        List<LockInfo> holders = new ArrayList<>();
        for (LockSnapshot snapshot : node.inspectAll(node.scanLockNames(prefix, limit))) {
            if (snapshot.held() && !snapshot.wrongType()) {
                holders.add(snapshot.info(true, false));
            }
        }
        return holders;
    }

    /**
     * {@link #revoke} tries again, after a transaction a change of the lock aborted, until its
     * operation timeout has passed; between tries it pauses up to a millisecond at random, so that a
     * holder that releases and retakes the lock in a tight loop does not win every race.
     */
    private static final long REVOKE_PAUSE_NANOS = 1_000_000;

    /**
     * Without Lua: an optimistic transaction. {@code WATCH} the lock key, read the holder ({@code GET}s and {@code PTTL}, pipelined); then, in one {@code MULTI}/{@code EXEC}:
     * the revocation marker first, {@code INCR} of the fence, {@code DEL} of the lock key and the
     * record, and the two notices. {@code EXEC} runs all of it atomically, and only if the lock key
     * did not change since the read: a lock another client took in between (or the holder extended
     * or released) aborts it, and it is tried again from the read, until the operation timeout. A principal without
     * the right to write the marker is refused when the {@code SET} is queued, so {@code EXEC}
     * aborts ({@code EXECABORT}) and nothing changes.
     */
    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        long deadline = System.nanoTime() + operationTimeoutNanos;
        for (int attempt = 1; ; attempt++) {
            Optional<Optional<Revoked>> done = write("revoke '" + name + "'", null, false, (jedis, c) -> revokeOnce(c, name, reason));
            if (done.isPresent()) {
                return done.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new BackendUnavailableException(node.endpoint().toString(), "Tair at " + node.endpoint() + ": lock '" + name
                        + "' changed during each of " + attempt + " revoke transactions (WATCH aborted EXEC) within the"
                        + " operation timeout: nothing was revoked; try again", null);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.ThreadLocalRandom.current().nextLong(REVOKE_PAUSE_NANOS));
        }
    }

    /** One optimistic attempt; empty if {@code EXEC} was aborted by a change of a watched key. */
    private Optional<Optional<Revoked>> revokeOnce(Connection c, String name, String reason) {
        String lockKey = LockScripts.lockKey(name);
        String ownerKey = LockScripts.ownerKey(name);
        String fenceKey = LockScripts.fenceKey(name);
        boolean watching = true;
        try {
            // Only the lock key is watched: its owner record changes without the lock changing hands
            // (written in the grant's second round trip, extended), and deleting it with its lease is right.
            c.sendCommand(Command.WATCH, lockKey);
            c.sendCommand(Command.GET, lockKey);
            c.sendCommand(Command.PTTL, lockKey);
            c.sendCommand(Command.GET, ownerKey);
            c.sendCommand(Command.GET, fenceKey);
            List<Object> read = c.getMany(5);
            for (Object reply : read) {
                if (reply instanceof JedisDataException e && refusal(e)) {
                    throw e;
                }
            }
            if (read.get(1) instanceof JedisDataException e) {
                throw new LockException("Tair at " + node.endpoint() + ": lock key " + lockKey + " holds another type than a"
                        + " string: it is not a distlock lock; nothing was revoked (" + e.getMessage() + ")");
            }
            if (read.get(1) == null) {
                return Optional.of(Optional.empty()); // not held: nothing changes
            }
            String token = text(read.get(1));
            long pttl = read.get(2) instanceof Long value ? value : -1;
            OwnerRecord record = read.get(3) instanceof byte[] bytes ? OwnerRecord.parse(new String(bytes, StandardCharsets.UTF_8)) : null;
            OptionalLong counter = OptionalLong.empty();
            if (read.get(4) instanceof byte[] bytes) {
                try {
                    counter = OptionalLong.of(Long.parseLong(new String(bytes, StandardCharsets.UTF_8)));
                } catch (NumberFormatException e) {
                    // not a counter
                }
            }
            c.sendCommand(Command.MULTI);
            c.sendCommand(Command.SET, LockScripts.revokedKey(name, token), reason, "PX",
                    Long.toString(Math.max(0, pttl) + LockScripts.REVOKED_MARKER_GRACE_MILLIS));
            c.sendCommand(Command.INCR, fenceKey);
            c.sendCommand(Command.DEL, lockKey, ownerKey);
            c.sendCommand(Command.PUBLISH, LockScripts.REVOKED_CHANNEL, token + " " + name);
            c.sendCommand(Command.PUBLISH, LockScripts.releaseChannel(name), "revoked");
            c.sendCommand(Command.EXEC);
            List<Object> replies = c.getMany(7);
            watching = false; // EXEC ends the WATCH, whatever it answers
            for (Object reply : replies) {
                if (reply instanceof JedisDataException e && refusal(e)) {
                    throw e; // refused when queued: EXEC aborted, nothing changed
                }
            }
            Object exec = replies.get(6);
            if (exec == null) {
                return Optional.empty(); // a watched key changed in between: nothing was done
            }
            if (!(exec instanceof List<?> done) || done.stream().anyMatch(JedisDataException.class::isInstance)) {
                throw new LockException("Tair at " + node.endpoint() + " failed to revoke '" + name + "': " + exec);
            }
            if (record != null && !record.ownerToken().equals(token)) {
                record = null; // left behind by an earlier lease
            }
            LockSnapshot snapshot = new LockSnapshot(name, token, pttl, record, counter, false);
            return Optional.of(Optional.of(new Revoked(snapshot.info(true, false), token)));
        } finally {
            if (watching) {
                try {
                    c.sendCommand(Command.UNWATCH); // never hand a watching connection back to the pool
                    c.getOne();
                } catch (RuntimeException e) {
                    c.setBroken();
                }
            }
        }
    }

    @Override
    public void close() {
        revocations.close();
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
