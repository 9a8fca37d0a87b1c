package io.distlock.spi;

import io.distlock.Credentials;
import io.distlock.LockOptions;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a connection's credentials come from, the same for every backend: the URI's user info
 * ({@code user:password@}, or {@code :password@} for a password alone, each part percent-decoded)
 * or {@link LockOptions#credentials()} — one of the two, never both.
 */
public final class UserInfo {

    private UserInfo() {
    }

    /**
     * @param uri     the connection URI
     * @param options the client's options
     * @return the credentials of the URI or of the options; empty if neither has any
     * @throws IllegalArgumentException   if both carry credentials, or the user info has a user and no
     *                                    password, or an empty password (the message never shows it)
     * @throws io.distlock.LockException if the options' credentials supplier fails
     */
    public static Optional<Credentials> credentials(URI uri, LockOptions options) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        return either(fromUri(uri), options, uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort());
    }

    /**
     * For backends that parse their own URIs (several hosts in one authority): the credentials the
     * URI carried, or else those of the options.
     *
     * @param fromUri  the credentials parsed out of the URI, if any
     * @param options  the client's options
     * @param endpoint the endpoint(s), for the message ({@code host:port}, no credentials)
     * @return the credentials of one of the two; empty if neither has any
     * @throws IllegalArgumentException   if both carry credentials
     * @throws io.distlock.LockException if the options' credentials supplier fails
     */
    public static Optional<Credentials> either(Optional<Credentials> fromUri, LockOptions options, String endpoint) {
        Optional<Credentials> fromOptions = options.credentials();
        if (fromUri.isPresent() && fromOptions.isPresent()) {
            throw new IllegalArgumentException("credentials are given both in the URI and in LockOptions ("
                    + endpoint + "): give them in one place");
        }
        return fromUri.isPresent() ? fromUri : fromOptions;
    }

    /**
     * @param uri the connection URI
     * @return the credentials in its user info, if it has any
     * @throws IllegalArgumentException if the user info has a user and no password, or an empty password
     */
    public static Optional<Credentials> fromUri(URI uri) {
        String raw = uri.getRawUserInfo();
        if (raw == null || raw.isEmpty()) {
            return Optional.empty();
        }
        int colon = raw.indexOf(':');
        String where = uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
        if (colon < 0) {
            throw new IllegalArgumentException("the URI names a user but no password (" + where
                    + "): write user:password@");
        }
        String user = decode(raw.substring(0, colon));
        String password = decode(raw.substring(colon + 1));
        if (password.isEmpty()) {
            throw new IllegalArgumentException("the URI's password is empty (" + where + ")");
        }
        return Optional.of(Credentials.of(user.isEmpty() ? null : user, password));
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
