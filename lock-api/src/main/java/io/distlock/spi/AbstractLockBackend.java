package io.distlock.spi;

import io.distlock.BackendDescriptor;
import io.distlock.LockOptions;

import java.net.URI;
import java.util.Objects;

/**
 * The part of a {@link LockBackend} every provider writes the same way: its constant descriptor,
 * the argument checks of {@link #connect}, and a {@code toString()} that names its scheme. A
 * provider extends it, passes its descriptor to the constructor, and says only how to open its
 * driver ({@link #open}); it stays cheap to instantiate and does no I/O outside {@code open}.
 */
public abstract class AbstractLockBackend implements LockBackend {

    private final BackendDescriptor descriptor;

    /**
     * @param descriptor the scheme this provider handles, its guarantee and its features
     * @throws NullPointerException if {@code descriptor} is null
     */
    protected AbstractLockBackend(BackendDescriptor descriptor) {
        this.descriptor = Objects.requireNonNull(descriptor, "descriptor");
    }

    @Override
    public final BackendDescriptor descriptor() {
        return descriptor;
    }

    /**
     * Checks the arguments, then {@linkplain #open opens} the driver. What else it throws is the
     * provider's {@code open}'s to say.
     *
     * @throws NullPointerException if an argument is null
     */
    @Override
    public final LockDriver connect(URI uri, LockOptions options, DriverContext context) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(context, "context");
        return open(uri, options, context);
    }

    /**
     * Connects to the backend named by {@code uri}, within {@link LockOptions#connectTimeout()}:
     * {@link #connect} after its arguments were checked.
     *
     * @param uri     a URI whose scheme is this provider's, not null
     * @param options the client's settings, not null
     * @param context how the driver reports events to the engine, not null
     * @return a connected driver, owned by one client
     * @throws IllegalArgumentException                if the URI is malformed for this backend
     *                                                 (the message must not contain a password)
     * @throws io.distlock.BackendUnavailableException if the backend cannot be reached
     */
    protected abstract LockDriver open(URI uri, LockOptions options, DriverContext context);

    /** @return the provider's class and scheme, e.g. {@code RedisLockBackend[redis://]} */
    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + descriptor.scheme() + "://]";
    }
}
