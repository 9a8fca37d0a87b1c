package io.distlock.redis.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * {@link RedisScript}'s sharded twins: the same Lua, notifying waiters with {@code SPUBLISH} for a
 * Redis Cluster, where the node has a subscriber; the revocation notice, which every client must hear wherever it listens, stays a
 * plain {@code PUBLISH} in both.
 */
class RedisScriptTest {

    private static final List<RedisScript> NOTIFYING = List.of(LockScripts.RELEASE, LockScripts.ABANDON, LockScripts.REVOKE,
            ReadWriteScripts.REVOKE, SemaphoreScripts.REVOKE);

    @Test
    void aScriptThatNotifiesWaitersHasATwinThatSPublishes() {
        for (RedisScript script : NOTIFYING) {
            RedisScript twin = script.sharded();
            assertThat(twin).as(script.name()).isNotSameAs(script);
            assertThat(script.source()).as(script.name()).startsWith("local function notify(").contains("return redis.call('PUBLISH', channel")
                    .doesNotContain("SPUBLISH");
            assertThat(twin.source()).as(script.name()).startsWith("local function notify(")
                    .contains("'SHARDNUMSUB', channel)[2] > 0 then return redis.call('SPUBLISH', channel")
                    .endsWith(script.source().substring(script.source().indexOf('\n')));
            assertThat(twin.sha1()).isNotEqualTo(script.sha1());
            assertThat(twin.sharded()).as("a twin is its own twin").isSameAs(twin);
        }
    }

    @Test
    void revocationNoticesStayPlainPublishes() {
        for (RedisScript script : List.of(LockScripts.REVOKE, ReadWriteScripts.REVOKE, SemaphoreScripts.REVOKE)) {
            assertThat(script.sharded().source()).as(script.name()).contains("redis.call('PUBLISH', ARGV[5], token");
        }
    }

    @Test
    void aScriptThatNotifiesNoOneIsItsOwnTwin() {
        assertThat(LockScripts.EXTEND.sharded()).isSameAs(LockScripts.EXTEND);
        assertThat(LockScripts.EXTEND.source()).doesNotContain("notify(");
    }
}
