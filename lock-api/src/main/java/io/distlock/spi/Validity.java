package io.distlock.spi;

import io.distlock.LockOptions;

import java.time.Duration;

/**
 * The one formula for how long something the server granted can be trusted on this client's clock:
 * {@code start + time − drift}, on the monotonic clock. {@code start} is when the request was
 * <em>sent</em> — the server's timer started no earlier — so the time the round trip took is already
 * spent; {@code drift} ({@link LockOptions#clockDrift(Duration)}) allows for the server's clock
 * running faster than this one. A lease's validity, an extension's, a session's (its timeout since a
 * confirmed exchange) and Redlock's quorum validity (the lease time less the fan-out's elapsed time
 * and the drift) are all this.
 */
public final class Validity {

    private Validity() {
    }

    /**
     * @param options   the client's options (its drift allowance)
     * @param startNanos when the request was sent, on {@link System#nanoTime()} (or the engine's clock)
     * @param time      how long the server holds it from when it received the request (a lease time, a
     *                  session timeout)
     * @return the moment, on the same clock as {@code startNanos}, after which it must not be trusted
     */
    public static long deadline(LockOptions options, long startNanos, Duration time) {
        return startNanos + time.toNanos() - options.clockDrift(time).toNanos();
    }
}
