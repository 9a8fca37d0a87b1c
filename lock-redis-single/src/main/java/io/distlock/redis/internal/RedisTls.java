package io.distlock.redis.internal;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Locale;

/**
 * The TLS settings of a {@code rediss://} endpoint, from its query options:
 * {@code trustStore} (the certificates to trust; without it the JVM's default trust, that is the
 * {@code javax.net.ssl.trustStore*} system properties or the JDK's CA certificates),
 * {@code trustStoreType} ({@code PKCS12}, the default, or {@code JKS}), {@code trustStorePassword},
 * and for TLS client authentication {@code keyStore}, {@code keyStoreType}, {@code keyStorePassword}.
 *
 * <p>The server's host name is always verified against its certificate; this class offers no way
 * to turn that off. Store files are read once, when a node is created: a missing or unreadable
 * file or a wrong password is an {@link IllegalArgumentException} naming the option and the file,
 * never the password.
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
        String trustStore = endpoint.option("trustStore");
        String keyStore = endpoint.option("keyStore");
        if (trustStore == null && keyStore == null) {
            checkNoStoreOptions(endpoint, "trustStore");
            checkNoStoreOptions(endpoint, "keyStore");
            return null;
        }
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (trustStore == null) {
                checkNoStoreOptions(endpoint, "trustStore");
                trust.init((KeyStore) null); // the JVM's default trust
            } else {
                trust.init(load(endpoint, "trustStore"));
            }
            KeyManagerFactory keys = null;
            if (keyStore != null) {
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                char[] password = password(endpoint, "keyStore");
                try {
                    keys.init(load(endpoint, "keyStore"), password);
                } catch (GeneralSecurityException e) {
                    throw unusable(endpoint, "keyStore", "its key cannot be recovered with keyStorePassword", e);
                }
            } else {
                checkNoStoreOptions(endpoint, "keyStore");
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot set up TLS for Redis at " + endpoint + ": "
                    + e.getClass().getSimpleName() + ": " + endpoint.redact(e.getMessage()));
        }
    }

    private static KeyStore load(RedisEndpoint endpoint, String option) {
        Path file = Path.of(endpoint.option(option));
        String type = endpoint.option(option + "Type") == null ? "PKCS12"
                : endpoint.option(option + "Type").toUpperCase(Locale.ROOT);
        if (!type.equals("PKCS12") && !type.equals("JKS")) {
            throw new IllegalArgumentException("Redis URI option " + option + "Type must be PKCS12 or JKS, was '"
                    + endpoint.option(option + "Type") + "' (endpoint " + endpoint + ")");
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException("Redis URI option " + option + " names " + file
                    + ", which is not a readable file (endpoint " + endpoint + ")");
        }
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password(endpoint, option));
            return store;
        } catch (IOException | GeneralSecurityException e) {
            // A wrong password shows as an IOException whose cause is an UnrecoverableKeyException.
            throw unusable(endpoint, option, "it cannot be read as " + type + " with " + option
                    + "Password (wrong password or type?)", e);
        }
    }

    private static char[] password(RedisEndpoint endpoint, String option) {
        String password = endpoint.option(option + "Password");
        return password == null ? null : password.toCharArray();
    }

    private static IllegalArgumentException unusable(RedisEndpoint endpoint, String option, String why, Exception e) {
        // The cause is not kept: the message is rebuilt without any secret the URI carries.
        return new IllegalArgumentException("Redis URI option " + option + " names " + endpoint.option(option)
                + ", but " + why + " (endpoint " + endpoint + "): " + e.getClass().getSimpleName() + ": "
                + endpoint.redact(e.getMessage()));
    }

    private static void checkNoStoreOptions(RedisEndpoint endpoint, String store) {
        for (String suffix : new String[] {"Type", "Password"}) {
            if (endpoint.option(store + suffix) != null) {
                throw new IllegalArgumentException("Redis URI option " + store + suffix + " is given without "
                        + store + " (endpoint " + endpoint + ")");
            }
        }
    }
}
