package io.distlock.redis.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** {@link RedisEndpoint#parseNodes}: several servers in one URI (Redlock's). */
class RedisEndpointNodesTest {

    private static final Set<String> OPTIONS = Set.of("nodeTimeout");

    @Test
    void everyNodeSharesUserInfoDatabaseAndOptions() {
        List<RedisEndpoint> nodes = RedisEndpoint.parseNodes(
                URI.create("redlock://bob:p%40ss@a.example:7001,b.example,10.0.0.3:7003/3?nodeTimeout=20"), OPTIONS);
        assertThat(nodes).extracting(RedisEndpoint::endpoint).containsExactly("a.example:7001", "b.example:6379", "10.0.0.3:7003");
        assertThat(nodes).allSatisfy(node -> {
            assertThat(node.user()).isEqualTo("bob");
            assertThat(node.password()).isEqualTo("p@ss");
            assertThat(node.database()).isEqualTo(3);
            assertThat(node.option("nodeTimeout")).isEqualTo("20");
        });
    }

    @Test
    void badListsAreRefusedWithoutThePassword() {
        for (String bad : new String[] {"redlock://u:SECRET@h1:1,,h3:3", "redlock://u:SECRET@h1:1,h2:x,h3:3",
                "redlock://u:SECRET@h1:1,h2:2?other=1", "redlock:opaque"}) {
            assertThatThrownBy(() -> RedisEndpoint.parseNodes(URI.create(bad), OPTIONS)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageNotContaining("SECRET");
        }
    }
}
