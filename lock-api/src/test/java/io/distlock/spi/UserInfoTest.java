package io.distlock.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.distlock.Credentials;
import io.distlock.LockOptions;

import java.net.URI;

import org.junit.jupiter.api.Test;

class UserInfoTest {

    @Test
    void theUriOrTheOptionsCarryCredentialsNeverBoth() {
        URI withUser = URI.create("zookeeper://alice:p%40ss@127.0.0.1:2181/x");
        Credentials c = UserInfo.credentials(withUser, LockOptions.defaults()).orElseThrow();
        assertEquals("alice", c.username().orElseThrow());
        assertArrayEquals("p@ss".toCharArray(), c.password());

        LockOptions options = LockOptions.builder().credentials(Credentials.of("bob", "pw-of-bob")).build();
        URI plain = URI.create("zookeeper://127.0.0.1:2181/x");
        assertEquals("bob", UserInfo.credentials(plain, options).orElseThrow().username().orElseThrow());

        IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> UserInfo.credentials(withUser, options));
        assertFalse(both.getMessage().contains("p@ss") || both.getMessage().contains("pw-of-bob"), both.getMessage());
        assertTrue(UserInfo.credentials(plain, LockOptions.defaults()).isEmpty());
    }

    @Test
    void aPasswordAloneHasNoUserAndAUserAloneIsRefused() {
        Credentials c = UserInfo.fromUri(URI.create("redis://:only-pw@127.0.0.1:6379")).orElseThrow();
        assertTrue(c.username().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> UserInfo.fromUri(URI.create("etcd://alice@127.0.0.1:2379")));
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> UserInfo.fromUri(URI.create("etcd://alice:@127.0.0.1:2379")));
        assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
    }
}
