package io.distlock.redis.support;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.spi.Attempt;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Watch;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.RedisServer;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The per-node primitive and the single-Redis driver, below the engine. */
class RedisNodeTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private RedisServer redis;
    private RedisNode node;
    private RedisLockDriver driver;
    private final RecordingContext context = new RecordingContext();

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        node = RedisNode.connect(RedisEndpoint.parse(URI.create(redis.uri()), RedisEndpoint.OPTIONS),
                Duration.ofSeconds(1), Duration.ofSeconds(2), 4);
        driver = new RedisLockDriver(node, context);
    }

    @AfterEach
    void stop() {
        driver.close();
        redis.close();
    }

    @Test
    void busyAttemptsCarryTheHoldersRemainingTime() {
        assertThat(driver.tryAcquire(request("a", "t1")).isGranted()).isTrue();
        Attempt busy = driver.tryAcquire(request("a", "t2"));
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.retryAfter()).hasValueSatisfying(d -> assertThat(d).isBetween(Duration.ofSeconds(29), LEASE));

        redis.call("SET", "distlock:{forever}", "someone");
        assertThat(driver.tryAcquire(request("forever", "t3")).retryAfter()).as("no expiry: no hint").isEmpty();
    }

    @Test
    void theSameRequestRetriedAfterALostReplyIsGrantedAgainWithANewFence() {
        LockRequest request = request("retried", "token-1");
        long first = driver.tryAcquire(request).grant().fencingToken().getAsLong();
        long second = driver.tryAcquire(request).grant().fencingToken().getAsLong();
        assertThat(second).isGreaterThan(first);
        assertThat(driver.tryAcquire(request("retried", "token-2")).isGranted()).isFalse();
    }

    @Test
    void releaseAndExtendTouchOnlyTheOwnersLock() {
        Grant mine = driver.tryAcquire(request("owned", "mine")).grant();
        Grant stale = new Grant(request("owned", "theirs"), OptionalLong.of(0), null);
        assertThat(driver.extend(stale, LEASE).isLost()).isTrue();
        assertThat(driver.release(stale)).isFalse();
        assertThat(redis.call("GET", "distlock:{owned}")).isEqualTo("mine");

        assertThat(driver.extend(mine, Duration.ofSeconds(60)).isExtended()).isTrue();
        assertThat((Long) redis.call("PTTL", "distlock:{owned}")).isGreaterThan(30_000L);
        assertThat(driver.release(mine)).isTrue();
        assertThat(driver.release(mine)).isFalse();
        assertThat(driver.extend(mine, LEASE).isLost()).isTrue();
    }

    @Test
    void abandonCleansUpOnlyWhenTheOutcomeIsUnknown() {
        LockRequest request = request("abandoned", "lost-reply");
        driver.tryAcquire(request);
        driver.abandon(request, false);
        assertThat(redis.call("EXISTS", "distlock:{abandoned}")).as("a busy attempt wrote nothing").isEqualTo(1L);
        driver.abandon(request, true);
        assertThat(redis.call("EXISTS", "distlock:{abandoned}")).isEqualTo(0L);
        driver.abandon(request("never-written", "x"), true); // nothing there: no error

        // A write of the withdrawn request that arrives now (late) takes nothing; others still can.
        assertThat(driver.tryAcquire(request).isGranted()).as("the withdrawn request, late").isFalse();
        assertThat(redis.call("EXISTS", "distlock:{abandoned}")).isEqualTo(0L);
        long markerTtl = (Long) redis.call("PTTL", "distlock:{abandoned}:abandoned:lost-reply");
        assertThat(markerTtl).as("the marker lives the lease time plus the operation timeout, no longer")
                .isBetween(LEASE.toMillis(), LEASE.toMillis() + 2_000);
        assertThat(driver.tryAcquire(request("abandoned", "next")).isGranted()).isTrue();
    }

    @Test
    void scriptFlushMidRunIsRecoveredByReloading() {
        Grant grant = driver.tryAcquire(request("flushed", "t1")).grant();
        redis.call("SCRIPT", "FLUSH");
        assertThat(driver.extend(grant, LEASE).isExtended()).isTrue();
        redis.call("SCRIPT", "FLUSH");
        assertThat(driver.extendAll(List.of(new Renewal(grant, LEASE)))).containsExactly(ExtendOutcome.extended());
        redis.call("SCRIPT", "FLUSH");
        assertThat(driver.release(grant)).isTrue();
        redis.call("SCRIPT", "FLUSH");
        assertThat(driver.tryAcquire(request("flushed", "t2")).isGranted()).isTrue();
    }

    @Test
    void extendAllRenewsAThousandLeasesInOnePipelineAndReportsEachInOrder() {
        List<Renewal> renewals = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Grant grant = driver.tryAcquire(request("bulk-" + i, "owner-" + i)).grant();
            // Every tenth renewal carries someone else's token: it must fail, alone.
            renewals.add(new Renewal(i % 10 == 0 ? new Grant(request("bulk-" + i, "intruder"), OptionalLong.empty(), null)
                    : grant, Duration.ofSeconds(90)));
        }
        driver.extendAll(renewals.subList(1, 2)); // the batch's connection has sent the script
        redis.call("SCRIPT", "FLUSH"); // the batch meets NOSCRIPT: re-sent in one pipeline
        long evalBefore = commandCalls("eval");
        long evalshaBefore = commandCalls("evalsha");

        List<ExtendOutcome> results = driver.extendAll(renewals);

        assertThat(results).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(results.get(i)).as("renewal %d", i).isEqualTo(ExtendOutcome.of(i % 10 != 0));
            long pttl = (Long) redis.call("PTTL", "distlock:{bulk-" + i + "}");
            assertThat(pttl).as("lease %d", i).isBetween(i % 10 == 0 ? 0L : 60_001L, i % 10 == 0 ? 30_000L : 90_000L);
        }
        // 1000 EVALSHA answered NOSCRIPT, then one EVAL (which reloads the script) and 999 EVALSHA
        // in one more round trip: never one round trip per lease.
        assertThat(commandCalls("eval") - evalBefore).isEqualTo(1);
        assertThat(commandCalls("evalsha") - evalshaBefore).isEqualTo(1999);
        assertThat(driver.extendAll(List.of())).isEmpty();
    }

    @Test
    void aWaitPipelinedAfterAScriptTheServerLostIsSentAgainAfterIt() {
        driver.tryAcquire(request("waited", "t"));
        node.runAll("warm up", List.of(RedisNode.extendCall("waited", "t", LEASE.toMillis()))); // the script was sent
        redis.call("SCRIPT", "FLUSH"); // the next EVALSHA meets NOSCRIPT, after which WAIT has already run
        long waitsBefore = commandCalls("wait");

        List<Object> replies = node.runAll("extend and wait", List.of(RedisNode.extendCall("waited", "t", LEASE.toMillis()),
                new PendingReply.CommandCall("WAIT", List.of("0", "0"))));

        assertThat(replies).containsExactly(1L, 0L);
        // The first WAIT ran before the script that was then sent again: it counted nothing of it.
        assertThat(commandCalls("wait") - waitsBefore).as("WAIT sent again after the reloaded script").isEqualTo(2);
    }

    @Test
    void batchesAndSingleCallsShareTheConnectionsOfAPoolOfOne() {
        RedisNode single = RedisNode.connect(RedisEndpoint.parse(URI.create(redis.uri()), RedisEndpoint.OPTIONS),
                Duration.ofSeconds(1), Duration.ofSeconds(1), 1);
        try (RedisLockDriver one = new RedisLockDriver(single, new RecordingContext())) {
            Grant grant = one.tryAcquire(request("pool-of-one", "t")).grant();
            assertThat(one.extendAll(List.of(new Renewal(grant, LEASE)))).containsExactly(ExtendOutcome.extended());
            // The batch's connection went back where the next single call finds it.
            assertThat(one.extend(grant, LEASE).isExtended()).isTrue();
            assertThat(one.releaseAll(List.of(grant))).isEmpty();
            assertThat(one.tryAcquire(request("pool-of-one", "u")).isGranted()).isTrue();
        }
    }

    @Test
    void releasesWakeWatchersOverOneSharedSubscriberConnection() {
        AtomicInteger wakes = new AtomicInteger();
        List<Watch> watches = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            watches.add(driver.watch("watched-" + (i % 10), wakes::incrementAndGet));
        }
        for (Watch watch : watches) {
            assertThat(watch.active()).succeedsWithin(Duration.ofSeconds(5)); // the server confirmed it
        }
        assertThat(subscriberConnections()).isEqualTo(1);
        assertThat(subscribers("distlock:released:{watched-3}")).as("subscribed once per lock").isEqualTo(1L);

        Grant grant = driver.tryAcquire(request("watched-3", "t")).grant();
        driver.release(grant);
        await().atMost(5, SECONDS).until(() -> wakes.get() == 5);

        watches.forEach(Watch::close);
        watches.get(0).close(); // idempotent
        await().atMost(5, SECONDS).until(() -> subscribers("distlock:released:{watched-3}") == 0L);
        assertThat(subscriberConnections()).as("the connection stays for later watchers").isEqualTo(1);
    }

    @Test
    void aReleaseWhoseAnnouncementReachedAWaiterSaysSoWithItsRoundTrip() {
        assertThat(driver.release(driver.tryAcquire(request("alone", "a")).grant())).isTrue();
        assertThat(context.wokeWaiters).as("nobody listened").isEmpty();

        Watch watch = driver.watch("waited", () -> { });
        assertThat(watch.active()).succeedsWithin(Duration.ofSeconds(5));
        Grant grant = driver.tryAcquire(request("waited", "b")).grant();
        long start = System.nanoTime();
        assertThat(driver.release(grant)).as("still reported released").isTrue();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(context.wokeWaiters).containsOnlyKeys("waited");
        assertThat(context.wokeWaiters.get("waited")).isPositive().isLessThanOrEqualTo(took);
        assertThat(driver.release(grant)).as("released already").isFalse();
        watch.close();
    }

    @Test
    void aWatchReturnsAtOnceAndIsActiveOnTheServersConfirmation() {
        try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
             RedisLockDriver slow = new RedisLockDriver(RedisNode.connect(RedisEndpoint.parse(
                     URI.create("redis://" + proxy.endpoint()), RedisEndpoint.OPTIONS), Duration.ofSeconds(1), Duration.ofSeconds(2), 2),
                     new RecordingContext())) {
            proxy.latency(Duration.ofMillis(300)); // a SUBSCRIBE round trip takes 600 ms
            AtomicInteger wakes = new AtomicInteger();
            long start = System.nanoTime();
            Watch watch = slow.watch("confirmed", wakes::incrementAndGet);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("watch() does not wait for the server")
                    .isLessThan(Duration.ofMillis(200));
            assertThat(watch.active().toCompletableFuture()).as("not confirmed yet").isNotDone();
            assertThat(watch.active()).succeedsWithin(Duration.ofSeconds(5));
            proxy.latency(Duration.ZERO);
            // Confirmed: a release from now on is heard.
            driver.release(driver.tryAcquire(request("confirmed", "t")).grant());
            await().atMost(5, SECONDS).until(() -> wakes.get() == 1);
            assertThat(slow.watch("confirmed", () -> { }).active().toCompletableFuture())
                    .as("a channel already confirmed: active at once").isCompleted();
            watch.close();
        }
    }

    @Test
    void aWatchWhileTheSubscriberIsDownIsNotWaitedFor() {
        Watch first = driver.watch("down", () -> { });
        assertThat(first.active()).succeedsWithin(Duration.ofSeconds(5));
        redis.kill();
        Watch during = driver.watch("down-too", () -> { });
        assertThat(during.active()).as("the subscriber cannot confirm it now: the caller must not wait")
                .failsWithin(Duration.ofSeconds(5));
        during.close();
        first.close();
    }

    @Test
    void aDroppedSubscriberReconnectsResubscribesAndWakesEveryWatcherOnce() {
        AtomicInteger wakes = new AtomicInteger();
        Watch a = driver.watch("reconnect-a", wakes::incrementAndGet);
        Watch b = driver.watch("reconnect-b", wakes::incrementAndGet);
        assertThat(b.active()).succeedsWithin(Duration.ofSeconds(5));
        redis.kill();
        redis.restart();
        await().atMost(10, SECONDS).until(() -> wakes.get() == 2);
        await().atMost(5, SECONDS).until(() -> subscribers("distlock:released:{reconnect-a}") == 1L);

        Grant grant = driver.tryAcquire(request("reconnect-a", "t")).grant();
        driver.release(grant);
        await().atMost(5, SECONDS).until(() -> wakes.get() == 3);
        a.close();
        b.close();
    }

    @Test
    void aClosedNodeRefusesWork() {
        driver.close();
        driver.close();
        assertThatThrownBy(() -> driver.tryAcquire(request("closed", "t")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(redis.endpoint());
        assertThatThrownBy(() -> driver.watch("closed", () -> { })).isInstanceOf(IllegalStateException.class);
    }

    private static LockRequest request(String name, String token) {
        return new LockRequest(name, token, LEASE);
    }

    private long subscribers(String channel) {
        return (Long) ((List<?>) redis.call("PUBSUB", "NUMSUB", channel)).get(1);
    }

    private long subscriberConnections() {
        return ((String) redis.call("CLIENT", "LIST")).lines().filter(line -> line.contains(" flags=P ")).count();
    }

    private long commandCalls(String command) {
        String stats = (String) redis.call("INFO", "commandstats");
        return stats.lines().filter(line -> line.startsWith("cmdstat_" + command + ":")).findFirst()
                .map(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))).orElse(0L);
    }
}
