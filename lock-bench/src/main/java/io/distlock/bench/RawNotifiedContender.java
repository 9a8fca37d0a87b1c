package io.distlock.bench;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.params.SetParams;

/**
 * The floor of a notified hand-off: a hand-rolled lock on raw Jedis — {@code SET NX PX}, a Lua
 * compare-and-delete that {@code PUBLISH}es, and a subscriber thread per client that wakes its
 * waiter. No engine, no pool, no fence. Set against the distlock and Redisson contended rows it
 * shows how much of a hand-off is this machine's wake-up chain (server → subscriber thread →
 * waiting thread → acquire round trip) rather than any library.
 */
final class RawNotifiedContender implements Contended.Contender {

    static final String RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]);"
            + " redis.call('PUBLISH', ARGV[2], 'released') return 1 end return 0";

    private static final long TOKEN_BASE = System.nanoTime();

    private final Jedis commands;
    private final Jedis subscription;
    private final String key;
    private final String channel;
    private final String releaseSha;
    private final SetParams nxPx = SetParams.setParams().nx().px(10_000);
    private final Semaphore released = new Semaphore(0);
    private final JedisPubSub listener;
    private final Thread subscriber;
    private long counter;

    RawNotifiedContender(String host, int port, String key, int id) throws InterruptedException {
        this.commands = Floor.connect(host, port);
        this.subscription = Floor.connect(host, port);
        this.key = key;
        this.channel = key + ":released";
        this.releaseSha = commands.scriptLoad(RELEASE);
        CountDownLatch subscribed = new CountDownLatch(1);
        this.listener = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                released.release();
            }

            @Override
            public void onSubscribe(String channel, int count) {
                subscribed.countDown();
            }
        };
        this.subscriber = new Thread(() -> subscription.subscribe(listener, channel), "bench-raw-subscriber-" + id);
        subscriber.setDaemon(true);
        subscriber.start();
        if (!subscribed.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("raw subscriber to " + channel + " not confirmed in 10 s");
        }
        this.counter = TOKEN_BASE + id * 1_000_000_000L;
    }

    @Override
    public Object acquire() throws InterruptedException {
        String token = Long.toString(++counter);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadline < 0) {
            released.drainPermits(); // a release after this point leaves a permit, so none is missed
            if ("OK".equals(commands.set(key, token, nxPx))) {
                return token;
            }
            released.tryAcquire(100, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("no grant of " + key + " within 30 s");
    }

    @Override
    public void release(Object held) {
        commands.evalsha(releaseSha, List.of(key), List.of((String) held, channel));
    }

    @Override
    public void close() {
        listener.unsubscribe();
        try {
            subscriber.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        subscription.close();
        commands.close();
    }
}
