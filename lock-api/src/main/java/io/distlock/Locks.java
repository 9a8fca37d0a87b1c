package io.distlock;

import io.distlock.engine.Discovery;

import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * The entry point: connects to a backend chosen by the URI's scheme.
 *
 * <pre>{@code
 * try (LockClient client = Locks.connect("redis://127.0.0.1:6379")) {
 *     try (Lease lease = client.lock("nightly-reconciliation").acquire(Duration.ofSeconds(30))) {
 *         store.write(data, lease.fencingToken().orElseThrow());
 *     }
 * }
 * }</pre>
 *
 * <p>Backends are found with {@link java.util.ServiceLoader}, on the module path and on the
 * classpath alike. Discovery is loud: an unknown scheme, two providers for one scheme, or a
 * provider that fails to load is an exception naming what to add or remove; there is no fallback.
 */
public final class Locks {

    private Locks() {
    }

    /**
     * Connects with {@link LockOptions#defaults()}.
     *
     * @param uri for example {@code redis://user:password@127.0.0.1:6379/0}
     * @return a connected client; close it when done
     * @throws NullPointerException        if {@code uri} is null
     * @throws IllegalArgumentException    if the URI is malformed (the message never shows a password)
     * @throws NoSuchBackendException      if no installed backend handles the scheme
     * @throws LockException               if two providers claim the scheme, or a provider fails to load
     * @throws BackendUnavailableException if the backend cannot be reached within the connect timeout
     */
    public static LockClient connect(String uri) {
        Objects.requireNonNull(uri, "uri");
        return connect(Discovery.parse(uri), LockOptions.defaults());
    }

    /**
     * Connects with the given options; the same as {@link #connect(URI, LockOptions)} for a URI
     * given as a string.
     *
     * @param uri     for example {@code zookeeper://127.0.0.1:2181/app?sessionTimeout=6000}
     * @param options timeouts, drift allowance, back-off
     * @return a connected client; close it when done
     * @throws NullPointerException        if an argument is null
     * @throws IllegalArgumentException    if the URI is malformed (the message never shows a password)
     * @throws NoSuchBackendException      if no installed backend handles the scheme
     * @throws LockException               if two providers claim the scheme, or a provider fails to load
     * @throws BackendUnavailableException if the backend cannot be reached within the connect timeout
     */
    public static LockClient connect(String uri, LockOptions options) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        return connect(Discovery.parse(uri), options);
    }

    /**
     * Connects with the given options.
     *
     * @param uri     the backend's URI; its scheme selects the backend
     * @param options timeouts, drift allowance, back-off
     * @return a connected client; close it when done
     * @throws NullPointerException        if an argument is null
     * @throws IllegalArgumentException    if the URI is malformed (the message never shows a password)
     * @throws NoSuchBackendException      if no installed backend handles the scheme
     * @throws LockException               if two providers claim the scheme, or a provider fails to load
     * @throws BackendUnavailableException if the backend cannot be reached within the connect timeout
     */
    public static LockClient connect(URI uri, LockOptions options) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        return Discovery.connect(uri, options);
    }

    /**
     * @return the descriptors of every installed backend, sorted by scheme
     * @throws LockException if two providers claim one scheme, or a provider fails to load
     */
    public static List<BackendDescriptor> backends() {
        return Discovery.backends();
    }
}
