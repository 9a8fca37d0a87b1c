package io.distlock.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * The lock order between a line and what it waits on. A CI run of {@code distlock check etcd://…}
 * hung in a client's close: the closing thread held the line's monitor and closed the line's feed
 * subscription (which takes the feed's lock), while jetcd's thread held that feed's lock and told
 * the line its wait was over (which takes the line's monitor). These tests play both threads with
 * a wait whose close takes a lock the other thread holds, the way a feed's does.
 */
class EtcdLineTest {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static EtcdLine line() {
        return new EtcdLine("distlock/", "client-1", 0, "distlock/line/", new LockRequest("line-order", "token-1",
                Duration.ofSeconds(10), Long.MAX_VALUE), "tester");
    }

    @Test
    void stoppingTheWaitDoesNotHoldTheLineWhileItsFeedTellsTheLine() throws Exception {
        assertNoDeadlock(EtcdLine::stopWatching);
    }

    @Test
    void replacingTheWaitDoesNotHoldTheLineWhileItsFeedTellsTheLine() throws Exception {
        assertNoDeadlock(line -> line.watching(() -> { }, ByteSequence.from("other", StandardCharsets.UTF_8)));
    }

    private interface OnLine {
        void run(EtcdLine line);
    }

    /**
     * The feed's thread takes its lock and waits until the closing thread is blocked on it inside the
     * wait's close; then it tells the line (its callback). Before the fix both threads waited for
     * each other for ever.
     */
    private static void assertNoDeadlock(OnLine closing) throws Exception {
        Object feedLock = new Object();
        EtcdLine line = line();
        EtcdLine.Wait wait = () -> {
            synchronized (feedLock) { // a feed subscription's close: Feed.remove takes the feed's lock
                feedLock.notifyAll();
            }
        };
        line.watching(wait, ByteSequence.from("predecessor", StandardCharsets.UTF_8));

        CountDownLatch feedLocked = new CountDownLatch(1);
        AtomicReference<Thread> closer = new AtomicReference<>();
        CompletableFuture<Void> feed = CompletableFuture.runAsync(() -> {
            synchronized (feedLock) { // jetcd's thread delivering an event, under the feed's lock
                feedLocked.countDown();
                await().atMost(PATIENCE).until(() -> closer.get() != null && closer.get().getState() == Thread.State.BLOCKED);
                line.watchBroke(wait); // the subscription's callback: takes the line's monitor
            }
        });
        feedLocked.await();
        CompletableFuture<Void> close = new CompletableFuture<>();
        Thread closingThread = new Thread(() -> {
            closing.run(line);
            close.complete(null);
        }, "closing-the-line");
        closingThread.setDaemon(true);
        closer.set(closingThread);
        closingThread.start();

        assertThat(feed).as("the feed's thread told the line").succeedsWithin(PATIENCE);
        assertThat(close).as("the closing thread closed the wait").succeedsWithin(PATIENCE);
        assertThat(line.watches(ByteSequence.from("predecessor", StandardCharsets.UTF_8))).isFalse();
    }
}
