package io.distlock;

import java.util.Objects;

/**
 * The client and the backend did not establish who the other is: the server refused the
 * credentials (wrong password, unknown user, none given where required), or the client refused
 * the server (its TLS certificate is not trusted or does not match the host name), or the server
 * refused the client's certificate.
 *
 * <p>Not a {@link BackendUnavailableException}: the server answered, and retrying with the same
 * configuration cannot succeed, so a waiting acquire ends at once with this exception instead of
 * retrying until its wait runs out. The message and {@link #endpoint()} name the endpoint and
 * never a password. Nothing is left held on the server by the attempt that failed this way.
 */
public class AuthenticationException extends LockException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The endpoint(s) concerned, without credentials (serialized with the exception). */
    private final String endpoint;

    /**
     * @param endpoint the endpoint(s) concerned, without credentials
     * @param message  what was refused, by whom; never a password
     * @param cause    the underlying failure, or null
     */
    public AuthenticationException(String endpoint, String message, Throwable cause) {
        super(message, cause);
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    }

    /** @return the endpoint(s) concerned, for example {@code 127.0.0.1:6379}; never a password */
    public String endpoint() {
        return endpoint;
    }
}
