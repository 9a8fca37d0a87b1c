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
 * variants, each under its own scheme: deliberately broken ones (one {@link Bug} each, with the
 * reference's declaration, so that the TCK must catch the lie) and an honest efficiency lock.
 */
public class MemoryBackend implements LockBackend {

    static final Set<Feature> ALL_BUT_QUORUM = EnumSet.complementOf(EnumSet.of(Feature.QUORUM));

    private final BackendDescriptor descriptor;
    private final Bug bug;
    private final boolean sessionStore;

    /** The reference backend, scheme {@code memory}. */
    public MemoryBackend() {
        this("memory", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NONE);
    }

    MemoryBackend(String scheme, Guarantee guarantee, Set<Feature> features, Bug bug) {
        this(scheme, guarantee, features, bug, false);
    }

    MemoryBackend(String scheme, Guarantee guarantee, Set<Feature> features, Bug bug, boolean sessionStore) {
        this.descriptor = new BackendDescriptor(scheme, guarantee, features);
        this.bug = bug;
        this.sessionStore = sessionStore;
    }

    @Override
    public BackendDescriptor descriptor() {
        return descriptor;
    }

    @Override
    public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
        String scheme = descriptor.scheme();
        String usage = "; expected " + scheme + "://<serverName>[?link=<id>|gateway=<port>]";
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
        if (bug == Bug.LOGS_PASSWORD) {
            System.getLogger(MemoryBackend.class.getName()).log(System.Logger.Level.DEBUG, "connecting to " + uri);
        }
        String principal = null;
        boolean refusedAsUnavailable = false;
        if (server.startsWith("secure")) {
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
        }
        Optional<String> link = option(query, "link");
        List<MemoryLink> links = link.isEmpty() ? List.of(MemoryLink.alwaysUp())
                : Arrays.stream(link.get().split(",")).map(MemoryLink::named).collect(Collectors.toList());
        // Through a gateway, the server is the one in the gateway's JVM: it decides, this JVM's driver asks.
        Optional<String> gateway = option(query, "gateway");
        MemoryProtocol protocol = gateway.isPresent()
                ? new MemoryGateway.Remote(Integer.parseInt(gateway.get()), endpoint, endpoint, options.operationTimeout())
                : MemoryProtocol.of(MemoryServer.named(scheme, server, bug));
        return new MemoryDriver(protocol, bug, descriptor.has(Feature.FENCING_TOKENS), context,
                sessionStore, links, options.operationTimeout(), principal, endpoint, refusedAsUnavailable);
    }

    /** One option of a URI's query: {@code link=<id>[,<id>…]}, {@code gateway=<port>} or {@code tls=untrusted}. */
    private static final String OPTION = "(link=[0-9a-f-]+(,[0-9a-f-]+)*|gateway=[0-9]{1,5}|tls=untrusted)";

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

    /** Broken: release deletes whoever holds the lock. */
    public static final class BlindDelete extends MemoryBackend {
        /** Scheme {@code broken-blind-delete}. */
        public BlindDelete() {
            super("broken-blind-delete", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.BLIND_DELETE);
        }
    }

    /** Broken: locks never expire. */
    public static final class NoExpiry extends MemoryBackend {
        /** Scheme {@code broken-no-expiry}. */
        public NoExpiry() {
            super("broken-no-expiry", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NO_EXPIRY);
        }
    }

    /** Broken: one constant owner token for every acquisition. */
    public static final class ConstantOwnerToken extends MemoryBackend {
        /** Scheme {@code broken-constant-owner}. */
        public ConstantOwnerToken() {
            super("broken-constant-owner", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.CONSTANT_OWNER_TOKEN);
        }
    }

    /** Broken: fencing tokens start over whenever the lock is free. */
    public static final class NonMonotonicFence extends MemoryBackend {
        /** Scheme {@code broken-non-monotonic-fence}. */
        public NonMonotonicFence() {
            super("broken-non-monotonic-fence", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NON_MONOTONIC_FENCE);
        }
    }

    /** Broken: abandon is a no-op, so interrupted and timed-out waiters leave ghost requests. */
    public static final class LeakedAbandon extends MemoryBackend {
        /** Scheme {@code broken-leaked-abandon}. */
        public LeakedAbandon() {
            super("broken-leaked-abandon", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.LEAKED_ABANDON);
        }
    }

    /** Broken: the server honours half the lease time. */
    public static final class EarlyExpiry extends MemoryBackend {
        /** Scheme {@code broken-early-expiry}. */
        public EarlyExpiry() {
            super("broken-early-expiry", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.EARLY_EXPIRY);
        }
    }

    /** Broken: declares FIFO_WAITERS but serves the newest waiter first. */
    public static final class LifoWaiters extends MemoryBackend {
        /** Scheme {@code broken-lifo-waiters}. */
        public LifoWaiters() {
            super("broken-lifo-waiters", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.LIFO_WAITERS);
        }
    }

    /** Broken: extend prolongs whoever holds the lock. */
    public static final class BlindExtend extends MemoryBackend {
        /** Scheme {@code broken-blind-extend}. */
        public BlindExtend() {
            super("broken-blind-extend", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.BLIND_EXTEND);
        }
    }

    /** Broken: declares WAIT_NOTIFICATION, never notifies. */
    public static final class SilentNotifications extends MemoryBackend {
        /** Scheme {@code broken-silent-notifications}. */
        public SilentNotifications() {
            super("broken-silent-notifications", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.SILENT_NOTIFICATIONS);
        }
    }

    /** Broken: a removal that could not reach the server is forgotten. */
    public static final class ForgetsFailedCleanup extends MemoryBackend {
        /** Scheme {@code broken-forgets-cleanup}. */
        public ForgetsFailedCleanup() {
            super("broken-forgets-cleanup", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.FORGETS_FAILED_CLEANUP);
        }
    }

    /** Broken: an unknown outcome is reported as busy. */
    public static final class UnknownAsBusy extends MemoryBackend {
        /** Scheme {@code broken-unknown-as-busy}. */
        public UnknownAsBusy() {
            super("broken-unknown-as-busy", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.UNKNOWN_AS_BUSY);
        }
    }

    /** Broken: extensions are applied out of order and reported at once. */
    public static final class ReorderedExtends extends MemoryBackend {
        /** Scheme {@code broken-reordered-extends}. */
        public ReorderedExtends() {
            super("broken-reordered-extends", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.REORDERED_EXTENDS);
        }
    }

    /** Broken: ownership keyed by client and name. */
    public static final class OwnerByName extends MemoryBackend {
        /** Scheme {@code broken-owner-by-name}. */
        public OwnerByName() {
            super("broken-owner-by-name", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.OWNER_BY_NAME);
        }
    }

    /** Broken: a late write takes the lock after its cleanup. */
    public static final class LateWriteWins extends MemoryBackend {
        /** Scheme {@code broken-late-write-wins}. */
        public LateWriteWins() {
            super("broken-late-write-wins", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.LATE_WRITE_WINS);
        }
    }

    /** Broken: a CORRECTNESS single node whose fence starts over after a restart. */
    public static final class FenceResetsOnRestart extends MemoryBackend {
        /** Scheme {@code broken-fence-resets}. */
        public FenceResetsOnRestart() {
            super("broken-fence-resets", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.FENCE_RESETS_ON_RESTART);
        }
    }

    /** Broken: a session store that never reports its connection restored after a partition. */
    public static final class NeverRestored extends MemoryBackend {
        /** Scheme {@code broken-never-restored}. */
        public NeverRestored() {
            super("broken-never-restored", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NEVER_RESTORED, true);
        }
    }

    /** A session store whose loss sweep forgets a grant in flight when its session ends ({@link Bug#SWEEP_FORGETS_IN_FLIGHT}). */
    public static final class SweepForgetsInFlight extends MemoryBackend {
        /** Scheme {@code broken-sweep-forgets-in-flight}. */
        public SweepForgetsInFlight() {
            super("broken-sweep-forgets-in-flight", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.SWEEP_FORGETS_IN_FLIGHT, true);
        }
    }

    /** Broken: a late copy of a released acquire, sent again past a route that did not answer, takes the lock. */
    public static final class LateCopyAfterRelease extends MemoryBackend {
        /** Scheme {@code broken-late-copy}. */
        public LateCopyAfterRelease() {
            super("broken-late-copy", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.LATE_COPY_AFTER_RELEASE);
        }
    }

    /** Broken: grants expire by the server's wall clock, so a forward jump ends them early. */
    public static final class WallClockExpiry extends MemoryBackend {
        /** Scheme {@code broken-wall-clock}. */
        public WallClockExpiry() {
            super("broken-wall-clock", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.WALL_CLOCK_EXPIRY);
        }
    }

    /** Broken: a CORRECTNESS claim over asynchronous replicas, which a failover to a lagging one breaks. */
    public static final class AsyncReplication extends MemoryBackend {
        /** Scheme {@code broken-async-replication}. */
        public AsyncReplication() {
            super("broken-async-replication", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.ASYNC_REPLICATION);
        }
    }

    /** Broken: each read of an attempt has an operation timeout of its own. */
    public static final class TimeoutPerRead extends MemoryBackend {
        /** Scheme {@code broken-timeout-per-read}. */
        public TimeoutPerRead() {
            super("broken-timeout-per-read", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.TIMEOUT_PER_READ);
        }
    }

    /** Broken: a grant that came back later than its lease time is deleted and reported as busy. */
    public static final class LateGrantAsBusy extends MemoryBackend {
        /** Scheme {@code broken-late-grant-busy}. */
        public LateGrantAsBusy() {
            super("broken-late-grant-busy", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.LATE_GRANT_AS_BUSY);
        }
    }

    /** Broken: a refused password looks like an unreachable server. */
    public static final class WrongPasswordAsUnavailable extends MemoryBackend {
        /** Scheme {@code broken-wrong-password-unavailable}. */
        public WrongPasswordAsUnavailable() {
            super("broken-wrong-password-unavailable", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.WRONG_PASSWORD_AS_UNAVAILABLE);
        }
    }

    /** Broken: the lock's state has no access control. */
    public static final class StateWithoutAcl extends MemoryBackend {
        /** Scheme {@code broken-state-without-acl}. */
        public StateWithoutAcl() {
            super("broken-state-without-acl", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.STATE_WITHOUT_ACL);
        }
    }

    /** Broken: no rights looks like contention. */
    public static final class NoRightsAsBusy extends MemoryBackend {
        /** Scheme {@code broken-no-rights-busy}. */
        public NoRightsAsBusy() {
            super("broken-no-rights-busy", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NO_RIGHTS_AS_BUSY);
        }
    }

    /** Broken: any server certificate is trusted. */
    public static final class TrustsAnyCertificate extends MemoryBackend {
        /** Scheme {@code broken-trusts-any-certificate}. */
        public TrustsAnyCertificate() {
            super("broken-trusts-any-certificate", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.TRUSTS_ANY_CERTIFICATE);
        }
    }

    /** Broken: the fencing token comes from a counter per JVM. */
    public static final class JvmLocalFence extends MemoryBackend {
        /** Scheme {@code broken-jvm-local-fence}. */
        public JvmLocalFence() {
            super("broken-jvm-local-fence", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.JVM_LOCAL_FENCE);
        }
    }

    /** Broken: declares FENCING_TOKENS, leases carry none. */
    public static final class NoFencingToken extends MemoryBackend {
        /** Scheme {@code broken-missing-token}. */
        public NoFencingToken() {
            super("broken-missing-token", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.NO_FENCING_TOKEN);
        }
    }

    /** Broken: the connection URI, password included, is logged at DEBUG. */
    public static final class LogsPassword extends MemoryBackend {
        /** Scheme {@code broken-logs-password}. */
        public LogsPassword() {
            super("broken-logs-password", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.LOGS_PASSWORD);
        }
    }

    /** Broken: close() waits another operation timeout on the link. */
    public static final class SlowClose extends MemoryBackend {
        /** Scheme {@code broken-slow-close}. */
        public SlowClose() {
            super("broken-slow-close", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.SLOW_CLOSE);
        }
    }

    /** Broken: an unanswered extension is reported as lost. */
    public static final class TimeoutAsLost extends MemoryBackend {
        /** Scheme {@code broken-timeout-as-lost}. */
        public TimeoutAsLost() {
            super("broken-timeout-as-lost", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.TIMEOUT_AS_LOST);
        }
    }

    /** Broken: a retry does not recognise its own landed write. */
    public static final class OwnWriteUnrecognised extends MemoryBackend {
        /** Scheme {@code broken-own-write-unrecognised}. */
        public OwnWriteUnrecognised() {
            super("broken-own-write-unrecognised", Guarantee.CORRECTNESS, ALL_BUT_QUORUM, Bug.OWN_WRITE_UNRECOGNISED);
        }
    }
}
