package io.distlock;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ContractTypesTest {

    @Test
    void correctnessWithoutFencingIsRefused() {
        assertThatThrownBy(() -> new BackendDescriptor("x", Guarantee.CORRECTNESS, Set.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FENCING_TOKENS");
        assertThatThrownBy(() -> new BackendDescriptor("x", Guarantee.EFFICIENCY, Set.of(Feature.AUTO_RENEWAL)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LEASE_EXTENSION");
        assertThatThrownBy(() -> new BackendDescriptor("Redis", Guarantee.EFFICIENCY, Set.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scheme");
    }

    @Test
    void descriptorKeepsAnUnmodifiableCopy() {
        EnumSet<Feature> features = EnumSet.of(Feature.FENCING_TOKENS);
        BackendDescriptor d = new BackendDescriptor("zk", Guarantee.CORRECTNESS, features);
        features.add(Feature.QUORUM);
        assertThat(d.features()).containsExactly(Feature.FENCING_TOKENS);
        assertThat(d.has(Feature.QUORUM)).isFalse();
        assertThatThrownBy(() -> d.features().add(Feature.QUORUM)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void anUnconfirmedLeaseIsALockExceptionButNoLoss() {
        LeaseUnconfirmedException unconfirmed = new LeaseUnconfirmedException("stock", "could not be confirmed");
        assertThat(unconfirmed).isInstanceOf(LockException.class).isNotInstanceOf(LeaseLostException.class)
                .isNotInstanceOf(BackendUnavailableException.class).hasMessage("could not be confirmed");
        assertThat(unconfirmed.lockName()).isEqualTo("stock");
        assertThatThrownBy(() -> new LeaseUnconfirmedException(null, "x")).isInstanceOf(NullPointerException.class);
        LeaseLostException refused = new LeaseLostException("stock", Lease.LossReason.NOT_HELD, "cannot re-enter");
        assertThat(refused).hasMessage("cannot re-enter");
        assertThat(refused.reason()).isEqualTo(Lease.LossReason.NOT_HELD);
        assertThat(new LeaseLostException("stock", Lease.LossReason.EXPIRED)).hasMessageContaining("'stock'")
                .hasMessageContaining("EXPIRED");
    }

    @Test
    void driftFollowsTheRedlockFormula() {
        LockOptions defaults = LockOptions.defaults();
        assertThat(defaults.clockDrift(Duration.ofSeconds(10))).isEqualTo(Duration.ofMillis(102));
        LockOptions none = LockOptions.builder().clockDrift(0, Duration.ZERO).build();
        assertThat(none.clockDrift(Duration.ofSeconds(10))).isZero();
        assertThat(defaults.toBuilder().build().toString()).isEqualTo(defaults.toString());
    }

    @Test
    void optionsRejectAbsurdValues() {
        LockOptions.Builder b = LockOptions.builder();
        assertThatThrownBy(() -> b.connectTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> b.operationTimeout(Duration.ofHours(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.clockDrift(0.5, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.clockDrift(Double.NaN, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.retryBackoff(Duration.ofMillis(10), Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter");
        assertThatThrownBy(() -> b.connectTimeout(null)).isInstanceOf(NullPointerException.class);
    }
}
