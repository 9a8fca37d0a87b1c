package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockEvent;
import io.distlock.LockEvent.Type;
import io.distlock.LockInfo;
import io.distlock.LockOptions;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An operator's calls (inspect, holders, revoke) as the engine puts them before a driver: the
 * backend's declared feature and the arguments are checked first, a revoke ends this client's own
 * lease at once, a holder told of a revocation (a notification, an extension's answer) loses its
 * lease as REVOKED, and both sides' listeners hear the reason. Backends are verified by the TCK.
 */
class EngineInspectionTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private final ManualRuntime runtime = new ManualRuntime();
    private final ScriptedDriver driver = new ScriptedDriver(runtime::nanoTime, false, true);
    private final List<LockEvent> events = new CopyOnWriteArrayList<>();
    private final EngineClient client = EngineClient.connect(driver.backend(), URI.create("scripted://operator"),
            LockOptions.builder().listener(events::add).build(), runtime);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aBackendWithoutTheFeaturesIsRefusedBeforeItsDriverIsCalled() {
        ScriptedDriver plain = new ScriptedDriver(runtime::nanoTime, false);
        try (LockClient c = EngineClient.connect(plain.backend(), URI.create("scripted://plain"), LockOptions.defaults(), runtime)) {
            assertThatThrownBy(() -> c.inspect("a")).isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("INSPECTION");
            assertThatThrownBy(() -> c.holders("", 10)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("INSPECTION");
            assertThatThrownBy(() -> c.revoke("a", "stuck")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("REVOCATION");
        }
        assertThat(plain.calls).noneMatch(call -> call.startsWith("inspect") || call.startsWith("holders") || call.startsWith("revoke"));
    }

    @Test
    void badArgumentsAreRefusedWithWhatWasWrongAndNothingReachesTheServer() {
        assertThatThrownBy(() -> client.inspect(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> client.inspect(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> client.revoke("a", null)).isInstanceOf(NullPointerException.class).hasMessageContaining("reason");
        assertThatThrownBy(() -> client.revoke("a", "two\nlines")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control character (U+000A) at index 3");
        assertThatThrownBy(() -> client.revoke("a", "x".repeat(LockClient.MAX_REASON_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit is 256");
        assertThatThrownBy(() -> client.holders(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> client.holders("a\u0007", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix has a control character");
        assertThatThrownBy(() -> client.holders("", 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> client.holders("", LockClient.MAX_HOLDERS_LIMIT + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(driver.calls).isEmpty();
        client.close();
        assertThatThrownBy(() -> client.revoke("a", "stuck")).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void revokingALeaseThisClientHoldsEndsItAtOnceAndBothSidesHearTheReason() throws Exception {
        Lease lease = client.lock("job").tryAcquire(LEASE).orElseThrow();
        runtime.advance(TimeUnit.MILLISECONDS.toNanos(500));

        Optional<LockInfo> revoked = client.revoke("job", "stuck since 02:10");

        assertThat(revoked).map(LockInfo::name).contains("job");
        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isZero();
        List<LockEvent> revocations = events.stream().filter(e -> e.type() == Type.REVOKED).toList();
        assertThat(revocations).hasSize(2).allSatisfy(e -> assertThat(e.revocationReason()).contains("stuck since 02:10"));
        assertThat(revocations.get(0).lossReason()).as("the holder's side, first").contains(Lease.LossReason.REVOKED);
        assertThat(revocations.get(0).duration()).as("the hold time").isEqualTo(Duration.ofMillis(500));
        assertThat(revocations.get(1).lossReason()).as("the operator's side").isEmpty();
        assertThat(events).noneMatch(e -> e.type() == Type.LOST);
        assertThat(client.revoke("job", "again")).as("nothing held: nothing revoked").isEmpty();
    }

    @Test
    void aRevocationTheDriverHearsOfEndsTheLeaseOfThatOwnerTokenOnly() throws Exception {
        Lease lease = client.lock("heard").tryAcquire(LEASE).orElseThrow();
        Lease other = client.lock("other").tryAcquire(LEASE).orElseThrow();

        driver.context.leaseRevoked("not-a-token-of-this-client", "elsewhere");
        driver.context.leaseRevoked(driver.lastOwner("heard"), "maintenance");

        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        assertThat(other.isValid()).isTrue();
        assertThat(events).filteredOn(e -> e.type() == Type.REVOKED).singleElement()
                .satisfies(e -> assertThat(e.revocationReason()).contains("maintenance"));
    }

    @Test
    void anExtensionAnsweredRevokedEndsTheLeaseAsRevokedWithTheReason() throws Exception {
        Lease lease = client.lock("renewed").tryAcquire(LEASE).orElseThrow();
        // Another client revoked it, and this one missed the notification: the server's marker answers its extend.
        driver.server.remove("renewed");
        driver.revocations.put(driver.lastOwner("renewed"), "operator: stuck");

        assertThat(lease.extend(LEASE)).isFalse();

        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        assertThat(events).filteredOn(e -> e.type() == Type.REVOKED).singleElement()
                .satisfies(e -> assertThat(e.revocationReason()).contains("operator: stuck"));
    }

    @Test
    void aRenewalAnsweredRevokedEndsTheLeaseAsRevoked() throws Exception {
        Lease lease = client.lock("auto").tryAcquire(LEASE).orElseThrow().autoRenew();
        driver.server.remove("auto");
        driver.revocations.put(driver.lastOwner("auto"), "rebalancing");
        runtime.advance(TimeUnit.SECONDS.toNanos(1)); // a third of the lease: the keeper renews
        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
    }

    @Test
    void aRevocationThatOvertakesItsGrantGivesTheGrantBackInsteadOfAValidLease() {
        // The operator revokes the grant the server just made; its notification reaches this client
        // before the acquire's own answer does.
        driver.attempts = request -> {
            io.distlock.spi.Attempt granted = driver.model(request);
            driver.server.remove(request.name());
            driver.context.leaseRevoked(request.ownerToken(), "taken back at once");
            driver.attempts = null;
            return granted;
        };
        assertThatThrownBy(() -> client.lock("overtaken").tryAcquire(LEASE))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("revoked the grant before it reached this client (taken back at once)");
        assertThat(driver.calls).as("the grant is given back").anyMatch(call -> call.equals("release overtaken"));
        assertThat(client.lock("overtaken").tryAcquire(LEASE)).as("a fresh request is granted as usual").isPresent();
    }

    @Test
    void anUnansweredRevokeIsUnavailableNeverNotHeld() {
        driver.away = true;
        assertThatThrownBy(() -> client.revoke("any", "stuck")).isInstanceOf(BackendUnavailableException.class);
        assertThatThrownBy(() -> client.inspect("any")).isInstanceOf(BackendUnavailableException.class);
    }

    @Test
    void theOwnerDescriptionIsTheOptionsOrUserAtHostPidAndAClientId() {
        String owner = driver.context.owner();
        assertThat(owner).matches("[^@\\s]+@[^:\\s]+:" + ProcessHandle.current().pid() + "/[0-9a-f]{6}");
        ScriptedDriver second = new ScriptedDriver(runtime::nanoTime, false, true);
        try (LockClient c = EngineClient.connect(second.backend(), URI.create("scripted://second"), LockOptions.defaults(), runtime)) {
            assertThat(second.context.owner()).as("two clients of one process (%s)", c).isNotEqualTo(owner);
        }
        ScriptedDriver named = new ScriptedDriver(runtime::nanoTime, false, true);
        try (LockClient c = EngineClient.connect(named.backend(), URI.create("scripted://named"),
                LockOptions.builder().owner("billing-worker-3").build(), runtime)) {
            assertThat(named.context.owner()).isEqualTo("billing-worker-3");
            assertThat(c.inspect("none")).isEmpty();
        }
        assertThatThrownBy(() -> LockOptions.builder().owner("a\tb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owner has a control character");
        assertThatThrownBy(() -> LockOptions.builder().owner("x".repeat(257))).isInstanceOf(IllegalArgumentException.class);
        assertThat(LockOptions.builder().owner("ops").build().toBuilder().build().owner()).contains("ops");
    }
}
