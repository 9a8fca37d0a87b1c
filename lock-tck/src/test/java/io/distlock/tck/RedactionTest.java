package io.distlock.tck;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedactionTest {

    @Test
    void masksTheUserInfoPasswordAndEveryPasswordOption() {
        assertThat(Redaction.uri("redis-wait://locker:pw-Real-4e02@127.0.0.1:1,127.0.0.1:2?master=m&tls=true"
                + "&trustStore=%2Ftmp%2Ft.p12&trustStorePassword=zkUH5x&keyStorePassword=k3y&waitTimeout=50", "tck-S3cret"))
                .isEqualTo("redis-wait://locker:***@127.0.0.1:1,127.0.0.1:2?master=m&tls=true"
                        + "&trustStore=%2Ftmp%2Ft.p12&trustStorePassword=***&keyStorePassword=***&waitTimeout=50");
    }

    @Test
    void masksTheGivenSecretWhereverItIsAndLeavesAUriWithoutPasswordsAlone() {
        assertThat(Redaction.uri("etcd://127.0.0.1:1/p?token=tck-S3cret", "tck-S3cret")).isEqualTo("etcd://127.0.0.1:1/p?token=***");
        assertThat(Redaction.uri("zookeeper://127.0.0.1:1,127.0.0.1:2/chroot?sessionTimeout=4000", "tck-S3cret"))
                .isEqualTo("zookeeper://127.0.0.1:1,127.0.0.1:2/chroot?sessionTimeout=4000");
        assertThat(Redaction.uri("redis://user@127.0.0.1:1", "tck-S3cret")).isEqualTo("redis://user@127.0.0.1:1");
        assertThat(Redaction.uri("redis://:pw-only@127.0.0.1:1", "tck-S3cret")).isEqualTo("redis://:***@127.0.0.1:1");
    }
}
