package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.LockClient;
import io.distlock.Locks;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The TCK: every rule of {@code lock-tck/SPEC.md} as one JUnit 5 test. A backend author extends this
 * class, implements {@link #newClient()}, and overrides the hooks that apply:
 *
 * <pre>{@code
 * class RedisLockVerificationTest extends LockVerification {
 *     static final RedisServer server = RedisServer.start();
 *
 *     protected LockClient newClient() {
 *         return Locks.connect(server.uri());
 *     }
 *
 *     protected Optional<String> unreachableUri() {
 *         return Optional.of("redis://user:" + SECRET + "@127.0.0.1:" + closedPort);
 *     }
 *
 *     protected Optional<ClientPartition> clientPartition() {
 *         return Optional.of(() -> FaultProxy.partitionedClient(List.of(server.endpoint()),
 *                 proxies -> Locks.connect("redis://" + proxies.get(0).endpoint())));
 *     }
 *     protected Optional<SeparateProcess> separateProcess() {
 *         return Optional.of(SeparateProcess.of(server.uri()));
 *     }
 *     // ... leaseRevocation(), lockProbe(), serverRestart(), clockJump(), replicaFailover(): see their Javadoc
 * }
 * }</pre>
 *
 * <p>Test methods are named after their rule: {@code required_...} for a MUST,
 * {@code optional_...} for a SHOULD. A rule whose feature the backend does not declare is
 * skipped (a JUnit assumption) with a message naming the feature. After the class has run, a
 * verdict is written to {@code <distlock.tck.reportDir>/<scheme>-<VerificationClass>-verdict.md}. All timing comes from
 * {@link #environment()}; raise {@code -Ddistlock.tck.timeoutFactor} on a slow machine.
 *
 * <p>Each rule uses a fresh random lock name, and every client, lease and thread it creates is
 * closed after it, so rules do not leak into each other. Waits are for conditions (Awaitility), with
 * two exceptions: rule 4.1 sleeps, because a sleeping holder is what it models, and rule 4.16
 * holds a partition for a set time, because a long outage is what it models.
 */
@TestMethodOrder(MethodOrderer.DisplayName.class)
public abstract class LockVerification implements SafetyRules, LeaseUseRules, LivenessRules, RenewalRules, FaultRules,
        RevocationRules, PartitionRules, SessionRules, ServerFaultRules, SilenceRules, InputRules, SecurityRules,
        LockViewRules, InspectionRules, SharedHoldRules {

    // The rules are composed: one package-private test interface per group of SPEC.md (see RuleGroup),
    // whose default @Test methods JUnit finds on the author's subclass. @TestMethodOrder is @Inherited,
    // so from here it orders every rule of that subclass, whichever group declares the rule.

    /** Writes the verdict after the class (static: it needs the class-level callbacks). */
    @RegisterExtension
    static final Extension VERDICT = new VerdictExtension();

    /** Runs only the rules {@code -Ddistlock.tck.rules} selects (all by default). */
    @RegisterExtension
    static final Extension RULES = new RuleFilter();

    /** Fails a rule that has not ended within a generous bound instead of hanging the run ({@link RuleBound}). */
    @RegisterExtension
    static final Extension BOUND = new RuleBound();

    /**
     * Put this string wherever a password goes in {@link #malformedUris()} and
     * {@link #unreachableUri()}: rules 5.4 and 5.5 check that no message shows it.
     */
    public static final String SECRET = "tck-S3cret-9f27";

    /** The running rule's clients, leases, threads, lock name and notes; set by {@link #openRule}. */
    Rig rig;

    /** For subclasses. */
    protected LockVerification() {
    }

    // ------------------------------------------------------------------------------------------
    // What a backend author supplies

    /**
     * Opens a fresh, independent client of the backend under test: each call stands for another
     * process. All clients must reach the same lock server(s).
     *
     * @return a connected client; the TCK closes it
     */
    protected abstract LockClient newClient();

    /**
     * URIs of the backend's scheme that {@link Locks#connect(String)} must reject with an
     * {@link IllegalArgumentException} (rule 5.4), each with {@link #SECRET} as its password. The
     * TCK adds a few that no backend can parse.
     *
     * @return the backend-specific malformed URIs; none by default
     */
    protected List<String> malformedUris() {
        return List.of();
    }

    /**
     * A well-formed URI of a server that cannot be reached, with {@link #SECRET} as its password
     * (rule 5.5); for example a closed loopback port.
     *
     * @return the URI; empty fails rule 5.5 (every backend can be unreachable)
     */
    protected Optional<String> unreachableUri() {
        return Optional.empty();
    }

    /**
     * The URI of the deployment under test with one more endpoint, {@code silentEndpoint}
     * ({@code host:port}), listed ahead of its live ones (rule 5.8): where the scheme lists
     * alternatives (ZooKeeper's connect string, etcd's endpoints, Hazelcast's members, Sentinels,
     * cluster seeds). The TCK listens on that endpoint and never answers: the kernel accepts the
     * connection, as for a frozen server. Credentials go in the URI, as for {@link #unreachableUri()}.
     *
     * @param silentEndpoint {@code host:port} of the TCK's silent listener
     * @return the URI; empty when the scheme's URI names a single endpoint, or nodes that must all
     *     take part (a quorum of independent nodes: a silent one is a node fault, rules 4.6 and 4.7)
     */
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.empty();
    }

    /**
     * The hook that makes a minority of nodes fail (rules 2.8 and 4.2–4.7, for backends declaring
     * {@link Feature#QUORUM}); rules needing a fault it does not {@linkplain NodeFaults#offered() offer}
     * are skipped.
     *
     * @return the hook; empty fails rules 2.8 and 4.2–4.7 for a backend that declares {@link Feature#QUORUM}
     */
    protected Optional<NodeFaults> nodeFaults() {
        return Optional.empty();
    }

    /**
     * The hook that makes the server revoke a holder's lease (rules 4.8, 4.13 and 7.1), as an operator,
     * an eviction or a session expiry does.
     *
     * @return the hook; empty fails rules 4.8, 4.13 and 7.1 (every backend can lose a lock on the server)
     */
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.empty();
    }

    /**
     * The hook that opens clients a rule can cut off from the backend on links of their own (rules
     * 4.9–4.12, 4.14, 4.16–4.18, 4.20–4.22, 7.2 and 9.5). Every verification that starts its own servers can supply it: see
     * {@code FaultProxy.partitionedClient} of lock-tck-fixtures.
     *
     * @return the hook; empty fails those rules (every backend can be cut off)
     */
    protected Optional<ClientPartition> clientPartition() {
        return Optional.empty();
    }

    /**
     * The hook that asks the server how long a lock stays held (rule 1.10), such as a Redis
     * {@code PTTL}.
     *
     * @return the hook; empty fails rule 1.10 for a backend that declares
     *         {@link Feature#LEASE_EXTENSION} (others are skipped)
     */
    protected Optional<LockProbe> lockProbe() {
        return Optional.empty();
    }

    /**
     * The hook that restarts the server (or one node) without its data (rule 4.15).
     *
     * @return the hook; empty fails rule 4.15 for a backend that declares
     *         {@link Feature#FENCING_TOKENS} (others are skipped)
     */
    protected Optional<ServerRestart> serverRestart() {
        return Optional.empty();
    }

    /**
     * The hook that makes one server's clock jump forward (rule 4.4). Every server keeps time, so
     * every backend supplies it: a real jump as its servers would feel it, or
     * {@link ClockJump#impossible(String)} for servers that expire leases by a monotonic clock.
     *
     * @return the hook; empty fails rule 4.4
     */
    protected Optional<ClockJump> clockJump() {
        return Optional.empty();
    }

    /**
     * The hook that fails a primary over to one of its replicas (rule 4.5). Every backend supplies
     * it: a real failover for a deployment with asynchronous replicas, or
     * {@link ReplicaFailover#impossible(String)} for one without (independent nodes, a consensus store).
     *
     * @return the hook; empty fails rule 4.5
     */
    protected Optional<ReplicaFailover> replicaFailover() {
        return Optional.empty();
    }

    /**
     * The hook that moves the shard keeping a lock to another shard (rule 4.23), for a sharded
     * deployment (a Redis Cluster's slot migration).
     *
     * @return the hook; empty for a backend that keeps every lock in one place (the rule does not apply)
     */
    protected Optional<ShardMigration> shardMigration() {
        return Optional.empty();
    }

    /**
     * The hook that ends a client's session on the server (rule 4.19): ZooKeeper closes it with the
     * session's id and password from another connection, etcd revokes its session lease. A backend
     * whose clients hold sessions supplies it; one whose locks are keys with a TTL of their own need
     * not (or says why with {@link SessionEnd#impossible(String)}).
     *
     * @return the hook; empty fails rule 4.19 for a verification whose {@link ClientPartition#sessionTimeout()}
     *         declares a session (for one that declares none, the rule does not apply)
     */
    protected Optional<SessionEnd> sessionEnd() {
        return Optional.empty();
    }

    /**
     * The hook of group 6 (rules 6.1–6.4), for a verification whose servers require authentication
     * (and speak TLS, where the backend can): wrong credentials, a principal without rights, an
     * untrusted server certificate, and no secret in any log line, message or verdict.
     *
     * @return the hook; empty skips group 6 by name (a verification of servers without authentication)
     */
    protected Optional<Security> security() {
        return Optional.empty();
    }

    /**
     * The hook that says how a client in a separate process connects (rules 1.4, 1.7 and 4.15): the
     * TCK starts a child JVM on this JVM's class path, which connects with the hook's URI and options
     * and takes turns with {@link #newClient()}'s clients, so that a fencing token that increases only
     * within one JVM (a clock reading, a JVM-wide high-water mark, a static counter) fails. Usually the
     * URI and options {@code newClient()} connects with: {@link SeparateProcess#of(java.net.URI, io.distlock.LockOptions)}.
     *
     * @return the hook; empty fails rules 1.4, 1.7 and 4.15 for a backend that declares
     *         {@link Feature#FENCING_TOKENS} (every backend can be used from two processes)
     */
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.empty();
    }

    /**
     * The start of every lock name the rules use: each rule appends its number and a random part (a rule
     * that needs several names derives them from its own). A live audit of a shared deployment keeps its
     * names apart this way ({@code distlock check} uses {@code distlock-check/<run id>/}).
     *
     * @return {@code distlock-tck-} by default
     */
    protected String lockNamePrefix() {
        return "distlock-tck-";
    }

    /**
     * Called with the history of every contention run (rules 1.1, 1.4 and 1.7) once its contenders have
     * stopped, before the rule judges it — so also for a run that then fails. A live audit draws it as a
     * timeline; by default nothing is done with it.
     *
     * @param rule    the rule's number, {@code 1.1}
     * @param history what the contenders did
     */
    protected void recorded(String rule, History history) {
    }

    /**
     * @return the timing every rule uses; by default scaled by {@code -Ddistlock.tck.timeoutFactor}
     */
    protected TestEnvironment environment() {
        return new TestEnvironment();
    }

    // ------------------------------------------------------------------------------------------
    // Per-rule set-up and tear-down

    /**
     * Opens the rule: a fresh lock name and a fresh set of tracked resources.
     *
     * @param info the running test
     */
    @BeforeEach
    public final void openRule(TestInfo info) {
        TestEnvironment env = Objects.requireNonNull(environment(), "environment() returned null");
        String display = info.getDisplayName();
        String rule = display.indexOf(' ') > 0 ? display.substring(0, display.indexOf(' ')) : display;
        String name = Objects.requireNonNull(lockNamePrefix(), "lockNamePrefix() returned null") + rule + "-"
                + UUID.randomUUID().toString().substring(0, 8);
        rig = new Rig(this, env, rule, name);
        SecurityRules.startCapture(rig);
    }

    /**
     * Closes every client, lease and thread the rule created; fails the rule if a client's
     * {@code close()} never returns (a hang is reported, not waited for: the run goes on).
     */
    @AfterEach
    public final void closeRule() {
        if (rig != null) {
            rig.close();
        }
    }

    // ------------------------------------------------------------------------------------------
    // For the verdict

    Optional<BackendDescriptor> descriptorSeen() {
        return rig == null ? Optional.empty() : rig.descriptorSeen();
    }

    List<String> findings() {
        return rig == null ? List.of() : List.copyOf(rig.findings);
    }

    List<String> notes() {
        return rig == null ? List.of() : List.copyOf(rig.notes);
    }
}
