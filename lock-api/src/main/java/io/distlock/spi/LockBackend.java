package io.distlock.spi;

import io.distlock.BackendDescriptor;
import io.distlock.LockOptions;

import java.net.URI;

/**
 * A backend provider, found by {@link java.util.ServiceLoader} (declare it with {@code provides} in
 * {@code module-info.java} <em>and</em> in {@code META-INF/services/io.distlock.spi.LockBackend} for
 * classpath users).
 *
 * <p>Like {@code java.sql.Driver}: instantiating it must be cheap and do no I/O, because the
 * loader instantiates every provider it finds; all I/O happens in {@link #connect}. The provider
 * supplies only mechanism — a {@link LockDriver}; the policy (waiting, validity, renewal,
 * interrupts, loss notification) is the shared engine's, wrapped around the driver by
 * {@link io.distlock.Locks}.
 */
public interface LockBackend {

    /**
     * @return the scheme this provider handles, its guarantee and its features; constant
     */
    BackendDescriptor descriptor();

    /**
     * Connects to the backend named by {@code uri}, within {@link LockOptions#connectTimeout()}.
     *
     * @param uri     a URI whose scheme is {@code descriptor().scheme()}
     * @param options the client's settings
     * @param context how the driver reports events to the engine
     * @return a connected driver, owned by one client
     * @throws IllegalArgumentException                  if the URI is malformed for this backend
     *                                                   (the message must not contain a password)
     * @throws io.distlock.BackendUnavailableException if the backend cannot be reached
     */
    LockDriver connect(URI uri, LockOptions options, DriverContext context);
}
