package io.distlock;

/**
 * Observes what the locks of one client do: every acquire's outcome with the time it waited,
 * every lease's end with the time it was held, extensions and renewals, and losses with their
 * reason. Set one per client with {@link LockOptions.Builder#listener(LockListener)}; bind it to a
 * metrics system (the {@code lock-micrometer} module does so for Micrometer) or to a log.
 *
 * <p><b>Threads.</b> Events of an acquire, a release or a caller's extend are delivered on the
 * caller's thread, before the call returns; a renewal's, a loss's and a release by
 * {@link LockClient#close()} on the client's own threads. Keep {@link #onEvent} short and
 * non-blocking: it runs inside the lock's operations. An exception it throws is logged (logger
 * {@code io.distlock}, level WARNING) and otherwise ignored: a listener never changes what a lock does.
 *
 * <p><b>Cost.</b> A client without a listener creates no events at all.
 */
@FunctionalInterface
public interface LockListener {

    /**
     * Called once per event, on the thread described in the class comment.
     *
     * @param event what happened; never null
     */
    void onEvent(LockEvent event);
}
