package io.distlock.rediscluster.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.ReadWriteScripts;
import io.distlock.redis.support.SemaphoreScripts;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The key-to-slot function against the values Redis's cluster specification gives, and distlock's
 * keys of one primitive all on one slot whatever the name. {@code RedisClusterBackendTest} checks
 * it against a real server's {@code CLUSTER KEYSLOT} too.
 */
class SlotsTest {

    @Test
    void computesTheSlotsOfTheSpecification() {
        assertThat(Slots.slot("123456789")).as("CRC16/XMODEM check value 0x31C3, mod 16384").isEqualTo(0x31C3);
        assertThat(Slots.slot("foo")).isEqualTo(12182);
        assertThat(Slots.slot("bar")).isEqualTo(5061);
    }

    @Test
    void hashesOnlyTheTagBetweenTheFirstBraces() {
        assertThat(Slots.slot("{user1000}.following")).isEqualTo(Slots.slot("{user1000}.followers")).isEqualTo(Slots.slot("user1000"));
        assertThat(Slots.slot("foo{}{bar}")).as("an empty first tag: the whole key").isNotEqualTo(Slots.slot("bar"));
        assertThat(Slots.slot("foo{{bar}}zap")).isEqualTo(Slots.slot("{bar"));
        assertThat(Slots.slot("foo{bar}{zap}")).isEqualTo(Slots.slot("bar"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders", "orders{7}", "a{b}c", "{}", "{", "x}y}", "ünïcödé", "with spaces and :colons:"})
    void putsEveryKeyOfAPrimitiveOnOneSlot(String name) {
        List<String> keys = Stream.of(LockScripts.lockKey(name), LockScripts.fenceKey(name), LockScripts.ownerKey(name),
                LockScripts.abandonedKey(name, "token"), LockScripts.revokedKey(name, "token"), LockScripts.releaseChannel(name),
                ReadWriteScripts.readersKey(name), ReadWriteScripts.writerKey(name), ReadWriteScripts.readersChannel(name),
                SemaphoreScripts.holdersKey(name), SemaphoreScripts.permitsKey(name)).toList();
        int slot = Slots.slotOf(keys);
        assertThat(keys).allSatisfy(key -> assertThat(Slots.slot(key)).as(key).isEqualTo(slot));
    }

    @Test
    void refusesKeysOnTwoSlots() {
        String name = "}starts-with-a-brace";
        assertThatThrownBy(() -> Slots.slotOf(List.of(LockScripts.lockKey(name), LockScripts.fenceKey(name))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("starts with '}'");
    }
}
