package io.distlock.engine;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArgumentsTest {

    @Test
    void namesMustBePresentShortAndPrintable() {
        assertThat(Arguments.name("orders/42 – ñ")).isEqualTo("orders/42 – ñ");
        assertThat(Arguments.name("x".repeat(LockClient.MAX_NAME_LENGTH))).hasSize(LockClient.MAX_NAME_LENGTH);
        assertThatThrownBy(() -> Arguments.name(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> Arguments.name(" \t")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> Arguments.name("x".repeat(LockClient.MAX_NAME_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("257 characters").hasMessageContaining("256");
        assertThatThrownBy(() -> Arguments.name("a\nb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("U+000A").hasMessageContaining("index 1");
    }

    @Test
    void leaseTimesMustBeWithinTheDocumentedRange() {
        assertThat(Arguments.leaseTime(DistributedLock.MIN_LEASE_TIME)).isEqualTo(DistributedLock.MIN_LEASE_TIME);
        assertThat(Arguments.leaseTime(DistributedLock.MAX_LEASE_TIME)).isEqualTo(DistributedLock.MAX_LEASE_TIME);
        assertThatThrownBy(() -> Arguments.leaseTime(null)).isInstanceOf(NullPointerException.class);
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofMillis(9),
                Duration.ofDays(1).plusNanos(1), Duration.ofSeconds(Long.MAX_VALUE)}) {
            assertThatThrownBy(() -> Arguments.leaseTime(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("leaseTime must be between");
        }
    }

    @Test
    void maxWaitIsNonNegativeAndSaturates() {
        assertThat(Arguments.maxWaitNanos(Duration.ZERO)).isZero();
        assertThat(Arguments.maxWaitNanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Arguments.FOREVER.toNanos());
        assertThat(System.nanoTime() + Arguments.maxWaitNanos(Duration.ofSeconds(Long.MAX_VALUE)))
                .as("deadline arithmetic must not overflow").isGreaterThan(0);
        assertThatThrownBy(() -> Arguments.maxWaitNanos(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Arguments.maxWaitNanos(null)).isInstanceOf(NullPointerException.class);
    }
}
