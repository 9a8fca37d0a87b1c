package io.distlock.rediswait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.TestCertificates;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code redis-wait://} over TLS, both forms — the fixed primary and the Sentinels — on the TLS
 * replica set of {@link RedisWaitTlsTckTest}, with credentials from {@link LockOptions}.
 */
class RedisWaitTlsTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @BeforeAll
    static void start() {
        RedisWaitTlsTckTest.startServers();
    }

    @AfterAll
    static void stop() {
        RedisWaitTlsTckTest.stopServers();
    }

    private static LockOptions locker() {
        return LockOptions.builder().credentials(Credentials.of("locker", RedisWaitTlsTckTest.SECRET)).build();
    }

    @Test
    void theFixedPrimaryFormSpeaksTlsWithCredentialsFromTheOptions() {
        RedisReplicaSet set = RedisWaitTlsTckTest.set();
        String uri = "redis-wait://" + set.primaryEndpoint() + "?replicas=2"
                + RedisWaitTlsTckTest.tlsQuery(TestCertificates.shared());
        try (LockClient client = Locks.connect(uri, locker())) {
            Lease lease = client.lock("fixed-tls").tryAcquire(LEASE).orElseThrow();
            assertThat(set.call(set.primaryIndex(), "EXISTS", "distlock:{fixed-tls}")).isEqualTo(1L);
            lease.release();
            assertThat(client.toString()).doesNotContain(RedisWaitTlsTckTest.SECRET);
        }
    }

    @Test
    void theSentinelFormReadsASupplierAtConnect() {
        AtomicInteger reads = new AtomicInteger();
        LockOptions options = LockOptions.builder().credentials(() -> {
            reads.incrementAndGet();
            return Credentials.of("locker", RedisWaitTlsTckTest.SECRET);
        }).build();
        RedisReplicaSet set = RedisWaitTlsTckTest.set();
        String uri = "redis-wait://" + String.join(",", set.sentinelEndpoints()) + "?master=" + RedisReplicaSet.MASTER_NAME
                + RedisWaitTlsTckTest.tlsQuery(TestCertificates.shared());
        try (LockClient client = Locks.connect(uri, options)) {
            client.lock("sentinel-tls").tryAcquire(LEASE).orElseThrow().release();
        }
        assertThat(reads.get()).isPositive();
    }

    @Test
    void trustStoreOptionsWithoutTlsTrueAreRefusedBeforeAnyIo() {
        RedisReplicaSet set = RedisWaitTlsTckTest.set();
        String query = RedisWaitTlsTckTest.tlsQuery(TestCertificates.shared()).replace("&tls=true", "");
        assertThatThrownBy(() -> Locks.connect("redis-wait://" + String.join(",", set.sentinelEndpoints()) + "?master="
                + RedisReplicaSet.MASTER_NAME + query, locker()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls=true")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(TestCertificates.shared().trustStore().password()));
    }

    @Test
    void credentialsInTheUriAndTheOptionsAreRefused() {
        RedisReplicaSet set = RedisWaitTlsTckTest.set();
        assertThatThrownBy(() -> Locks.connect("redis-wait://locker:" + RedisWaitTlsTckTest.SECRET + "@"
                + set.primaryEndpoint() + "?" + RedisWaitTlsTckTest.tlsQuery(TestCertificates.shared()).substring(1),
                locker()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one place")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(RedisWaitTlsTckTest.SECRET));
    }
}
