package io.distlock.zookeeper.internal;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ZkEndpointTest {

    @Test
    void parsesHostsChrootCredentialsAndOptions() {
        ZkEndpoint e = ZkEndpoint.parse(URI.create("zookeeper://alice:s3cr%40t@Zk1:2181,zk2,10.0.0.3:2183/apps/locks?sessionTimeout=4000"));
        assertThat(e.connectString()).isEqualTo("zk1:2181,zk2:2181,10.0.0.3:2183");
        assertThat(e.chroot()).isEqualTo("/apps/locks");
        assertThat(e.credentials()).hasValueSatisfying(c -> {
            assertThat(c.username()).hasValue("alice");
            assertThat(new String(c.password())).isEqualTo("s3cr@t");
        });
        assertThat(e.tls()).isEmpty();
        assertThat(e.sessionTimeoutMillis(10_000)).isEqualTo(4000);
        assertThat(e.toString()).isEqualTo("zookeeper://zk1:2181,zk2:2181,10.0.0.3:2183/apps/locks").doesNotContain("s3cr");
        // java.net.URI accepts a bracketed IPv6 address only as the sole host of the authority
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://[::1]:2183")).connectString()).isEqualTo("[::1]:2183");
    }

    @Test
    void defaultsToTheDistlockChrootAndNoCredentials() {
        ZkEndpoint e = ZkEndpoint.parse(URI.create("zookeeper://127.0.0.1:2181"));
        assertThat(e.chroot()).isEqualTo(ZkEndpoint.DEFAULT_CHROOT);
        assertThat(e.credentials()).isEmpty();
        assertThat(e.sessionTimeoutMillis(10_000)).isEqualTo(10_000);
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://127.0.0.1:2181/")).chroot()).isEqualTo(ZkEndpoint.DEFAULT_CHROOT);
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://h/zookeeperish")).chroot()).isEqualTo("/zookeeperish");
    }

    @Test
    void aBarePathIsNoChrootWhileAChrootEndingInASlashIsMalformed() {
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://h:2181/")).chroot()).isEqualTo(ZkEndpoint.DEFAULT_CHROOT);
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://h:2181/?sessionTimeout=4000")).chroot())
                .isEqualTo(ZkEndpoint.DEFAULT_CHROOT);
        assertThatThrownBy(() -> ZkEndpoint.parse(URI.create("zookeeper://h:2181/apps/locks/")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the chroot '/apps/locks/' must not end with '/' (write /apps/locks;"
                        + " a bare '/' is no chroot, i.e. /distlock)");
    }

    @Test
    void rejectsWhatZooKeeperCannotUseWithoutShowingThePassword() {
        for (String bad : List.of("zookeeper://u:pw-XYZ@h:0", "zookeeper://u:pw-XYZ@h:65536", "zookeeper://u:pw-XYZ@h:x",
                "zookeeper://u:pw-XYZ@h,", "zookeeper://u:pw-XYZ@h/a/", "zookeeper://u:pw-XYZ@h/a//b",
                "zookeeper://u:pw-XYZ@h/zookeeper", "zookeeper://u:pw-XYZ@h/zookeeper/x", "zookeeper://u:pw-XYZ@h/a/./b",
                "zookeeper://u:pw-XYZ@h?sessionTimeout=100", "zookeeper://u:pw-XYZ@h?foo=pw-XYZ", "zookeeper://pw-XYZ@h",
                "zookeeper:opaque", "zookeeper://u:pw-XYZ@h?tls=yes", "zookeeper://u:pw-XYZ@h?trustStore=/nonexistent",
                "zookeeper://u:pw-XYZ@h?tls=false&trustStorePassword=pw-XYZ", "zookeeper://u:pw-XYZ@h?tls=true&trustStore=/nonexistent",
                "zookeeper://u:pw-XYZ@h?tls=true&trustStorePassword=pw-XYZ", "zookeeper://u%3Av:pw-XYZ@h")) {
            assertThatThrownBy(() -> ZkEndpoint.parse(new URI(bad)), bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .satisfies(t -> assertThat(t.getMessage()).as(bad).doesNotContain("pw-XYZ"));
        }
    }

    @Test
    void tlsStoreOptionsWithoutTlsTrueSayToAddIt() {
        assertThatThrownBy(() -> ZkEndpoint.parse(URI.create("zookeeper://h?trustStore=/tmp/x.p12")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("add tls=true");
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://h?tls=true")).tls())
                .hasValueSatisfying(t -> assertThat(t.isDefault()).isTrue());
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://h?tls=false")).tls()).isEmpty();
        assertThat(ZkEndpoint.parse(URI.create("zookeeper://h?tls=true")).toString()).isEqualTo("zookeeper://h:2181/distlock");
    }
}
