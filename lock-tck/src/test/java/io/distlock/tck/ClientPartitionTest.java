package io.distlock.tck;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClientPartitionTest {

    @Test
    void aBackendWithoutSessionsDeclaresNone() {
        ClientPartition partition = ClientPartition.of(() -> null, Duration.ofSeconds(2), Duration.ofMillis(500));

        assertThat(partition.operationTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(partition.reconnect()).isEqualTo(Duration.ofMillis(500));
        assertThat(partition.sessionTimeout()).isZero();
    }

    @Test
    void aSessionStoreDeclaresItsSessionTimeout() {
        ClientPartition partition = ClientPartition.of(() -> null, Duration.ofSeconds(2), Duration.ZERO, Duration.ofSeconds(6));

        assertThat(partition.sessionTimeout()).isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void negativeDurationsAreRefusedByName() {
        assertThatThrownBy(() -> ClientPartition.of(() -> null, Duration.ofSeconds(2), Duration.ZERO, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sessionTimeout=PT-1S");
        assertThatThrownBy(() -> ClientPartition.of(null, Duration.ofSeconds(2), Duration.ZERO))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("open");
    }
}
