package io.distlock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class CredentialsTest {

    @Test
    void toStringShowsTheUserAndNeverThePassword() {
        Credentials c = Credentials.of("alice", "pa55-word");
        assertFalse(c.toString().contains("pa55-word"), c.toString());
        assertTrue(c.toString().contains("alice"), c.toString());
        assertFalse(LockOptions.builder().credentials(c).build().toString().contains("pa55-word"));
    }

    @Test
    void thePasswordIsCopiedInAndOut() {
        char[] given = "secret".toCharArray();
        Credentials c = Credentials.of(null, given);
        given[0] = 'X';
        char[] read = c.password();
        assertArrayEquals("secret".toCharArray(), read);
        read[0] = 'Y';
        assertArrayEquals("secret".toCharArray(), c.password());
        assertTrue(c.username().isEmpty());
    }

    @Test
    void badCredentialsAreRefused() {
        assertThrows(NullPointerException.class, () -> Credentials.of("u", (String) null));
        assertThrows(IllegalArgumentException.class, () -> Credentials.of("u", ""));
        assertThrows(IllegalArgumentException.class, () -> Credentials.of(" ", "pw"));
    }

    @Test
    void aSupplierIsAskedAtEachReadSoARotatedSecretIsSeen() {
        AtomicInteger calls = new AtomicInteger();
        List<String> secrets = List.of("first", "second");
        LockOptions options = LockOptions.builder()
                .credentials(() -> Credentials.of("svc", secrets.get(Math.min(calls.getAndIncrement(), 1)))).build();
        assertArrayEquals("first".toCharArray(), options.credentials().orElseThrow().password());
        assertArrayEquals("second".toCharArray(), options.toBuilder().build().credentials().orElseThrow().password());
        assertEquals(2, calls.get());
    }

    @Test
    void aFailingSupplierBecomesALockExceptionWithoutItsText() {
        LockOptions throwing = LockOptions.builder().credentials(() -> {
            throw new IllegalStateException("cannot read /vault/pw: contents were hunter2");
        }).build();
        LockException e = assertThrows(LockException.class, throwing::credentials);
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        assertTrue(e.getMessage().contains("IllegalStateException"), e.getMessage());
        assertThrows(LockException.class, LockOptions.builder().credentials(() -> null).build()::credentials);
        assertTrue(LockOptions.defaults().credentials().isEmpty());
    }
}
