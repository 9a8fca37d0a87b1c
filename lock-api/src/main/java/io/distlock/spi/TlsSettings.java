package io.distlock.spi;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The TLS settings every backend reads from the same URI query options, so a user learns them once:
 * <ul>
 *   <li>{@code trustStore}: a file of the certificates to trust. Without it, the JVM's default trust
 *       (the {@code javax.net.ssl.trustStore*} system properties, else the JDK's CA certificates).</li>
 *   <li>{@code trustStoreType}: {@code PKCS12} (the default) or {@code JKS}; {@code trustStorePassword}.</li>
 *   <li>{@code keyStore}, {@code keyStoreType}, {@code keyStorePassword}: the client's certificate and
 *       key, for servers that ask for one (TLS client authentication).</li>
 * </ul>
 * The server's host name is always verified against its certificate; there is no option to turn
 * that off.
 *
 * <p>The stores are read when the settings are parsed ({@link #parse}): a missing or unreadable file,
 * an unknown type or a wrong password is an {@link IllegalArgumentException} naming the option and
 * the file, never a password. {@link #toString()} shows the files, never the passwords.
 * Immutable; the key stores are kept loaded.
 */
public final class TlsSettings {

    /** The query options this class reads. */
    public static final Set<String> OPTIONS = Set.of("trustStore", "trustStoreType", "trustStorePassword",
            "keyStore", "keyStoreType", "keyStorePassword");

    private final String trustStoreFile;
    private final KeyStore trustStore;
    private final String keyStoreFile;
    private final KeyStore keyStore;
    private final char[] keyStorePassword;
    private final String trustStoreType;
    private final String keyStoreType;
    private final char[] trustStorePassword;

    private TlsSettings(String trustStoreFile, String trustStoreType, char[] trustStorePassword, KeyStore trustStore,
                        String keyStoreFile, String keyStoreType, char[] keyStorePassword, KeyStore keyStore) {
        this.trustStoreFile = trustStoreFile;
        this.trustStoreType = trustStoreType;
        this.trustStorePassword = trustStorePassword;
        this.trustStore = trustStore;
        this.keyStoreFile = keyStoreFile;
        this.keyStoreType = keyStoreType;
        this.keyStorePassword = keyStorePassword;
        this.keyStore = keyStore;
    }

    /**
     * Reads the TLS options out of a URI's query options and loads the stores they name.
     *
     * @param options  the URI's query options (others than {@link #OPTIONS} are ignored)
     * @param endpoint the endpoint, for messages ({@code host:port}, no credentials)
     * @param uriKind  how messages call the URI, for example {@code "Redis URI"}
     * @return the settings; with no store options, the JVM's default trust and no client certificate
     * @throws IllegalArgumentException if a store cannot be read, its type is unknown, its password is
     *                                  wrong, or a type or password is given without its store
     */
    public static TlsSettings parse(Map<String, String> options, String endpoint, String uriKind) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(uriKind, "uriKind");
        Store trust = Store.read(options, "trustStore", endpoint, uriKind);
        Store keys = Store.read(options, "keyStore", endpoint, uriKind);
        TlsSettings settings = new TlsSettings(trust.file, trust.type, trust.password, trust.store,
                keys.file, keys.type, keys.password, keys.store);
        settings.keyManagers(endpoint, uriKind); // a key that the password cannot recover fails here, not at connect
        return settings;
    }

    /** @return the trust store's file, if one was given (else the JVM's default trust) */
    public Optional<Path> trustStoreFile() {
        return Optional.ofNullable(trustStoreFile).map(Path::of);
    }

    /** @return the trust store's type ({@code PKCS12} or {@code JKS}) */
    public String trustStoreType() {
        return trustStoreType;
    }

    /** @return a copy of the trust store's password, if one was given */
    public Optional<char[]> trustStorePassword() {
        return Optional.ofNullable(trustStorePassword).map(char[]::clone);
    }

    /** @return the client key store's file, if one was given */
    public Optional<Path> keyStoreFile() {
        return Optional.ofNullable(keyStoreFile).map(Path::of);
    }

    /** @return the key store's type ({@code PKCS12} or {@code JKS}) */
    public String keyStoreType() {
        return keyStoreType;
    }

    /** @return a copy of the key store's password, if one was given */
    public Optional<char[]> keyStorePassword() {
        return Optional.ofNullable(keyStorePassword).map(char[]::clone);
    }

    /** @return whether the settings name no store: the JVM's default trust and no client certificate */
    public boolean isDefault() {
        return trustStoreFile == null && keyStoreFile == null;
    }

    /**
     * @return the trust managers: of the trust store, else of the JVM's default trust
     * @throws IllegalStateException if the JDK has no default trust manager algorithm (a broken JDK)
     */
    public TrustManagerFactory trustManagers() {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trustStore); // null: the JVM's default trust
            return factory;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot build trust managers: " + e.getClass().getSimpleName(), e);
        }
    }

    /** @return the key managers of the client key store, if one was given */
    public Optional<KeyManagerFactory> keyManagers() {
        return keyManagers("(unknown endpoint)", "URI");
    }

    private Optional<KeyManagerFactory> keyManagers(String endpoint, String uriKind) {
        if (keyStore == null) {
            return Optional.empty();
        }
        try {
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(keyStore, keyStorePassword);
            return Optional.of(factory);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(uriKind + " option keyStore names " + keyStoreFile
                    + ", but its key cannot be recovered with keyStorePassword (endpoint " + endpoint + "): "
                    + e.getClass().getSimpleName());
        }
    }

    /**
     * @return a TLS context of these trust and key managers, for backends whose driver takes one
     * @throws IllegalStateException if the JDK offers no TLS (a broken JDK)
     */
    public SSLContext sslContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers().map(KeyManagerFactory::getKeyManagers).orElse(null),
                    trustManagers().getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot build a TLS context: " + e.getClass().getSimpleName(), e);
        }
    }

    /** @return the store files and types; never a password */
    @Override
    public String toString() {
        return "TlsSettings[trustStore=" + (trustStoreFile == null ? "(JVM default)" : trustStoreFile + " " + trustStoreType)
                + ", keyStore=" + (keyStoreFile == null ? "(none)" : keyStoreFile + " " + keyStoreType) + "]";
    }

    private record Store(String file, String type, char[] password, KeyStore store) {

        static Store read(Map<String, String> options, String option, String endpoint, String uriKind) {
            String file = options.get(option);
            String typeOption = options.get(option + "Type");
            String passwordOption = options.get(option + "Password");
            if (file == null) {
                for (String given : new String[] {typeOption == null ? null : option + "Type",
                        passwordOption == null ? null : option + "Password"}) {
                    if (given != null) {
                        throw new IllegalArgumentException(uriKind + " option " + given + " is given without "
                                + option + " (endpoint " + endpoint + ")");
                    }
                }
                return new Store(null, "PKCS12", null, null);
            }
            String type = typeOption == null ? "PKCS12" : typeOption.toUpperCase(Locale.ROOT);
            if (!type.equals("PKCS12") && !type.equals("JKS")) {
                throw new IllegalArgumentException(uriKind + " option " + option + "Type must be PKCS12 or JKS, was '"
                        + typeOption + "' (endpoint " + endpoint + ")");
            }
            Path path = Path.of(file);
            if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
                throw new IllegalArgumentException(uriKind + " option " + option + " names " + file
                        + ", which is not a readable file (endpoint " + endpoint + ")");
            }
            char[] password = passwordOption == null ? null : passwordOption.toCharArray();
            try (InputStream in = Files.newInputStream(path)) {
                KeyStore store = KeyStore.getInstance(type);
                store.load(in, password);
                return new Store(file, type, password, store);
            } catch (IOException | GeneralSecurityException e) {
                // A wrong password shows as an IOException caused by an UnrecoverableKeyException. The
                // cause is not kept and its text not shown: the message is built without any secret.
                throw new IllegalArgumentException(uriKind + " option " + option + " names " + file
                        + ", but it cannot be read as " + type + " with " + option + "Password (wrong password or type?)"
                        + " (endpoint " + endpoint + "): " + e.getClass().getSimpleName());
            }
        }
    }
}
