package io.distlock.redis.support;

import io.distlock.Feature;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a Redis-family lock driver's keys live and how its calls reach them: one server
 * ({@link RedisNode}), or a sharded Redis Cluster whose primaries each serve some of the 16,384
 * hash slots (the {@code redis-cluster://} backend routes every call to the primary of its keys'
 * slot). {@link RedisLockDriver} is written against this, so every Redis-family backend shares one
 * lock driver whatever the deployment.
 *
 * <p>Every call a driver sends touches the keys of one primitive only, and those keys share a hash
 * tag ({@code {<name>}}), so that a cluster runs each script on one slot's primary.
 *
 * <p>Failures, in every method: {@link io.distlock.BackendUnavailableException} when no definite
 * answer came within the operation timeout (a cluster counts its redirects and retries inside it),
 * {@link io.distlock.AccessDeniedException} for an ACL refusal, {@link io.distlock.LockException}
 * for another error reply, {@link IllegalStateException} once closed.
 */
public interface RedisKeyspace extends AutoCloseable {

    /**
     * Refuses a name whose keys this keyspace cannot keep together ({@link io.distlock.spi.LockDriver#checkName}).
     * A single server takes every name.
     *
     * @param name a lock, read-write lock or semaphore name
     * @throws IllegalArgumentException saying why the name cannot be used here
     */
    default void checkName(String name) {
    }

    /**
     * Runs one script on the server that holds its keys.
     *
     * @param operation what is being done, for messages (no secrets)
     * @param call      the script, its keys (all of one hash tag) and arguments
     * @return the script's reply
     */
    Object eval(String operation, PendingReply.ScriptCall call);

    /**
     * Runs many calls pipelined — one round trip per server that holds some of their keys — and
     * returns their replies in order.
     *
     * @param operation what is being done, for messages (no secrets)
     * @param calls     the calls, each touching the keys of one hash tag
     * @return one reply per call, in order
     * @throws io.distlock.BackendUnavailableException if a server got no answer in time (calls to
     *                                                 other servers may have run)
     */
    List<Object> runAll(String operation, List<? extends PendingReply.Call> calls);

    /**
     * Sends calls pipelined on one connection to the server that holds the first call's keys and
     * reads every reply: a plain command behind a script (such as {@code WAIT}, which counts the
     * acknowledgements of its own connection's writes) goes along with it.
     *
     * @param operation     what is being done, for messages (no secrets)
     * @param calls         the calls, the first one touching the keys of one hash tag
     * @param deadlineNanos when to stop waiting ({@link System#nanoTime()}); a cluster follows
     *                      redirects and failovers until then
     * @return the replies, in order (an error reply is thrown by {@link PendingReply.Replies#value})
     */
    PendingReply.Replies sendTogether(String operation, List<? extends PendingReply.Call> calls, long deadlineNanos);

    /**
     * Groups calls by the server that holds their keys now, so that each group can go together
     * ({@link #sendTogether}) — a {@code WAIT} behind each group then counts that server's
     * acknowledgements of them. A single server has one group.
     *
     * @param calls calls, each touching the keys of one hash tag
     * @return the indexes of {@code calls}, grouped, each group in order
     */
    default List<List<Integer>> byServer(List<? extends PendingReply.Call> calls) {
        List<Integer> all = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            all.add(i);
        }
        return calls.isEmpty() ? List.of() : List.of(all);
    }

    /**
     * Calls {@code onMessage} on every message published on {@code channel} (a channel with a
     * primitive's hash tag, or a node's own), and once after the notification connection recovers
     * from a drop or the channel moved to another server.
     *
     * @param channel   the channel
     * @param onMessage cheap, non-blocking listener
     * @return the handle that stops the notifications; its {@link Watch#active()} completes when the
     *         server confirmed the subscription
     */
    Watch subscribe(String channel, Runnable onMessage);

    /**
     * @param name the lock name
     * @return {@link #subscribe} of the lock's release channel ({@link LockScripts#releaseChannel})
     */
    default Watch watch(String name, Runnable onChange) {
        return subscribe(LockScripts.releaseChannel(name), onChange);
    }

    /**
     * Reads who holds a lock, in one round trip, changing nothing.
     *
     * @param name the lock name
     * @return the snapshot
     */
    default LockSnapshot inspect(String name) {
        return inspectAll(List.of(name)).get(0);
    }

    /**
     * @param names lock names
     * @return one snapshot per name, in order
     */
    List<LockSnapshot> inspectAll(List<String> names);

    /**
     * @param prefix the names' prefix, possibly empty
     * @param limit  at most this many, positive
     * @return the first {@code limit} names, in order, of the locks held now whose names start with {@code prefix}
     */
    List<String> scanLockNames(String prefix, int limit);

    /**
     * @param name      the primitive's name
     * @param primitive {@link Feature#READ_WRITE} or {@link Feature#SEMAPHORE}
     * @return every hold of it, read in one round trip
     */
    HoldSnapshot holds(String name, Feature primitive);

    /**
     * Revokes the lease holding {@code name} ({@link LockScripts#REVOKE}).
     *
     * @param name   the lock name
     * @param reason the operator's reason
     * @param fenced true to move the fence counter
     * @return what was revoked; null if nobody held the lock
     */
    RedisNode.Revocation revoke(String name, String reason, boolean fenced);

    /**
     * Subscribes to the revocation notices ({@value LockScripts#REVOKED_CHANNEL}) that reach this
     * client: for {@link Revocations}.
     *
     * @param onNotice called with each notice's text, and with null after a reconnect
     * @return the handle that stops them
     */
    Watch subscribeRevocations(Consumer<String> onNotice);

    /**
     * Reads a lease's revocation marker ({@link LockScripts#revokedKey}).
     *
     * @param name       the lock name
     * @param ownerToken the lease's owner token
     * @return the operator's reason, if the lease was revoked and the marker still lives
     */
    Optional<String> revocationReason(String name, String ownerToken);

    /** @return the bound on each reply: a write given up after it may still land that long */
    Duration operationTimeout();

    /** @return the server or servers, as messages name them (never a password) */
    String describe();

    /** Closes every connection. Idempotent. */
    @Override
    void close();
}
