package io.distlock;

import java.util.Objects;
import java.util.Optional;

/**
 * Who a client says it is to the backend: an optional user name and a password (a Redis ACL user,
 * a ZooKeeper digest identity, an etcd user). Give them in the connection URI's user info, in
 * {@link LockOptions.Builder#credentials(Credentials)}, or through a supplier
 * ({@link LockOptions.Builder#credentials(java.util.function.Supplier)}) that reads them from a file
 * or a vault each time the client connects — never in two of these places at once.
 *
 * <p>{@link #toString()} shows the user name and never the password. Immutable: the password is
 * copied in and out.
 */
public final class Credentials {

    private final String username;
    private final char[] password;

    private Credentials(String username, char[] password) {
        if (username != null && username.isBlank()) {
            throw new IllegalArgumentException("the user name is blank; pass null for a password without a user");
        }
        Objects.requireNonNull(password, "password");
        if (password.length == 0) {
            throw new IllegalArgumentException("the password is empty");
        }
        this.username = username;
        this.password = password.clone();
    }

    /**
     * @param username the user name, or null where the backend takes a password alone (Redis {@code requirepass})
     * @param password the password, not empty
     * @return the credentials
     * @throws NullPointerException     if the password is null
     * @throws IllegalArgumentException if the user name is blank or the password empty
     */
    public static Credentials of(String username, char[] password) {
        return new Credentials(username, password);
    }

    /**
     * @param username the user name, or null where the backend takes a password alone
     * @param password the password, not empty
     * @return the credentials
     * @throws NullPointerException     if the password is null
     * @throws IllegalArgumentException if the user name is blank or the password empty
     */
    public static Credentials of(String username, String password) {
        return new Credentials(username, Objects.requireNonNull(password, "password").toCharArray());
    }

    /** @return the user name, if one was given */
    public Optional<String> username() {
        return Optional.ofNullable(username);
    }

    /** @return a copy of the password; the caller may clear it after use */
    public char[] password() {
        return password.clone();
    }

    /** @return the user name and a masked password, for logs */
    @Override
    public String toString() {
        return "Credentials[username=" + (username == null ? "(none)" : username) + ", password=***]";
    }
}
