package io.distlock.rediswait.internal;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.redis.support.LateWrites;
import io.distlock.redis.support.Revocations;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.WaitConfirmedDriver;
import io.distlock.spi.ServerList;
import io.distlock.spi.Watch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The primary the Sentinels report, followed across failovers.
 *
 * <p><b>Choosing a primary.</b> The Sentinels are asked in turn ({@code SENTINEL
 * get-master-addr-by-name}); the first address that answers {@code ROLE} {@code master} is used. A
 * Sentinel's word alone is not enough: during a failover it may report a node that is not primary
 * yet, or one that was demoted.
 *
 * <p><b>Following it.</b> The primary is looked up again, on a daemon thread of this client, when
 * a call to it got no definite answer or was refused with {@code READONLY} ({@link #suspect}), and
 * when the Sentinel this client subscribes to publishes {@code +switch-master} — which comes
 * seconds before a client would notice a demotion by itself. A lookup that finds the same node,
 * still primary, changes nothing; one that cannot confirm any primary is repeated with a back-off
 * (25 ms doubling to 500 ms) until it can. On a move, release notifications are registered on the
 * new primary ({@link MovingWatches}), calls go there, and the old node's connections are closed
 * (calls in flight on them finish; one that finds them closed reports no answer, not a closed
 * client).
 *
 * <p>What following does not do: bring back a lock the new primary never received. A lease granted
 * on the old primary holds on the new one only if the new one had acknowledged it; otherwise its
 * next extension answers "lost".
 */
final class SentinelPrimary implements Primary {

    private static final System.Logger LOG = System.getLogger("io.distlock.rediswait");
    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private record Resolution(Target target, int sentinel) {
    }

    private final RedisWaitSettings settings;
    private final LockOptions options;
    private final LateWrites lateWrites;
    private final Revocations revocations;
    private final Sentinels sentinels;
    private final MovingWatches watches = new MovingWatches();
    /** Guards everything below but {@code current}'s reads, and serialises watches with moves. */
    private final Object lock = new Object();
    private volatile Target current;
    private boolean suspect;
    private boolean closed;
    private Thread follower;
    private Watch switchWatch;
    private int subscribedTo = -1;

    private SentinelPrimary(RedisWaitSettings settings, LockOptions options, LateWrites lateWrites, Revocations revocations) {
        this.settings = settings;
        this.options = options;
        this.lateWrites = lateWrites;
        this.revocations = revocations;
        this.sentinels = new Sentinels(settings.sentinels(), settings.master(), options);
    }

    /**
     * Finds the primary within the connect timeout and starts following it.
     *
     * @throws IllegalArgumentException    if every Sentinel answers that it does not know the master name
     * @throws BackendUnavailableException if no Sentinel answers, or none reports a node that answers
     *                                     as primary, within the connect timeout (naming the Sentinels)
     * @throws io.distlock.AuthenticationException if the primary refuses the credentials, or every
     *                                              Sentinel refuses the TLS handshake
     * @throws io.distlock.AccessDeniedException   if the primary's ACL refuses the user a command the check needs
     */
    static SentinelPrimary connect(RedisWaitSettings settings, LockOptions options, LateWrites lateWrites,
                                   Revocations revocations) {
        SentinelPrimary primary = new SentinelPrimary(settings, options, lateWrites, revocations);
        try {
            Resolution found = primary.resolveWithin(System.nanoTime() + options.connectTimeout().toNanos());
            synchronized (primary.lock) {
                primary.current = found.target();
                primary.subscribe(found.sentinel());
                primary.follower = new Thread(primary::follow, "distlock-redis-wait-sentinel-" + settings.master());
                primary.follower.setDaemon(true);
                primary.follower.start();
            }
            return primary;
        } catch (RuntimeException | Error e) {
            primary.close();
            throw e;
        }
    }

    @Override
    public Target current() {
        Target target = current;
        if (target == null) {
            throw new IllegalStateException("the redis-wait client for " + settings + " is closed");
        }
        return target;
    }

    @Override
    public void suspect(WaitConfirmedDriver.Target failed) {
        synchronized (lock) {
            if (failed == null || failed == current) {
                suspect = true;
                lock.notifyAll();
            }
        }
    }

    @Override
    public Watch watch(String channel, Runnable onChange) {
        synchronized (lock) {
            return watches.open(current().node(), channel, onChange);
        }
    }

    @Override
    public void close() {
        Target last;
        Watch subscription;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            last = current;
            current = null;
            subscription = switchWatch;
            lock.notifyAll();
        }
        if (subscription != null) {
            subscription.close();
        }
        sentinels.close();
        if (last != null) {
            last.locks().close();
        }
    }

    @Override
    public String toString() {
        return "SentinelPrimary[" + settings.master() + " at " + current + " via " + sentinels.endpoints() + "]";
    }

    // ---- finding the primary ----------------------------------------------------------------

    /** At connect: passes over the Sentinels until one reports a node that answers as primary, or the deadline. */
    private Resolution resolveWithin(long deadlineNanos) {
        while (true) {
            List<String> failures = new ArrayList<>();
            int[] unknown = {0};
            List<LockException> refusals = new ArrayList<>();
            Resolution found = resolveOnce(deadlineNanos, null, failures, unknown, refusals);
            if (found != null) {
                return found;
            }
            if (refusals.size() == sentinels.size()) {
                // Every Sentinel refused us (its TLS certificate is not trusted, or it wants
                // credentials): asking again until the deadline cannot help.
                LockException first = refusals.get(0);
                refusals.subList(1, refusals.size()).forEach(first::addSuppressed);
                throw first;
            }
            if (unknown[0] == sentinels.size()) {
                throw new IllegalArgumentException("no Sentinel of " + sentinels.endpoints() + " knows a master named '"
                        + settings.master() + "' (SENTINEL get-master-addr-by-name answered nil on each); check ?master=");
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new BackendUnavailableException(sentinels.endpoints(), "no Sentinel of " + sentinels.endpoints()
                        + " reported a primary of '" + settings.master() + "' that answers as one within the connect timeout ("
                        + options.connectTimeout().toMillis() + " ms): " + String.join("; ", failures), null);
            }
            // A Sentinel may report a node mid-failover: ask again shortly.
            LockSupport.parkNanos(Math.min(left, MIN_BACKOFF_NANOS * 2));
        }
    }

    /**
     * One pass over the Sentinels, starting with the one this client subscribes to.
     *
     * @param known    the primary in use (checked in place when a Sentinel reports its address), or null
     * @param failures what each Sentinel or reported node answered that did not help, for messages
     * @param unknown  counts the Sentinels that do not know the master name
     * @param refusals collects the Sentinels' refusals of this client (a failed TLS handshake, credentials)
     * @return the primary and the Sentinel that reported it, or null
     */
    private Resolution resolveOnce(long deadlineNanos, Target known, List<String> failures, int[] unknown,
                                   List<LockException> refusals) {
        int n = sentinels.size();
        int first = Math.max(0, subscribedToNow());
        for (int k = 0; k < n; k++) {
            int i = (first + k) % n;
            if (k > 0 && System.nanoTime() - deadlineNanos >= 0) {
                failures.add("no time left to ask " + sentinels.endpoint(i));
                continue;
            }
            // A frozen Sentinel must leave the others time to answer within the connect timeout.
            long until = ServerList.turnDeadline(deadlineNanos, k, n);
            Sentinels.Address address;
            try {
                address = sentinels.ask(i, until);
            } catch (LockException e) {
                failures.add("Sentinel " + sentinels.endpoint(i) + ": " + e.getMessage());
                if (e instanceof AuthenticationException || e instanceof AccessDeniedException) {
                    refusals.add(e);
                }
                continue;
            }
            if (address == null) {
                unknown[0]++;
                failures.add("Sentinel " + sentinels.endpoint(i) + " does not know master '" + settings.master() + "'");
                continue;
            }
            Target target = verify(address, known, deadlineNanos, "Sentinel " + sentinels.endpoint(i), failures);
            if (target != null) {
                return new Resolution(target, i);
            }
        }
        return null;
    }

    /**
     * @return the node at {@code address} if it answers {@code ROLE master}: {@code known} itself if it is
     *         that node, else a new connection; null (the failure recorded) otherwise
     * @throws LockException if the node refuses the credentials (not retried: the URI is wrong)
     */
    private Target verify(Sentinels.Address address, Target known, long deadlineNanos, String reporter,
                          List<String> failures) {
        long until = Math.min(deadlineNanos, System.nanoTime() + options.operationTimeout().toNanos());
        if (known != null && address.is(known.node().endpoint())) {
            try {
                PrimaryCheck check = PrimaryCheck.ask(known.node(), until);
                if (check.isPrimary()) {
                    return known;
                }
                failures.add(reporter + " reports " + address + ", which answers ROLE " + check.role());
            } catch (BackendUnavailableException e) {
                failures.add(reporter + " reports " + address + ": " + e.getMessage());
            }
            return null;
        }
        RedisNode node = null;
        boolean keep = false;
        try {
            node = RedisNode.connect(settings.dataNode().withAddress(address.host(), address.port()),
                    options.connectTimeout(), options.operationTimeout(), settings.poolSize());
            // The connect may have used up the deadline: a node that answered it gets one reply's time to say what it is.
            PrimaryCheck check = PrimaryCheck.ask(node, System.nanoTime() + options.operationTimeout().toNanos());
            if (check.isPrimary()) {
                keep = true;
                return new Target(node, new RedisLockDriver(node, lateWrites, revocations), check);
            }
            failures.add(reporter + " reports " + address + " as primary of '" + settings.master() + "', which answers ROLE "
                    + check.role());
            return null;
        } catch (BackendUnavailableException e) {
            failures.add(reporter + " reports " + address + ": " + e.getMessage());
            return null;
        } finally {
            if (!keep && node != null) {
                node.close();
            }
        }
    }

    // ---- following it ----------------------------------------------------------------------

    private int subscribedToNow() {
        synchronized (lock) {
            return subscribedTo;
        }
    }

    /** Subscribes to {@code +switch-master} on Sentinel {@code i}, leaving the one subscribed before. Holds {@link #lock}. */
    private void subscribe(int i) {
        if (i == subscribedTo || closed) {
            return;
        }
        Watch previous = switchWatch;
        switchWatch = sentinels.subscribe(i, () -> suspect(null));
        subscribedTo = i;
        if (previous != null) {
            previous.close();
        }
    }

    /** The daemon thread: waits for a reason to look, looks, moves if the primary moved. */
    private void follow() {
        long backoff = MIN_BACKOFF_NANOS;
        boolean warned = false;
        while (true) {
            Target known;
            synchronized (lock) {
                while (!suspect && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return; // only close() could want this thread gone
                    }
                }
                if (closed) {
                    return;
                }
                suspect = false; // a failure reported from here on asks again
                known = current;
            }
            List<String> failures = new ArrayList<>();
            Resolution found = null;
            try {
                found = resolveOnce(System.nanoTime() + options.connectTimeout().toNanos(), known, failures, new int[1],
                        new ArrayList<>());
            } catch (RuntimeException e) {
                failures.add(e.toString()); // refused credentials, a reply it could not read: tried again below
            }
            if (found != null) {
                install(found, known, warned);
                backoff = MIN_BACKOFF_NANOS;
                warned = false;
                continue;
            }
            if (!warned) {
                warned = true;
                LOG.log(System.Logger.Level.WARNING, "cannot confirm the primary of ''{0}'' through the Sentinels {1}; asking"
                        + " again until one answers as primary: {2}", settings.master(), sentinels.endpoints(),
                        String.join("; ", failures));
            }
            synchronized (lock) {
                suspect = true;
                if (!closed) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(lock, backoff);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
        }
    }

    /** Makes {@code found} the primary if it is a new node; closes what is no longer used. */
    private void install(Resolution found, Target known, boolean wasLost) {
        Target retired = null;
        synchronized (lock) {
            if (closed) {
                if (found.target() != known) {
                    found.target().locks().close();
                }
                return;
            }
            if (found.target() != current) {
                retired = current;
                current = found.target();
                watches.moveTo(found.target().node());
                revocations.moveTo(retired.node(), found.target().node());
            }
            // The Sentinel subscribed to is asked first: if another one answered, it did not.
            subscribe(found.sentinel());
        }
        if (retired != null) {
            LOG.log(System.Logger.Level.INFO, "the primary of ''{0}'' moved from {1} to {2}; following it",
                    settings.master(), retired, found.target());
            retired.locks().close();
            watches.wakeAll();
        } else if (wasLost) {
            LOG.log(System.Logger.Level.INFO, "the primary of ''{0}'' at {1} answers again", settings.master(), found.target());
        }
    }
}
