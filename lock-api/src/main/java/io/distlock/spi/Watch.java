package io.distlock.spi;

/**
 * A registration for change notifications, from {@link LockDriver#watch}.
 */
@FunctionalInterface
public interface Watch extends AutoCloseable {

    /** A watch that was never registered. */
    Watch NONE = () -> { };

    /** Stops the notifications. Idempotent; never throws. */
    @Override
    void close();
}
