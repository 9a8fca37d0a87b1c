package io.distlock.redis.support;

import io.distlock.spi.Backoff;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Release notifications from one Redis server: one subscriber connection and one daemon thread,
 * however many locks and waiters there are. A channel is subscribed when its first listener
 * arrives and unsubscribed when its last one leaves.
 *
 * <p>If the connection drops, the thread reconnects with exponential back-off, subscribes again
 * and calls every listener once (a release during the outage would otherwise go unheard; a
 * spurious wake only costs the waiter one attempt). A silently dead connection (a partition
 * without RST) is not detected: waiters then fall back on the engine's bounded back-off.
 *
 * <p><b>Sharded</b> ({@code SSUBSCRIBE}, Redis 7): a Redis Cluster node takes only shard channels
 * of the slots it serves, and there is no control channel to keep the connection subscribed, so the
 * connection is made when the first channel is watched and left when the last one goes. When the
 * node stops serving a channel's slot (a migration or a failover moved it) it unsubscribes the
 * channel itself, and an {@code SSUBSCRIBE} of a channel it does not serve is refused; either way
 * the owner is told ({@code moved}) so that it watches the channel again on the node that serves
 * it now.
 */
final class RedisSubscriber implements AutoCloseable {

    /** Always subscribed, so that the connection has a subscription even when no lock is watched. */
    static final String CONTROL_CHANNEL = "distlock:subscriber";

    /** Between reconnects of a subscriber connection that dropped or was refused. */
    private static final Backoff RECONNECT = Backoff.exponential(Duration.ofMillis(10), Duration.ofSeconds(1));

    /** Between subscriptions the server's ACL refused: it is not going to change its mind every second. */
    private static final Duration REFUSED_RETRY = Duration.ofMinutes(1);

    private final RedisEndpoint endpoint;
    private final JedisClientConfig config;
    private final Duration operationTimeout;
    /** For a sharded subscriber, told each channel the server stopped serving here; null for a plain one. */
    private final Consumer<String> moved;

    // Guards everything below; also serializes writes on the subscriber connection, which the
    // subscriber thread reads from concurrently.
    private final Object lock = new Object();
    private final Map<String, Channel> channels = new HashMap<>();
    private final Set<String> requested = new HashSet<>();
    private Thread thread;
    private Jedis connection;
    private Subscription pubSub;
    private boolean connecting;
    private boolean connected;
    private boolean closed;

    private static final class Channel {
        final List<Registration> listeners = new CopyOnWriteArrayList<>();
        boolean confirmed;
    }

    private final class Registration implements Watch {
        final String channel;
        /** Told each message; null once after a reconnect (a message may have been missed). */
        final Consumer<String> listener;
        final AtomicBoolean open = new AtomicBoolean(true);
        /** Completes on the server's confirmation of the channel's SUBSCRIBE (see {@link #watch}). */
        final CompletableFuture<Void> active = new CompletableFuture<>();

        Registration(String channel, Consumer<String> listener) {
            this.channel = channel;
            this.listener = listener;
        }

        @Override
        public CompletionStage<Void> active() {
            return active.minimalCompletionStage();
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                unwatch(this);
            }
        }
    }

    /** {@code SUBSCRIBE} or {@code SSUBSCRIBE} on the subscriber connection. */
    private interface Subscription {
        void add(String channel);

        void remove(String channel);
    }

    RedisSubscriber(RedisEndpoint endpoint, JedisClientConfig config, Duration operationTimeout) {
        this(endpoint, config, operationTimeout, null);
    }

    /**
     * @param moved for a sharded subscriber ({@code SSUBSCRIBE}), told each channel this node no
     *              longer serves (its registrations stay, unconfirmed, until closed); null for plain
     *              {@code SUBSCRIBE}
     */
    RedisSubscriber(RedisEndpoint endpoint, JedisClientConfig config, Duration operationTimeout, Consumer<String> moved) {
        this.endpoint = endpoint;
        this.config = config;
        this.operationTimeout = operationTimeout;
        this.moved = moved;
    }

    private boolean sharded() {
        return moved != null;
    }

    /**
     * Calls {@code listener} with every message on {@code channel} (and with null once after a
     * reconnect) until the returned watch is closed. Returns at once, without waiting for the server: the watch's {@link Watch#active()}
     * completes when the server confirms the subscription (from then on a release published is
     * heard), or at once if the channel is already confirmed. It completes exceptionally if the
     * subscriber connection is down or drops before the confirmation: the caller then knows not to
     * wait for it (the reconnect subscribes again and calls the listener once, so nothing is missed
     * for good). The only I/O on the caller's thread is writing the {@code SUBSCRIBE} on an open
     * connection, which a socket's buffer absorbs.
     */
    Watch watch(String channel, Consumer<String> listener) {
        Registration registration = new Registration(channel, listener);
        boolean down;
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the Redis subscriber for " + endpoint + " is closed");
            }
            Channel ch = channels.computeIfAbsent(channel, c -> new Channel());
            ch.listeners.add(registration);
            if (ch.confirmed) {
                registration.active.complete(null);
                return registration;
            }
            if (connected && requested.add(channel)) {
                send(() -> pubSub.add(channel));
            }
            startThread();
            lock.notifyAll(); // a sharded subscriber's thread may be waiting for a first channel
            down = !connected && !connecting; // waiting out a reconnect back-off
        }
        if (down) {
            registration.active.completeExceptionally(new IllegalStateException("the Redis subscriber connection to "
                    + endpoint + " is down; it reconnects and then calls every listener once"));
        }
        return registration;
    }

    private void unwatch(Registration registration) {
        synchronized (lock) {
            Channel ch = channels.get(registration.channel);
            if (ch == null || !ch.listeners.remove(registration) || !ch.listeners.isEmpty()) {
                return;
            }
            channels.remove(registration.channel);
            if (connected && requested.remove(registration.channel)) {
                send(() -> pubSub.remove(registration.channel));
            }
        }
    }

    @Override
    public void close() {
        Thread running;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            running = thread;
            if (connection != null) {
                // Closing the socket ends the thread's blocking read.
                closeQuietly(connection);
            }
            lock.notifyAll();
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(operationTimeout.toMillis() + 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---- the subscriber thread ------------------------------------------------------------

    private void startThread() {
        if (thread == null) {
            connecting = true; // so that the first watch waits for the first connection
            thread = new Thread(this::run, "distlock-redis-pubsub-" + endpoint);
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void run() {
        int failures = 0;
        boolean reconnect = false;
        boolean refused = false;
        while (true) {
            Jedis jedis = null;
            String[] initial;
            boolean idle = false;
            synchronized (lock) {
                // A sharded connection exists only while some channel is watched (it has no control channel).
                while (sharded() && channels.isEmpty() && !closed) {
                    if (!awaitLock(TimeUnit.SECONDS.toNanos(1))) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                connecting = true;
            }
            try {
                jedis = new Jedis(new HostAndPort(endpoint.host(), endpoint.port()), config);
                jedis.ping(); // connects and authenticates, within the connect and socket timeouts
                Listener listener = new Listener(reconnect);
                ShardedListener shardedListener = sharded() ? new ShardedListener(listener) : null;
                synchronized (lock) {
                    if (closed) {
                        closeQuietly(jedis);
                        return;
                    }
                    connection = jedis;
                    pubSub = shardedListener != null ? shardedListener : listener;
                    requested.clear();
                    requested.addAll(channels.keySet());
                    List<String> names = new ArrayList<>();
                    if (shardedListener == null) {
                        names.add(CONTROL_CHANNEL);
                    }
                    names.addAll(requested);
                    initial = names.toArray(new String[0]);
                }
                failures = 0;
                if (shardedListener == null) {
                    jedis.subscribe(listener, initial); // blocks until the connection ends
                } else if (initial.length > 0) {
                    shardedListener.proceed(jedis.getConnection(), initial); // until it ends, or its last channel goes
                    idle = true;
                }
            } catch (JedisException | IllegalStateException e) {
                if (sharded() && RedisFailure.of(e) == RedisFailure.REDIRECTED) {
                    // A channel whose slot this node does not serve (the owner's map was stale): the
                    // owner places every channel again; the ones still served here are subscribed anew
                    // after the usual back-off (a map still stale must not make this a busy loop).
                    movedAll();
                }
                // Dropped or refused: reconnect below unless closing. A user whose ACL refuses the
                // subscription (an ACL line without +subscribe) is refused again at once: ask rarely.
                refused = RedisFailure.of(e) == RedisFailure.ACCESS_DENIED;
            } finally {
                List<Registration> unconfirmed = new ArrayList<>();
                synchronized (lock) {
                    connecting = false;
                    connected = false;
                    connection = null;
                    pubSub = null;
                    for (Channel ch : channels.values()) {
                        ch.confirmed = false;
                        unconfirmed.addAll(ch.listeners);
                    }
                    lock.notifyAll();
                }
                if (jedis != null) {
                    closeQuietly(jedis);
                }
                IllegalStateException down = new IllegalStateException("the Redis subscriber connection to " + endpoint
                        + " dropped before the subscription was confirmed; it reconnects");
                unconfirmed.forEach(r -> r.active.completeExceptionally(down)); // no-op for confirmed ones
            }
            if (idle) {
                failures = 0; // left on purpose, not dropped: no back-off, nothing missed
                continue;
            }
            reconnect = true;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                if (!awaitLock(refused ? REFUSED_RETRY.toNanos() : RECONNECT.delayNanos(++failures))) {
                    return;
                }
            }
        }
    }

    /** Runs on the subscriber thread, inside {@code jedis.subscribe}. */
    private final class Listener extends JedisPubSub implements Subscription {
        private final boolean reconnect;
        /** The connection's subscription commands: this listener's own, or a sharded listener's. */
        private Subscription commands = this;

        Listener(boolean reconnect) {
            this.reconnect = reconnect;
        }

        @Override
        public void add(String channel) {
            subscribe(channel);
        }

        @Override
        public void remove(String channel) {
            unsubscribe(channel);
        }

        /** The connection is subscribed: from now on a watch sends its own command. */
        private void connected() {
            synchronized (lock) {
                connecting = false;
                connected = true;
                // Catch up with watches that came and went while the connection was being made.
                for (String name : channels.keySet()) {
                    if (requested.add(name)) {
                        send(() -> commands.add(name));
                    }
                }
                for (String name : new ArrayList<>(requested)) {
                    if (!channels.containsKey(name)) {
                        requested.remove(name);
                        send(() -> commands.remove(name));
                    }
                }
                lock.notifyAll();
            }
            if (reconnect) {
                notifyAllListeners();
            }
        }

        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            if (CONTROL_CHANNEL.equals(channel)) {
                connected();
                return;
            }
            confirm(channel);
        }

        private void confirm(String channel) {
            List<Registration> confirmed;
            synchronized (lock) {
                Channel ch = channels.get(channel);
                if (ch == null) {
                    return;
                }
                ch.confirmed = true;
                confirmed = List.copyOf(ch.listeners);
            }
            confirmed.forEach(r -> r.active.complete(null)); // outside the lock: dependents run here
        }

        @Override
        public void onMessage(String channel, String message) {
            Channel ch;
            synchronized (lock) {
                ch = channels.get(channel);
            }
            if (ch != null) {
                ch.listeners.forEach(r -> call(r, message));
            }
        }
    }

    /**
     * The sharded form ({@code SSUBSCRIBE}), runs on the subscriber thread inside {@code proceed}:
     * the first confirmation marks the connection subscribed, as the control channel's does for a
     * plain one; an unsubscription the client did not ask for is the server giving the slot away.
     */
    private final class ShardedListener extends JedisShardedPubSub implements Subscription {
        private final Listener common;
        private boolean first = true;

        ShardedListener(Listener common) {
            this.common = common;
            common.commands = this;
        }

        @Override
        public void add(String channel) {
            ssubscribe(channel);
        }

        @Override
        public void remove(String channel) {
            sunsubscribe(channel);
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            if (first) {
                first = false;
                common.connected();
            }
            common.confirm(channel);
        }

        @Override
        public void onSMessage(String channel, String message) {
            common.onMessage(channel, message);
        }

        @Override
        public void onSUnsubscribe(String channel, int subscribedChannels) {
            boolean unasked;
            synchronized (lock) {
                unasked = requested.remove(channel) && channels.containsKey(channel);
                Channel ch = channels.get(channel);
                if (ch != null) {
                    ch.confirmed = false;
                }
            }
            if (unasked) {
                moved.accept(channel);
            }
        }
    }

    /** Every watched channel reported moved: the owner places them again. */
    private void movedAll() {
        List<String> all;
        synchronized (lock) {
            all = new ArrayList<>(channels.keySet());
        }
        all.forEach(moved);
    }

    private void notifyAllListeners() {
        List<Registration> all = new ArrayList<>();
        synchronized (lock) {
            channels.values().forEach(ch -> all.addAll(ch.listeners));
        }
        all.forEach(r -> call(r, null));
    }

    private static void call(Registration registration, String message) {
        if (!registration.open.get()) {
            return;
        }
        try {
            registration.listener.accept(message);
        } catch (RuntimeException e) {
            // A listener's failure must not end the subscription for everyone else.
            System.getLogger("io.distlock.redis").log(System.Logger.Level.WARNING,
                    "a lock change listener failed: " + e, e);
        }
    }

    // ---- helpers --------------------------------------------------------------------------

    /** Writes on the subscriber connection; a failure there is the subscriber thread's to handle. */
    private static void send(Runnable write) {
        try {
            write.run();
        } catch (JedisException e) {
            // The connection is going down; the thread reconnects and subscribes everything again.
        }
    }

    /** Waits on the monitor (held by the caller); false if interrupted, with the flag kept. */
    private boolean awaitLock(long nanos) {
        try {
            TimeUnit.NANOSECONDS.timedWait(lock, nanos);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void closeQuietly(Jedis jedis) {
        try {
            jedis.close();
        } catch (RuntimeException ignored) {
            // Already broken.
        }
    }
}
