package io.distlock.engine;

import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Read-write locks and semaphores as the engine puts them before a driver: refused by name where the
 * backend does not declare them, arguments checked first, and every acquire asking the driver for its
 * kind of hold (the one acquire loop, the one lease); the {@code ReadWriteLock} view refuses upgrade and
 * downgrade before anything is sent. What may be granted beside what is the driver's: the TCK's group 9
 * verifies that on every backend.
 */
class EngineSharedHoldTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false);
    private LockClient client;

    private LockClient connect() {
        driver.declared = ScriptedDriver.SHARED_HOLDS_DESCRIPTOR;
        client = EngineClient.connect(driver.backend(), URI.create("scripted://shared"), LockOptions.defaults(), runtime);
        return client;
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void aBackendWithoutTheFeaturesRefusesThemNamingTheFeatureBeforeItsDriverIsCalled() {
        try (LockClient plain = EngineClient.connect(driver.backend(), URI.create("scripted://plain"), LockOptions.defaults(), runtime)) {
            assertThatThrownBy(() -> plain.readWriteLock("a")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("READ_WRITE").hasMessageContaining("scripted");
            assertThatThrownBy(() -> plain.semaphore("a", 3)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("SEMAPHORE");
            assertThat(driver.calls).isEmpty();
        }
    }

    @Test
    void badArgumentsAreRefusedWithWhatWasWrong() {
        LockClient c = connect();
        assertThatThrownBy(() -> c.semaphore("a", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must be between 1 and 10000, was 0");
        assertThatThrownBy(() -> c.semaphore("a", LockClient.MAX_PERMITS + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.semaphore(null, 2)).isInstanceOf(NullPointerException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> c.readWriteLock(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> c.semaphore("a", 2).tryAcquire(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(driver.calls).isEmpty();
        c.close();
        assertThatThrownBy(() -> c.semaphore("a", 2)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> c.readWriteLock("a")).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void everyAcquireAsksTheDriverForItsKindOfHoldAndGetsALease() throws Exception {
        LockClient c = connect();
        grantEverything();
        DistributedReadWriteLock rw = c.readWriteLock("cache");
        DistributedSemaphore semaphore = c.semaphore("partner", 3);
        Lease read = rw.readLock().tryAcquire(LEASE).orElseThrow();
        Lease write = rw.writeLock().tryAcquire(LEASE, Duration.ofSeconds(1)).orElseThrow();
        Lease permit = semaphore.acquire(LEASE);
        assertThat(driver.holds).containsExactly(Hold.READ, Hold.WRITE, Hold.permit(3));
        for (Lease lease : List.of(read, write, permit)) {
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.lockName()).isIn("cache", "partner");
            lease.release();
        }
        assertThat(driver.count("release")).isEqualTo(3);
        assertThat(semaphore.permits()).isEqualTo(3);
        assertThat(semaphore.name()).isEqualTo("partner");
        assertThat(rw.name()).isEqualTo("cache");
    }

    @Test
    void aWaiterWatchesWhatItsOwnRequestWaitsFor() throws Exception {
        LockClient c = connect();
        driver.attempts = request -> Attempt.busy(Duration.ofSeconds(10));
        CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return c.readWriteLock("cache").readLock().tryAcquire(LEASE, Duration.ofMillis(200));
            } catch (InterruptedException e) {
                return e;
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> !driver.watches.isEmpty() || waiting.isDone());
        assertThat(driver.watches).containsExactly("cache READ");
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(300));
        waiting.cancel(true);
    }

    @Test
    void theReadWriteLockViewLetsThreadsReadAtOnceAndRefusesUpgradeAndDowngrade() throws Exception {
        LockClient c = connect();
        grantEverything();
        ReadWriteLock view = c.readWriteLock("cache").asReadWriteLock(LEASE);
        Lock read = view.readLock();
        Lock write = view.writeLock();
        read.lock();
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            boolean got = read.tryLock();
            if (got) {
                read.unlock();
            }
            return got;
        });
        assertThat(other.get(10, TimeUnit.SECONDS)).as("a second thread reads beside the first, under a lease of its own").isTrue();
        assertThat(driver.holds).containsExactly(Hold.READ, Hold.READ);
        assertThatThrownBy(write::tryLock).isInstanceOf(IllegalStateException.class).hasMessageContaining("upgrade refused");
        assertThatThrownBy(write::lock).isInstanceOf(IllegalStateException.class).hasMessageContaining("upgrade refused");
        assertThat(driver.holds).as("a refused upgrade sends nothing").hasSize(2);
        read.unlock();
        assertThatThrownBy(read::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(write.tryLock()).isTrue();
        assertThatThrownBy(read::tryLock).isInstanceOf(IllegalStateException.class).hasMessageContaining("downgrade refused");
        assertThat(driver.holds).containsExactly(Hold.READ, Hold.READ, Hold.WRITE);
        write.unlock();
        assertThatThrownBy(() -> read.newCondition()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(read.tryLock()).as("after the writer unlocked, the thread reads again").isTrue();
        read.unlock();
    }

    /** The driver grants every request (what may be held beside what is not the engine's concern). */
    private void grantEverything() {
        driver.attempts = request -> Attempt.granted(new Grant(request, OptionalLong.empty(), null));
    }

    @Test
    void holdsAreShownAndRevokedThroughTheDriverAfterTheFeaturesAndArgumentsAreChecked() throws Exception {
        LockClient plain = connect();
        DistributedSemaphore undeclared = plain.semaphore("pool", 2);
        assertThatThrownBy(undeclared::holders).isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("INSPECTION");
        assertThatThrownBy(() -> undeclared.revoke("1", "stuck")).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("REVOCATION");
        plain.close();

        driver.declared = ScriptedDriver.SHARED_OPERATOR_DESCRIPTOR;
        client = EngineClient.connect(driver.backend(), URI.create("scripted://operator"), LockOptions.defaults(), runtime);
        DistributedSemaphore pool = client.semaphore("pool", 2);
        Lease mine = pool.tryAcquire(LEASE).orElseThrow();
        driver.holdOwners.put("7", driver.lastOwner("pool"));
        driver.holdOwners.put("9", "a token of another client");
        driver.calls.clear();

        assertThatThrownBy(() -> pool.revoke(null, "stuck")).isInstanceOf(NullPointerException.class).hasMessageContaining("hold id");
        assertThatThrownBy(() -> pool.revoke(" ", "stuck")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> pool.revoke("7", "two\nlines")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control character");
        assertThat(driver.calls).as("nothing reached the server").isEmpty();

        assertThat(pool.holders()).extracting(info -> info.holdId().orElseThrow()).containsExactly("7", "9");
        assertThat(driver.calls).containsExactly("holds pool SEMAPHORE");

        assertThat(pool.revoke("7", "stuck since 02:10")).map(info -> info.holdId().orElseThrow()).contains("7");
        assertThat(mine.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).as("this client's own permit ends at once")
                .isEqualTo(Lease.LossReason.REVOKED);
        assertThat(mine.isValid()).isFalse();
        assertThat(pool.revoke("7", "again")).as("no such hold: nothing revoked").isEmpty();
        DistributedReadWriteLock rw = client.readWriteLock("pool");
        assertThat(rw.holders()).allMatch(info -> info.kind() == io.distlock.LockInfo.Kind.READ);
        assertThat(driver.calls).contains("holds pool READ_WRITE");
        client.close();
        assertThatThrownBy(pool::holders).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
