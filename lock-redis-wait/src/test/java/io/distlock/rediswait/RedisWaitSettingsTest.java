package io.distlock.rediswait;

import io.distlock.rediswait.internal.RedisWaitSettings;

import java.net.URI;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The two URI forms and their defaults, before any I/O. */
class RedisWaitSettingsTest {

    private static final String SECRET = "s3cr3t-Pa55";

    @Test
    void theFixedFormNamesThePrimaryWithItsCredentialsAndTheDefaults() {
        RedisWaitSettings settings = RedisWaitSettings.parse(URI.create("redis-wait://alice:" + SECRET + "@10.0.0.5:6380/2"));
        assertThat(settings.viaSentinel()).isFalse();
        assertThat(settings.sentinels()).isEmpty();
        assertThat(settings.dataNode().endpoint()).isEqualTo("10.0.0.5:6380");
        assertThat(settings.dataNode().user()).isEqualTo("alice");
        assertThat(settings.dataNode().password()).isEqualTo(SECRET);
        assertThat(settings.dataNode().database()).isEqualTo(2);
        assertThat(settings.replicas()).isEqualTo(1);
        assertThat(settings.waitTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(settings.poolSize()).isEqualTo(8);
        assertThat(settings.toString()).doesNotContain(SECRET);
    }

    @Test
    void withMasterTheHostsAreSentinelsAskedWithoutTheDataNodesCredentialsOrDatabase() {
        RedisWaitSettings settings = RedisWaitSettings.parse(URI.create("redis-wait://alice:" + SECRET
                + "@s1:26379,s2:26380/3?master=orders&replicas=2&waitTimeout=200&poolSize=4&clientName=app"));
        assertThat(settings.viaSentinel()).isTrue();
        assertThat(settings.master()).isEqualTo("orders");
        assertThat(settings.sentinels()).extracting(e -> e.endpoint()).containsExactly("s1:26379", "s2:26380");
        assertThat(settings.sentinels()).allSatisfy(sentinel -> {
            assertThat(sentinel.user()).isNull();
            assertThat(sentinel.password()).isNull();
            assertThat(sentinel.database()).isZero();
        });
        // The data nodes' credentials, database and options, at whatever address the Sentinels report.
        var primary = settings.dataNode().withAddress("10.0.0.9", 6379);
        assertThat(primary.endpoint()).isEqualTo("10.0.0.9:6379");
        assertThat(primary.password()).isEqualTo(SECRET);
        assertThat(primary.database()).isEqualTo(3);
        assertThat(primary.option("clientName")).isEqualTo("app");
        assertThat(settings.replicas()).isEqualTo(2);
        assertThat(settings.waitTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(settings.poolSize()).isEqualTo(4);
        assertThat(settings.toString()).doesNotContain(SECRET);
    }

    @Test
    void aSentinelListedTwiceIsRefused() {
        assertThatThrownBy(() -> RedisWaitSettings.parse(URI.create("redis-wait://:" + SECRET + "@s1:1,s1:1?master=m")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice").hasMessageNotContaining(SECRET);
    }
}
