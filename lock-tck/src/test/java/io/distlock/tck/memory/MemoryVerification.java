package io.distlock.tck.memory;

import io.distlock.AccessDeniedException;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.PartitionedClient;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.SessionEnd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A verification of one in-memory server, {@code <scheme>://<serverName>}, with every whitebox hook
 * the real backends' verifications supply: clients on {@link MemoryLink}s of their own, a probe of
 * the server's hold, a restart without the lock table, a revocation that tells the holder (a
 * session expiry) or not (a deleted key), and clients in other JVMs through a {@link MemoryGateway}.
 */
abstract class MemoryVerification extends LockVerification {

    private final String scheme;
    private final String serverName;
    private final boolean revocationTellsHolder;

    MemoryVerification(String scheme, String serverName, boolean revocationTellsHolder) {
        this.scheme = scheme;
        this.serverName = serverName;
        this.revocationTellsHolder = revocationTellsHolder;
    }

    /**
     * The server. Every hook is used after a rule's first client connected, which created the server
     * with its backend's bug (the {@code Bug} given here is only used to create a missing one).
     */
    private MemoryServer server() {
        return MemoryServer.named(scheme, serverName, Bug.NONE);
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(scheme + "://" + authority());
    }

    /** The wrong password rule 6.1 tries, a secret as well: a wrong password must not leak either. */
    private static final String WRONG_PASSWORD = "wrong-pw-5e1b";

    /** The server name, with the credentials of {@code locker} for a {@code secure} server. */
    private String authority() {
        return secure() ? "locker:" + MemoryServer.PASSWORDS.get("locker") + "@" + serverName : serverName;
    }

    private boolean secure() {
        return serverName.startsWith("secure");
    }

    /** Group 6 on a {@code secure} server (see {@link MemoryBackend}). */
    @Override
    protected Optional<Security> security() {
        if (!secure()) {
            return Optional.empty();
        }
        return Optional.of(new Security() {
            @Override
            public List<String> secrets() {
                return List.of(MemoryServer.PASSWORDS.get("locker"), MemoryServer.PASSWORDS.get("outsider"), WRONG_PASSWORD);
            }

            @Override
            public Optional<Supplier<LockClient>> wrongPassword() {
                return Optional.of(() -> Locks.connect(scheme + "://locker:" + WRONG_PASSWORD + "@" + serverName));
            }

            @Override
            public Optional<Supplier<LockClient>> unprivilegedClient() {
                return Optional.of(() -> Locks.connect(scheme + "://outsider:" + MemoryServer.PASSWORDS.get("outsider") + "@"
                        + serverName));
            }

            @Override
            public Optional<Tamper> tamper() {
                return Optional.of(lockName -> {
                    try {
                        server().tamper("outsider", lockName);
                    } catch (AccessDeniedException refused) {
                        // expected: the server keeps the lock's state out of the outsider's reach
                    }
                });
            }

            @Override
            public Optional<Supplier<LockClient>> untrustedServer() {
                return Optional.of(() -> Locks.connect(scheme + "://" + authority() + "?tls=untrusted"));
            }
        });
    }

    /**
     * Whether the backend is a session store, whose clients hold sessions the server can end (rule
     * 4.19); false by default.
     *
     * @return true for a session store's verification
     */
    protected boolean sessionStore() {
        return false;
    }

    /** A session store's sessions end on the server's initiative; other variants keep none (rule 4.19 does not apply). */
    @Override
    protected Optional<SessionEnd> sessionEnd() {
        return sessionStore() ? Optional.of(SessionEnd.of((client, lockName) -> server().endSession(lockName))) : Optional.empty();
    }

    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of((holder, lockName) -> server().revoke(lockName, revocationTellsHolder));
    }

    /**
     * How many routes a partitioned client has to the one server: two by default, as a client of a
     * cluster has a link to each member (rule 4.17 holds one of them); one for a verification
     * whose rule needs the single-link shape.
     *
     * @return the number of links, at least 1
     */
    protected int routes() {
        return 2;
    }

    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(() -> {
            List<MemoryLink> links = new java.util.ArrayList<>();
            for (int i = 0; i < routes(); i++) {
                links.add(MemoryLink.create());
            }
            try {
                LockClient client = Locks.connect(scheme + "://" + authority() + "?link="
                        + links.stream().map(MemoryLink::id).collect(java.util.stream.Collectors.joining(",")));
                return new PartitionedClient(client, links, () -> links.forEach(MemoryLink::remove));
            } catch (RuntimeException e) {
                links.forEach(MemoryLink::remove);
                throw e;
            }
        });
    }

    /**
     * A client in another JVM reaches this JVM's server through its {@link MemoryGateway}, as
     * {@code locker} on a {@code secure} server.
     */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        int port = MemoryGateway.portOf(server(), scheme + "://" + serverName);
        return Optional.of(SeparateProcess.of(scheme + "://" + authority() + "?gateway=" + port));
    }

    /**
     * Rules 5.5 and 5.9: this server through a gateway port nothing listens on (rule 5.9 listens there
     * itself and never answers). The client connects before any credentials are checked.
     */
    @Override
    protected Optional<String> unreachableUri() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return Optional.of(scheme + "://tck:" + SECRET + "@" + serverName + "?gateway=127.0.0.1:" + probe.getLocalPort());
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** Rule 5.8: the silent endpoint listed ahead of this server's {@link MemoryGateway}. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        int port = MemoryGateway.portOf(server(), scheme + "://" + serverName);
        String silentPort = silentEndpoint.substring(silentEndpoint.lastIndexOf(':') + 1);
        return Optional.of(scheme + "://" + authority() + "?gateway=" + silentPort + "," + port);
    }

    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(name -> Optional.ofNullable(server().heldFor(name)));
    }

    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(() -> server().restart());
    }

    /** The server's clock jumps; the reference's monotonic clock does not move (see {@code MemoryServer.jumpClock}). */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(ClockJump.of(1, (node, delta) -> server().jumpClock(delta)));
    }

    /**
     * The server's two replicas: synchronous for every backend but the asynchronous-replication
     * defect (see {@code MemoryServer.cutReplication}).
     */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.of(new ReplicaFailover() {
            @Override
            public LockClient connect() {
                return newClient();
            }

            @Override
            public int replicas() {
                return 2;
            }

            @Override
            public void cutReplication(int replica) {
                server().cutReplication(replica);
            }

            @Override
            public void promote(int replica) {
                server().promote(replica);
            }

            @Override
            public void restore() {
                server().restoreReplication();
            }
        });
    }
}
