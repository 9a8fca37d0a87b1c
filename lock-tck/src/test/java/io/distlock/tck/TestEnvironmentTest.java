package io.distlock.tck;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestEnvironmentTest {

    @Test
    void oneFactorScalesEveryDuration() {
        TestEnvironment slow = new TestEnvironment(3);
        TestEnvironment normal = new TestEnvironment(1);

        assertThat(slow.shortLease()).isEqualTo(normal.shortLease().multipliedBy(3));
        assertThat(slow.defaultTimeout()).isEqualTo(normal.defaultTimeout().multipliedBy(3));
        assertThat(slow.tolerance()).isEqualTo(normal.tolerance().multipliedBy(3));
        assertThat(normal.shortLease()).isEqualTo(Duration.ofMillis(300));
    }

    @Test
    void theFactorComesFromTheSystemProperty() {
        String before = System.getProperty(TestEnvironment.TIMEOUT_FACTOR_PROPERTY);
        try {
            System.setProperty(TestEnvironment.TIMEOUT_FACTOR_PROPERTY, "2.5");
            assertThat(new TestEnvironment().timeoutFactor()).isEqualTo(2.5);
            System.setProperty(TestEnvironment.TIMEOUT_FACTOR_PROPERTY, "fast");
            assertThatThrownBy(TestEnvironment::new).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("distlock.tck.timeoutFactor");
        } finally {
            if (before == null) {
                System.clearProperty(TestEnvironment.TIMEOUT_FACTOR_PROPERTY);
            } else {
                System.setProperty(TestEnvironment.TIMEOUT_FACTOR_PROPERTY, before);
            }
        }
    }

    @Test
    void rejectsNonsenseFactors() {
        assertThatThrownBy(() -> new TestEnvironment(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TestEnvironment(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void awaitUntilFailsWithWhatWasAwaited() {
        TestEnvironment env = new TestEnvironment(1);
        assertThatThrownBy(() -> env.awaitUntil("pigs to fly", Duration.ofMillis(50), () -> false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("pigs to fly");
    }

    @Test
    void assertHoldsFailsAtTheFirstViolationWithoutWaitingTheSpan() {
        TestEnvironment env = new TestEnvironment(1);
        AtomicInteger checks = new AtomicInteger();
        long start = System.nanoTime();

        assertThatThrownBy(() -> env.assertHoldsFor("the sky stays up", Duration.ofSeconds(10), () -> checks.incrementAndGet() < 3))
                .isInstanceOf(AssertionError.class).hasMessageContaining("violated after").hasMessageContaining("the sky stays up");
        assertThat(TestEnvironment.since(start)).isLessThan(Duration.ofSeconds(5));
        assertThat(checks).hasValue(3);
    }

    @Test
    void assertHoldsChecksForTheWholeSpan() {
        TestEnvironment env = new TestEnvironment(1);
        long start = System.nanoTime();
        env.assertHoldsFor("true stays true", Duration.ofMillis(100), () -> true);
        assertThat(TestEnvironment.since(start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }
}
