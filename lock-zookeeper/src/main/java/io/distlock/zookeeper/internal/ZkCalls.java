package io.distlock.zookeeper.internal;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import org.apache.zookeeper.KeeperException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Waiting for the ZooKeeper client's asynchronous calls, bounded by the operation timeout, and
 * turning their failures into the contract's exceptions. Waits are not interruptible: a reply
 * is on its way within the timeout, and the engine decides what an interrupt means (it gives a
 * late grant back and reports the interrupt); the interrupt flag is kept.
 */
final class ZkCalls {

    private final String endpoint;
    private final Duration timeout;
    private final Supplier<String> principal;

    /**
     * @param endpoint  the endpoint, for messages
     * @param timeout   the operation timeout
     * @param principal who this client is to the server, for refusals ("user 'x' (digest)"); never a password
     */
    ZkCalls(String endpoint, Duration timeout, Supplier<String> principal) {
        this.endpoint = endpoint;
        this.timeout = timeout;
        this.principal = principal;
    }

    ZkCalls(String endpoint, Duration timeout) {
        this(endpoint, timeout, () -> "an unauthenticated client (world:anyone)");
    }

    /** @return the endpoint, for messages (never a password) */
    String endpoint() {
        return endpoint;
    }

    /** Completes {@code future} with the result code's exception, or the value. */
    static <T> void complete(CompletableFuture<T> future, int rc, String path, T value) {
        KeeperException.Code code = KeeperException.Code.get(rc);
        if (code == KeeperException.Code.OK) {
            future.complete(value);
        } else {
            future.completeExceptionally(KeeperException.create(code, path));
        }
    }

    <T> T await(CompletableFuture<T> future, String what) throws KeeperException {
        return await(future, what, System.nanoTime() + timeout.toNanos());
    }

    /** As {@link #await(CompletableFuture, String)}, within what is left of a call that began earlier, up to {@code deadline}. */
    <T> T await(CompletableFuture<T> future, String what, long deadline) throws KeeperException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    throw new BackendUnavailableException(endpoint, "ZooKeeper at " + endpoint + " did not answer "
                            + what + " within " + timeout.toMillis() + " ms", e);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof KeeperException) {
                        throw (KeeperException) e.getCause();
                    }
                    throw new LockException("ZooKeeper at " + endpoint + " failed to " + what + ": " + e.getCause(), e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The contract's exception for a ZooKeeper failure that the caller does not handle itself. */
    RuntimeException translate(KeeperException e, String what) {
        switch (e.code()) {
            case CONNECTIONLOSS:
            case SESSIONEXPIRED:
            case SESSIONMOVED:
            case OPERATIONTIMEOUT:
                return new BackendUnavailableException(endpoint, "ZooKeeper at " + endpoint + " could not " + what
                        + ": " + e.code() + " (the connection or the session was lost)", e);
            case REQUESTTIMEOUT:
                return new BackendUnavailableException(endpoint, "ZooKeeper at " + endpoint + " did not answer " + what
                        + " within " + timeout.toMillis() + " ms (REQUESTTIMEOUT; the client reconnects)", e);
            case NOAUTH:
                return new AccessDeniedException(endpoint, "ZooKeeper at " + endpoint + " refused to " + what + ": "
                        + principal.get() + " has no permission on " + e.getPath() + " (" + e.code() + "); grant it CREATE,"
                        + " DELETE, READ and WRITE there, or pick another chroot (every client of a lock must connect as"
                        + " the same principal: the lock's nodes give ALL to their creator only)", e);
            case AUTHFAILED:
                return new AuthenticationException(endpoint, "ZooKeeper at " + endpoint + " refused to " + what + ": "
                        + principal.get() + " failed to authenticate (" + e.code() + ")", e);
            default:
                return new LockException("ZooKeeper at " + endpoint + " failed to " + what + ": " + e.getMessage(), e);
        }
    }

    /** @return true for the failures that say nothing about the request's outcome: the connection, the session, a timeout */
    static boolean isConnectionProblem(KeeperException e) {
        KeeperException.Code code = e.code();
        return code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.SESSIONEXPIRED
                || code == KeeperException.Code.SESSIONMOVED || code == KeeperException.Code.OPERATIONTIMEOUT
                || code == KeeperException.Code.REQUESTTIMEOUT;
    }
}
