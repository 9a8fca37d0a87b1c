package io.distlock.cli;

import io.distlock.Credentials;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The backend a command talks to: its URI and the credentials, given exactly as the library takes
 * them — in the URI's user info, or (so that no password is typed on a command line, where other users
 * of the machine can read it) from {@code --password-file} or the {@code DISTLOCK_PASSWORD} environment
 * variable, with {@code --user} or {@code DISTLOCK_USER}. A password is never printed: {@link #shown()}
 * is the URI without its user info and query.
 */
final class Target {

    static final String PASSWORD_VARIABLE = "DISTLOCK_PASSWORD";
    static final String USER_VARIABLE = "DISTLOCK_USER";

    @Parameters(index = "0", paramLabel = "URI",
            description = "The backend, as the library takes it: redis://host:port, redlock://h1:p1,h2:p2,h3:p3,"
                    + " redis-wait://…, redis-cluster://h1:p1,h2:p2,…, tair://…, zookeeper://host:port/chroot, etcd://host:port"
                    + " (see each backend's README).")
    String uri;

    @Option(names = "--user", paramLabel = "NAME", description = "The user name (default: $" + USER_VARIABLE + ", or the URI's).")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE",
            description = "Read the password from the first line of FILE (default: $" + PASSWORD_VARIABLE + ", or the URI's).")
    Path passwordFile;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", converter = Durations.class,
            description = "How long connecting may take before the server counts as unreachable (default: ${DEFAULT-VALUE}).",
            defaultValue = "5s")
    Duration connectTimeout;

    /** The environment the command runs in; tests replace it. */
    Map<String, String> environment = System.getenv();

    /** @return the URI to show: scheme, hosts and path, never the user info or the query (they may carry secrets) */
    String shown() {
        return redact(uri);
    }

    static String redact(String uri) {
        if (uri == null) {
            return "";
        }
        try {
            URI u = new URI(uri);
            if (u.isOpaque() || u.getRawAuthority() == null) {
                return u.getScheme() == null ? "(not a URI)" : u.getScheme() + ":…";
            }
            String authority = u.getRawAuthority();
            int at = authority.lastIndexOf('@');
            return u.getScheme() + "://" + (at >= 0 ? authority.substring(at + 1) : authority)
                    + (u.getRawPath() == null ? "" : u.getRawPath());
        } catch (URISyntaxException e) {
            return "(not a URI)";
        }
    }

    /** @return the options every command connects with: the timeouts, and credentials from a file or the environment */
    LockOptions options(LockOptions.Builder builder) {
        builder.connectTimeout(connectTimeout);
        credentials().ifPresent(builder::credentials);
        return builder.build();
    }

    LockOptions options() {
        return options(LockOptions.builder());
    }

    private java.util.Optional<Credentials> credentials() {
        String name = user != null ? user : environment.get(USER_VARIABLE);
        char[] password = null;
        if (passwordFile != null) {
            try {
                List<String> lines = Files.readAllLines(passwordFile, StandardCharsets.UTF_8);
                if (lines.isEmpty() || lines.get(0).isEmpty()) {
                    throw new IllegalArgumentException("--password-file " + passwordFile + " is empty");
                }
                password = lines.get(0).toCharArray();
            } catch (IOException e) {
                throw new IllegalArgumentException("--password-file " + passwordFile + " cannot be read: " + e.getClass().getSimpleName());
            }
        } else if (environment.get(PASSWORD_VARIABLE) != null && !environment.get(PASSWORD_VARIABLE).isEmpty()) {
            password = environment.get(PASSWORD_VARIABLE).toCharArray();
        }
        if (password == null) {
            if (user != null) {
                throw new IllegalArgumentException("--user needs a password: --password-file FILE or $" + PASSWORD_VARIABLE);
            }
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(Credentials.of(name, password));
    }

    /** @return a connected client */
    LockClient connect() {
        return Locks.connect(uri, options());
    }
}
