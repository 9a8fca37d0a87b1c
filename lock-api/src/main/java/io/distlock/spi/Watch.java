package io.distlock.spi;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A registration for change notifications, from {@link LockDriver#watch}.
 */
@FunctionalInterface
public interface Watch extends AutoCloseable {

    /** A watch that was never registered (it is "active" at once: there is nothing to wait for). */
    Watch NONE = () -> { };

    /**
     * Completes once the watch is active on the server: a change after that is notified. A driver
     * whose registration is synchronous keeps the default, complete at once. Completes
     * exceptionally if the registration failed (the engine then polls instead).
     *
     * @return a stage that completes when the watch is active
     */
    default CompletionStage<Void> active() {
        return CompletableFuture.completedFuture(null);
    }

    /** Stops the notifications. Idempotent; never throws. */
    @Override
    void close();
}
