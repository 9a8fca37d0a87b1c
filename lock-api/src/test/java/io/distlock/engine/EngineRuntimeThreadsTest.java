package io.distlock.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The production runtime's I/O threads: as many as the calls in flight need, at most two. */
class EngineRuntimeThreadsTest {

    private final EngineRuntime.Threads runtime = new EngineRuntime.Threads("test");

    @AfterEach
    void shutDown() {
        runtime.shutdown();
    }

    @Test
    void callsThatComeOneAtATimeKeepOneThread() throws InterruptedException {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 20; i++) {
            CountDownLatch done = new CountDownLatch(1);
            runtime.io().execute(() -> {
                threads.add(Thread.currentThread().getName());
                done.countDown();
            });
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            // the thread is idle again before the next call (a renewal tick, a cleanup round) comes
            await().until(() -> runtime.ioThreads().threads() == 1 && runtime.ioThreads().idle() == 1);
        }
        assertThat(threads).hasSize(1);
        assertThat(runtime.ioThreads().threads()).isEqualTo(1);
    }

    @Test
    void aCallBehindASlowOneGetsASecondThreadAndAThirdWaitsItsTurn() throws InterruptedException {
        CountDownLatch slowRuns = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        runtime.io().execute(() -> {
            slowRuns.countDown();
            awaitQuietly(release);
        });
        assertThat(slowRuns.await(10, TimeUnit.SECONDS)).isTrue();

        CountDownLatch secondRan = new CountDownLatch(1);
        CountDownLatch secondRelease = new CountDownLatch(1);
        runtime.io().execute(() -> {
            secondRan.countDown();
            awaitQuietly(secondRelease);
        });
        assertThat(secondRan.await(10, TimeUnit.SECONDS)).as("not stuck behind the slow call").isTrue();
        assertThat(runtime.ioThreads().threads()).isEqualTo(2);

        AtomicInteger third = new AtomicInteger();
        runtime.io().execute(third::incrementAndGet);
        assertThat(runtime.ioThreads().threads()).as("never more than two").isEqualTo(2);
        assertThat(third).hasValue(0); // both threads are busy: it waits

        release.countDown();
        await().until(() -> third.get() == 1);
        secondRelease.countDown();
        // the spare ends soon after (well before a renewal period); the last one stays a while
        await().atMost(10, TimeUnit.SECONDS).until(() -> runtime.ioThreads().threads() == 1);
        assertThat(runtime.ioThreads().idle()).isEqualTo(1);
    }

    @Test
    void aSpareThatIsNotNeededEndsEvenUnderSteadyWork() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        runtime.io().execute(() -> awaitQuietly(release));
        CountDownLatch ran = new CountDownLatch(1);
        runtime.io().execute(ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        // calls one at a time, every poll (100 ms), as renewal ticks make them: the two threads do not
        // take them in turn (both would stay); the one idle longer ends
        await().atMost(10, TimeUnit.SECONDS).until(() -> {
            CountDownLatch done = new CountDownLatch(1);
            runtime.io().execute(done::countDown);
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            return runtime.ioThreads().threads() == 1;
        });
        assertThat(runtime.ioThreads().threads()).isEqualTo(1);
    }

    @Test
    void manyCallsAtOnceAllRunOnAtMostTwoThreads() {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 1_000; i++) {
            runtime.io().execute(() -> {
                threads.add(Thread.currentThread().getName());
                ran.incrementAndGet();
            });
        }
        await().until(() -> ran.get() == 1_000);
        assertThat(threads).hasSizeBetween(1, 2);
    }

    @Test
    void aShutDownRuntimeRefusesWork() {
        runtime.shutdown();
        assertThatThrownBy(() -> runtime.io().execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
