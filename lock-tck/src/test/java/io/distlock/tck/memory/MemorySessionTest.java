package io.distlock.tck.memory;

/**
 * The reference shaped like a session store ({@code memory-session}: the server never expires a
 * grant; the engine ends each lease through {@code LockDriver.leaseExpired}) must pass every rule
 * the reference passes: the engine's lease end makes {@code leaseTime} mean the same on it. Its
 * revocation is a session expiry, which the holder's driver hears of at once.
 */
class MemorySessionTest extends MemoryVerification {

    MemorySessionTest() {
        super("memory-session", "session", true);
    }

    @Override
    protected boolean sessionStore() {
        return true;
    }
}
