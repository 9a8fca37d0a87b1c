package io.distlock;

import java.util.Objects;

/**
 * The backend knows who the client is, and that principal has no right to do this to this lock:
 * a Redis ACL user without the lock's keys or commands, a ZooKeeper identity without permission on
 * the lock's nodes, an etcd user whose role does not cover the lock's prefix.
 *
 * <p>Never reported as contention (an empty acquire) nor as a lost lease: the lock may be free.
 * Not retried by a waiting acquire, since only an operator's change of rights can fix it. The
 * message names the endpoint and the lock, never a password. Nothing is left held by the
 * operation that failed this way.
 */
public class AccessDeniedException extends LockException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The endpoint(s) that refused, without credentials (serialized with the exception). */
    private final String endpoint;

    /**
     * @param endpoint the endpoint(s) that refused, without credentials
     * @param message  what was refused, to whom (the user name, never a password)
     * @param cause    the underlying failure, or null
     */
    public AccessDeniedException(String endpoint, String message, Throwable cause) {
        super(message, cause);
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    }

    /** @return the endpoint(s) that refused; never a password */
    public String endpoint() {
        return endpoint;
    }
}
