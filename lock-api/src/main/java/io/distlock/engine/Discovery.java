package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.NoSuchBackendException;
import io.distlock.spi.LockBackend;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds backends with {@link ServiceLoader} and connects to the one a URI's scheme names.
 * Loud by design: a lock that silently fell back to another backend, or to none, would be a
 * safety bug.
 */
public final class Discovery {

    /**
     * The artifacts that provide the schemes this version of distlock publishes, for the "add this"
     * hint; {@code DiscoveryTest} keeps it equal to the backends the BOM manages.
     */
    static final Map<String, String> PUBLISHED_ARTIFACTS = Map.of(
            "redis", "io.distlock:lock-redis-single",
            "rediss", "io.distlock:lock-redis-single",
            "redlock", "io.distlock:lock-redlock",
            "redis-wait", "io.distlock:lock-redis-wait",
            "redis-cluster", "io.distlock:lock-redis-cluster",
            "tair", "io.distlock:lock-tair",
            "zookeeper", "io.distlock:lock-zookeeper",
            "etcd", "io.distlock:lock-etcd",
            "hazelcast", "io.distlock:lock-hazelcast",
            "hazelcast-map", "io.distlock:lock-hazelcast");

    /** Schemes distlock plans to serve, whose artifacts this version does not publish (advising them would break a build). */
    static final Map<String, String> PLANNED_BACKENDS = Map.of();

    private Discovery() {
    }

    /**
     * Parses a connection string without ever echoing its password.
     *
     * @param uri the connection string
     * @return the URI, with a lower-case scheme checked to be present
     * @throws IllegalArgumentException if malformed or without scheme
     */
    public static URI parse(String uri) {
        URI parsed;
        try {
            parsed = new URI(uri);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("malformed URI '" + Redaction.redact(uri) + "': "
                    + Redaction.redact(e.getReason()), null);
        }
        if (parsed.getScheme() == null) {
            throw new IllegalArgumentException("URI '" + Redaction.redact(uri)
                    + "' has no scheme; expected for example redis://host:port");
        }
        return parsed;
    }

    /**
     * @param uri     the backend URI
     * @param options client options
     * @return a client running the engine around the selected backend's driver
     */
    public static LockClient connect(URI uri, LockOptions options) {
        if (uri.getScheme() == null) {
            throw new IllegalArgumentException("URI '" + Redaction.redact(uri.toString())
                    + "' has no scheme; expected for example redis://host:port");
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        Map<String, LockBackend> installed = load();
        LockBackend backend = installed.get(scheme);
        if (backend == null) {
            List<String> schemes = List.copyOf(installed.keySet());
            String artifact = PUBLISHED_ARTIFACTS.get(scheme);
            String planned = PLANNED_BACKENDS.get(scheme);
            String hint;
            if (artifact != null) {
                hint = "; add the dependency " + artifact + " (its version comes from io.distlock:distlock-bom)";
            } else if (planned != null) {
                hint = "; the " + planned + " backend is planned but not part of this version of distlock";
            } else {
                hint = "; distlock knows no backend for it (available: " + new TreeMap<>(PUBLISHED_ARTIFACTS).keySet() + ")";
            }
            throw new NoSuchBackendException(scheme, schemes,
                    "no distlock backend for scheme '" + scheme + "'; installed: " + schemes + hint);
        }
        return EngineClient.connect(backend, uri, options);
    }

    /** @return descriptors of the installed backends, sorted by scheme */
    public static List<BackendDescriptor> backends() {
        List<BackendDescriptor> result = new ArrayList<>();
        for (LockBackend backend : load().values()) {
            result.add(backend.descriptor());
        }
        result.sort(Comparator.comparing(BackendDescriptor::scheme));
        return List.copyOf(result);
    }

    /**
     * Loads every provider visible from this module's class loader and from the thread's context
     * class loader (an application server may put backends in a child loader), de-duplicated by
     * provider class.
     */
    private static Map<String, LockBackend> load() {
        Map<String, LockBackend> byClass = new LinkedHashMap<>();
        collect(ServiceLoader.load(LockBackend.class, Discovery.class.getClassLoader()), byClass);
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null && context != Discovery.class.getClassLoader()) {
            collect(ServiceLoader.load(LockBackend.class, context), byClass);
        }
        Map<String, LockBackend> byScheme = new TreeMap<>();
        for (LockBackend backend : byClass.values()) {
            BackendDescriptor descriptor;
            try {
                descriptor = backend.descriptor();
            } catch (RuntimeException e) {
                throw new LockException("distlock backend " + backend.getClass().getName()
                        + " failed to describe itself: " + e, e);
            }
            LockBackend previous = byScheme.putIfAbsent(descriptor.scheme(), backend);
            if (previous != null) {
                throw new LockException("two distlock backends claim scheme '" + descriptor.scheme() + "': "
                        + where(previous) + " and " + where(backend) + "; remove one of them");
            }
        }
        return byScheme;
    }

    private static void collect(ServiceLoader<LockBackend> loader, Map<String, LockBackend> byClass) {
        Iterator<LockBackend> it = loader.iterator();
        while (true) {
            LockBackend backend;
            try {
                if (!it.hasNext()) {
                    return;
                }
                backend = it.next();
            } catch (ServiceConfigurationError e) {
                throw new LockException("a distlock backend failed to load: " + e.getMessage(), e);
            }
            byClass.putIfAbsent(backend.getClass().getName(), backend);
        }
    }

    private static String where(LockBackend backend) {
        Class<?> type = backend.getClass();
        String module = type.getModule().isNamed() ? "module " + type.getModule().getName() : null;
        var source = type.getProtectionDomain().getCodeSource();
        String location = source != null && source.getLocation() != null ? source.getLocation().toString() : "unknown location";
        return type.getName() + " (" + (module != null ? module + ", " : "") + location + ")";
    }
}
