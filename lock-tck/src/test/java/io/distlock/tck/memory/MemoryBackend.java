package io.distlock.tck.memory;

import io.distlock.BackendDescriptor;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;
import io.distlock.spi.UserInfo;

import java.net.URI;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The TCK's in-memory reference backend, {@code memory://<serverName>}: every client of one server
 * name shares one {@link MemoryServer}. A server whose name starts with {@code down} is unreachable
 * (it models a stopped server). One whose name starts with {@code secure} models TLS and authentication:
 * it takes the principals of {@link MemoryServer#PASSWORDS}, and {@code ?tls=untrusted} models a client that
 * does not trust its certificate. Elsewhere user info in the URI is accepted and ignored. With
 * {@code ?gateway=<port>} a client in another JVM reaches the server of the JVM whose {@link MemoryGateway}
 * listens there.
 *
 * <p>The reference declares CORRECTNESS and every feature except QUORUM. The nested subclasses are
 * variants, each under its own scheme: the reference shaped like a session store, an honest efficiency
 * lock, and {@code broken://}, whose servers each have one deliberate defect ({@link Bug}).
 */
public class MemoryBackend implements LockBackend {

    static final Set<Feature> ALL_BUT_QUORUM = EnumSet.complementOf(EnumSet.of(Feature.QUORUM));

    private final BackendDescriptor descriptor;
    private final Bug defect;
    private final boolean sessionStore;

    /** The reference backend, scheme {@code memory}. */
    public MemoryBackend() {
        this("memory", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NONE);
    }

    MemoryBackend(String scheme, Guarantee guarantee, Set<Feature> features, Bug defect) {
        this(scheme, guarantee, features, defect, false);
    }

    MemoryBackend(String scheme, Guarantee guarantee, Set<Feature> features, Bug defect, boolean sessionStore) {
        this.descriptor = new BackendDescriptor(scheme, guarantee, features);
        this.defect = defect;
        this.sessionStore = sessionStore;
    }

    @Override
    public BackendDescriptor descriptor() {
        return descriptor;
    }

    @Override
    public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
        String scheme = descriptor.scheme();
        String usage = "; expected " + scheme + "://<serverName>[?link=<id>|gateway=[127.0.0.1:]<port>[,…]]";
        if (!scheme.equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("not a " + scheme + " URI" + usage);
        }
        String server = uri.getHost();
        if (uri.isOpaque() || server == null || server.isEmpty()) {
            throw new IllegalArgumentException("a " + scheme + " URI needs a server name" + usage);
        }
        String query = uri.getRawQuery();
        if (uri.getPort() != -1 || (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/"))
                || (query != null && !query.matches(OPTION + "(&" + OPTION + "){0,2}"))
                || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("a " + scheme + " URI takes no port, path, fragment or query but link, gateway"
                    + " and tls" + usage);
        }
        String endpoint = scheme + "://" + server;
        if (server.startsWith("down")) {
            throw new BackendUnavailableException(endpoint, "cannot reach " + endpoint + ": the server is down", null);
        }
        Bug bug = bugOf(server);
        if (bug == Bug.LOGS_PASSWORD) {
            System.getLogger(MemoryBackend.class.getName()).log(System.Logger.Level.DEBUG, "connecting to " + uri);
        }
        // Through a gateway, the server is the one in the gateway's JVM: it decides, this JVM's driver asks.
        // The connection comes first, as a real client's does: a gateway port that is closed or never
        // answers is unavailable whatever the credentials (rules 5.5 and 5.9).
        Optional<String> gateway = option(query, "gateway");
        MemoryProtocol remote = gateway.isPresent()
                ? MemoryGateway.Remote.firstAnswering(Arrays.stream(gateway.get().split(","))
                        .map(g -> Integer.valueOf(g.substring(g.indexOf(':') + 1))).toList(),
                        endpoint, endpoint, options.connectTimeout(), options.operationTimeout(), bug == Bug.WAITS_ON_SILENT_ENDPOINT)
                : null;
        String principal = null;
        boolean refusedAsUnavailable = false;
        if (server.startsWith("secure")) {
            try {
                // A server with TLS and authentication: the handshake first, then the credentials.
                if (query != null && query.contains("tls=untrusted") && bug != Bug.TRUSTS_ANY_CERTIFICATE) {
                    throw new AuthenticationException(endpoint, "the TLS handshake with " + endpoint
                            + " failed: its certificate is not signed by a trusted authority", null);
                }
                Credentials credentials = UserInfo.credentials(uri, options).orElseThrow(() -> new AuthenticationException(endpoint,
                        endpoint + " requires credentials", null));
                String user = credentials.username().orElse("");
                String expected = MemoryServer.PASSWORDS.get(user);
                if (expected == null || !expected.equals(new String(credentials.password()))) {
                    if (bug != Bug.WRONG_PASSWORD_AS_UNAVAILABLE) {
                        throw new AuthenticationException(endpoint, endpoint + " refused the credentials of user '" + user + "'", null);
                    }
                    refusedAsUnavailable = true;
                }
                principal = user;
            } catch (RuntimeException refused) {
                if (remote != null) {
                    remote.disconnected(null);
                }
                throw refused;
            }
        }
        Optional<String> link = option(query, "link");
        List<MemoryLink> links = link.isEmpty() ? List.of(MemoryLink.alwaysUp())
                : Arrays.stream(link.get().split(",")).map(MemoryLink::named).collect(Collectors.toList());
        MemoryProtocol protocol = remote != null ? remote : MemoryProtocol.of(MemoryServer.named(scheme, server, bug));
        return new MemoryDriver(protocol, bug, descriptor.has(Feature.FENCING_TOKENS), context,
                sessionStore || bug.shape().sessionStore, links, options.operationTimeout(), principal, endpoint,
                refusedAsUnavailable);
    }

    /**
     * @param server the server's name
     * @return the defect of that server and of its clients' drivers: this backend's, whatever the name
     */
    Bug bugOf(String server) {
        return defect;
    }

    /**
     * One option of a URI's query: {@code link=<id>[,<id>…]}, {@code gateway=<port>[,<port>…]} (the first
     * that answers is used) or {@code tls=untrusted}.
     */
    /** A gateway is a loopback port, written alone or as {@code 127.0.0.1:port}. */
    private static final String GATEWAY = "(127\\.0\\.0\\.1:)?[0-9]{1,5}";
    private static final String OPTION = "(link=[0-9a-f-]+(,[0-9a-f-]+)*|gateway=" + GATEWAY + "(," + GATEWAY + ")*|tls=untrusted)";

    private static Optional<String> option(String query, String name) {
        if (query == null) {
            return Optional.empty();
        }
        return Arrays.stream(query.split("&")).filter(o -> o.startsWith(name + "=")).map(o -> o.substring(name.length() + 1))
                .findFirst();
    }

    /**
     * The reference shaped like a session-based store (ZooKeeper): the server never expires a
     * grant by itself, and the driver answers {@code serverExpiresLeases() == false}, so the
     * engine ends each lease at the end of its validity through {@code leaseExpired}. Honest:
     * it must pass every rule the reference passes.
     */
    public static final class Session extends MemoryBackend {
        /** Scheme {@code memory-session}. */
        public Session() {
            super("memory-session", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NO_EXPIRY, true);
        }
    }

    /** An honest efficiency lock: no fencing tokens, no renewal, polling waiters. */
    public static final class Efficiency extends MemoryBackend {
        /** Scheme {@code memory-efficiency}. */
        public Efficiency() {
            super("memory-efficiency", Guarantee.EFFICIENCY, EnumSet.noneOf(Feature.class), Bug.NONE);
        }
    }

    /**
     * Every broken variant of a server or driver defect ({@link Bug}), scheme {@code broken}: the server
     * named {@code secure-<variant>} has that variant's defect, and so do its clients' drivers. It declares
     * what the reference declares, so that the TCK must catch the lie.
     */
    public static final class Broken extends MemoryBackend {
        /** Scheme {@code broken}. */
        public Broken() {
            super(Bug.BROKEN_SCHEME, Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NONE);
        }

        @Override
        Bug bugOf(String server) {
            return Bug.servedBy(server);
        }
    }
}
