package io.distlock.redis.support;

import io.distlock.spi.TlsSettings;

import javax.net.ssl.SSLSocketFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * The TLS settings of a {@code rediss://} (or {@code ...?tls=true}) endpoint, from its query options:
 * {@code trustStore} (the certificates to trust; without it the JVM's default trust, that is the
 * {@code javax.net.ssl.trustStore*} system properties or the JDK's CA certificates),
 * {@code trustStoreType} ({@code PKCS12}, the default, or {@code JKS}), {@code trustStorePassword},
 * and for TLS client authentication {@code keyStore}, {@code keyStoreType}, {@code keyStorePassword}.
 *
 * <p>The options and their checks are every backend's ({@link TlsSettings}). The server's host name
 * is always verified against its certificate; this class offers no way to turn that off. Store files
 * are read once, when a node is created.
 */
public final class RedisTls {

    private RedisTls() {
    }

    /**
     * The socket factory for a TLS endpoint's connections.
     *
     * @param endpoint a {@linkplain RedisEndpoint#tls() TLS} endpoint
     * @return the factory built from the endpoint's stores, or null for the JVM's default trust and
     *         no client certificate (Jedis then uses the JVM's default factory)
     * @throws IllegalArgumentException if a store cannot be read, its type is unknown or its
     *                                  password is wrong
     */
    public static SSLSocketFactory socketFactory(RedisEndpoint endpoint) {
        Map<String, String> options = new HashMap<>();
        for (String option : TlsSettings.OPTIONS) {
            if (endpoint.option(option) != null) {
                options.put(option, endpoint.option(option));
            }
        }
        TlsSettings settings = TlsSettings.parse(options, endpoint.toString(), "Redis URI");
        return settings.isDefault() ? null : settings.sslContext().getSocketFactory();
    }
}
