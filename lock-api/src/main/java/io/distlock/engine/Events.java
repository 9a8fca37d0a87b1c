package io.distlock.engine;

import io.distlock.Lease;
import io.distlock.LockEvent;
import io.distlock.LockListener;
import io.distlock.LockOptions;

import java.time.Duration;

/**
 * The client's {@link LockListener}, if it has one: every part that sees an event tells it here, so
 * that every backend reports the same events at the same points. Without a listener no event is
 * even created (the bench's uncontended row pays nothing).
 */
final class Events {

    private final LockListener listener;
    private final String scheme;

    Events(LockOptions options, String scheme) {
        this.listener = options.listener().orElse(null);
        this.scheme = scheme;
    }

    /** @return true if a listener is set: only then are events worth creating (a hold time, a clock read) */
    boolean listening() {
        return listener != null;
    }

    /**
     * Tells the listener, if any. Its failure is logged and otherwise ignored: a listener never
     * changes what a lock does, and an exception from it must not look like the lock's own.
     */
    void emit(LockEvent.Type type, String lockName, long nanos, Lease.LossReason reason, Throwable failure) {
        emit(type, lockName, nanos, reason, failure, null);
    }

    /**
     * A {@link LockEvent.Type#REVOKED} event: on the holder's side with the loss reason, on the
     * operator's without.
     */
    void revoked(String lockName, long nanos, Lease.LossReason reason, String revocationReason) {
        emit(LockEvent.Type.REVOKED, lockName, nanos, reason, null, revocationReason);
    }

    private void emit(LockEvent.Type type, String lockName, long nanos, Lease.LossReason reason, Throwable failure,
                      String revocationReason) {
        LockListener l = listener;
        if (l == null) {
            return;
        }
        try {
            l.onEvent(new LockEvent(type, scheme, lockName, Duration.ofNanos(Math.max(0, nanos)), reason, failure,
                    revocationReason));
        } catch (RuntimeException e) {
            EngineClient.LOG.log(System.Logger.Level.WARNING, "lock listener " + l.getClass().getName() + " failed on a " + type
                    + " event of '" + lockName + "'; ignored", e);
        }
    }
}
