package io.distlock;

import java.util.Objects;

/**
 * The backend's server, or a quorum of its nodes, could not be reached within the configured
 * timeout. The message and {@link #endpoint()} name the endpoint ({@code host:port}, or a list of
 * them) and never a password.
 *
 * <p>When an acquire fails this way, nothing is left held on the server by that acquire.
 */
public class BackendUnavailableException extends LockException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The unreachable endpoint(s), without credentials. */
    private final String endpoint;

    /**
     * @param endpoint the unreachable endpoint(s), without credentials
     * @param message  what was attempted and why it failed
     * @param cause    the underlying failure, or null
     */
    public BackendUnavailableException(String endpoint, String message, Throwable cause) {
        super(message, cause);
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    }

    /**
     * @return the unreachable endpoint(s), for example {@code 127.0.0.1:6379}; never a password
     */
    public String endpoint() {
        return endpoint;
    }
}
