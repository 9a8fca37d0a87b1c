package io.distlock;

/**
 * The root of distlock's unchecked exceptions: the backend could not do what was asked.
 *
 * <p>Contention is never an exception (it is an empty {@code Optional}); misuse is reported with
 * JDK exceptions ({@link IllegalArgumentException}, {@link IllegalStateException},
 * {@link NullPointerException}).
 */
public class LockException extends RuntimeException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong; never contains a password
     */
    public LockException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong; never contains a password
     * @param cause   the underlying failure
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
