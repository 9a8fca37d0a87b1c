package io.distlock.tck.memory;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The TCK's broken variants, one entry each: a deliberate defect of the in-memory backend (each a classic
 * mistake of real lock code), how the variant is set up ({@link Shape}), and the rules of
 * {@code lock-tck/SPEC.md} it must fail with what their failure must say. {@link BrokenBackendsTest} runs
 * every entry's rules against the variant, and against the reference of its shape, which must pass them.
 *
 * <p>A variant of a server or driver defect is served at {@code broken://secure-<variant>} (one provider,
 * {@link MemoryBackend.Broken}, whose servers' names say their defect), with the reference's declaration,
 * so that the TCK must catch the lie; the defect itself is switched on where it lives, in
 * {@link MemoryServer} or {@link MemoryDriver} ({@code bug == Bug.BLIND_DELETE}). A defect of the
 * {@code Lock} view is engine code, not a driver's: its variant is the reference seen through a
 * {@link BrokenViewClient}. Adding a variant is an entry here and the defect's code.
 */
enum Bug {
    /** The reference: no defect. */
    NONE(null, Shape.ONE_LINK),
    /** Release deletes whoever holds the lock (a plain {@code DEL} instead of compare-and-delete). */
    BLIND_DELETE("blind-delete", Shape.ONE_LINK,
            fails("1.2", "blind delete")),
    /** Granted locks never expire on the server (a {@code SET NX} without {@code PX}). */
    NO_EXPIRY("no-expiry", Shape.ONE_LINK,
            fails("2.2", "nobody could acquire")),
    /** The driver ignores the request's owner token and uses a constant one for everybody. */
    CONSTANT_OWNER_TOKEN("constant-owner", Shape.ONE_LINK,
            fails("1.1", "overlapping valid leases"),
            fails("1.2", "release is not owner-only"),
            fails("1.6", "was granted while the first lease is held")),
    /** The fencing counter lives with the lock's state and starts over whenever the lock is free. */
    NON_MONOTONIC_FENCE("non-monotonic-fence", Shape.ONE_LINK,
            fails("1.4", "fencing token did not increase")),
    /** {@code abandon} does nothing: an interrupted or timed-out waiter's request stays queued and is granted to a ghost. */
    LEAKED_ABANDON("leaked-abandon", Shape.ONE_LINK,
            fails("2.4", "an interrupted acquire left a request behind"),
            fails("2.5", "a timed-out acquire left a request behind")),
    /** The server honours only half of the lease time asked for (a unit mix-up), so {@code remaining()} over-promises. */
    EARLY_EXPIRY("early-expiry", Shape.ONE_LINK,
            fails("1.5", "still promised")),
    /** The newest waiter is served first although FIFO_WAITERS is declared. */
    LIFO_WAITERS("lifo-waiters", Shape.ONE_LINK,
            fails("2.7", "not in the order they started waiting")),
    /** Extend does not compare the owner: it prolongs whoever holds the lock (a plain {@code PEXPIRE}). */
    BLIND_EXTEND("blind-extend", Shape.ONE_LINK,
            fails("4.13", "A's extend returned true")),
    /**
     * Extend compares the owner, but takes the lock when it is free (a re-lock, as a map lock's owner
     * renews its lease): a revoked holder's extend brings its lease back when nobody took the lock since.
     */
    EXTEND_TAKES_FREE_LOCK("extend-takes-free", Shape.ONE_LINK,
            fails("4.13", "the extend took the free lock back")),
    /**
     * Extend's owner check compares the wrong value (the token with a prefix the grant did not write):
     * every extension of a held, valid lease is answered "not held", and the lease is reported lost.
     */
    EXTEND_REPORTS_LOST("extend-reports-lost", Shape.ONE_LINK,
            fails("3.1", "of validity left just before the call")),
    /** WAIT_NOTIFICATION is declared but the driver's watch never fires. */
    SILENT_NOTIFICATIONS("silent-notifications", Shape.ONE_LINK,
            fails("2.9", "do its notifications fire?")),
    /** A release, abandon or lease end that could not reach the server returns as if done (nothing retries it). */
    FORGETS_FAILED_CLEANUP("forgets-cleanup", Shape.ONE_LINK,
            fails("4.9", "A's release was forgotten"),
            fails("4.10", "left in the lock's way")),
    /** An attempt that got no answer is reported as busy: an unreachable server looks like contention. */
    UNKNOWN_AS_BUSY("unknown-as-busy", Shape.ONE_LINK,
            fails("4.12", "empty (contention)")),
    /** Extensions are applied later, out of order, and reported at once: a shorter one can land last. */
    REORDERED_EXTENDS("reordered-extends", Shape.ONE_LINK,
            fails("1.10", "than remaining() had promised")),
    /** Ownership is keyed by client and lock name, not by lease: a client's stale lease acts on its newer one. */
    OWNER_BY_NAME("owner-by-name", Shape.ONE_LINK,
            fails("1.9", "keyed by client and name")),
    /** The server takes a late write (in flight while its cleanup ran) for a fresh request and grants it. */
    LATE_WRITE_WINS("late-write-wins", Shape.ONE_LINK,
            fails("4.14", "left the lock held")),
    /** A CORRECTNESS single node whose fencing counter starts over when the server restarts. */
    FENCE_RESETS_ON_RESTART("fence-resets", Shape.ONE_LINK,
            fails("4.15", "restarted empty and handed out")),
    /**
     * A session store whose driver reports its connection suspended when cut off, and never
     * restored once the link heals (its new session is never announced): every later grant is
     * given back, and the client never serves again.
     */
    NEVER_RESTORED("never-restored", Shape.SESSION_STORE,
            fails("4.16", "could not acquire a free lock")),
    /**
     * A client with several routes sends an acquire again past one that did not answer, and on
     * release forgets that the first copy may still land: it does, late, and takes the lock.
     */
    LATE_COPY_AFTER_RELEASE("late-copy", Shape.TWO_LINKS,
            fails("4.17", "a late copy of A's acquire took it")),
    /**
     * A CORRECTNESS server that expires grants by its wall clock (as Redis does): a clock that
     * jumps forward ends them early, and another client is granted while the holder believes.
     */
    WALL_CLOCK_EXPIRY("wall-clock", Shape.ONE_LINK,
            fails("4.4", "the server let A's lock expire early")),
    /**
     * A CORRECTNESS server with asynchronous replicas: a grant is acknowledged before any replica
     * has it, so a failover to a replica that lags forgets it.
     */
    ASYNC_REPLICATION("async-replication", Shape.ONE_LINK,
            fails("4.5", "after a failover B was granted")),
    /**
     * The driver checks its own round trip, and a grant that came back later than the lease time
     * is deleted and reported as busy: a slow reply from a free lock looks like contention.
     */
    LATE_GRANT_AS_BUSY("late-grant-busy", Shape.ONE_LINK,
            fails("4.18", "a grant that arrived after its validity was reported as busy")),
    /**
     * Each read of an attempt waits a whole operation timeout of its own (a connection's id, then
     * the request): a silent server costs the caller several timeouts, not one.
     */
    TIMEOUT_PER_READ("timeout-per-read", Shape.ONE_LINK,
            fails("4.12", "a single attempt on a blackholed server took")),
    /**
     * A session store whose driver binds its grants to no session and, when its session ends, marks
     * lost only the grants it has recorded: a grant the server decided on the session but whose
     * answer the client records only after the session ended is never lost, and stays valid.
     */
    SWEEP_FORGETS_IN_FLIGHT("sweep-forgets-in-flight", Shape.SESSION_STORE,
            fails("4.19", "two valid leases")),
    /** A refused password is reported as an unreachable server: a waiting acquire retries it until its wait runs out. */
    WRONG_PASSWORD_AS_UNAVAILABLE("wrong-password-unavailable", Shape.ONE_LINK,
            fails("6.1", "was reported as unavailable, not refused")),
    /**
     * The lock's state on the server carries no access control: any principal that can connect may
     * delete it (ZooKeeper nodes created with {@code OPEN_ACL_UNSAFE}, a Redis ACL without key patterns).
     */
    STATE_WITHOUT_ACL("state-without-acl", Shape.ONE_LINK,
            fails("6.2", "another client was granted it while the holder's lease is valid")),
    /** A refusal for lack of rights is reported as contention: a principal without rights sees "busy". */
    NO_RIGHTS_AS_BUSY("no-rights-busy", Shape.ONE_LINK,
            fails("6.2", "returned empty (busy) instead of throwing AccessDeniedException")),
    /** The client accepts any server certificate (a trust-all trust manager, host names not checked). */
    TRUSTS_ANY_CERTIFICATE("trusts-any-certificate", Shape.ONE_LINK,
            fails("6.3", "the client accepted a server whose certificate it does not trust")),
    /** The driver logs its connection URI, password included, at DEBUG. */
    LOGS_PASSWORD("logs-password", Shape.ONE_LINK,
            fails("6.4", "a secret (shown here as ***) appears")),
    /**
     * The driver's {@code close()} says goodbye to the server over its link and waits a whole
     * operation timeout for the answer (etcd's session revoke did): with the server silent, the
     * client's close takes two timeouts, not one.
     */
    SLOW_CLOSE("slow-close", Shape.ONE_LINK,
            fails("4.20", "something waited out another timeout")),
    /**
     * The driver's {@code close()} waits for its notification thread to finish while holding what
     * that thread needs to deliver a change (a lock-order inversion, as etcd's client had between a
     * request's line and a watch feed): once a waiter has watched for a change, close never returns.
     */
    HANGING_CLOSE("hanging-close", Shape.ONE_LINK,
            fails("5.3", "it never returned")),
    /**
     * A busy lock's try waits, with no deadline and deaf to interrupts, for a release notice (a blocking
     * wait in place of a try, as a driver that reads a subscription without a timeout): while the holder
     * keeps the lock, the caller's thread never comes back, whatever its maxWait. Only the client's close
     * ends the wait.
     */
    HANGING_ACQUIRE("hanging-acquire", Shape.ONE_LINK,
            fails("2.3", "the rule did not end within")),
    /** An extension that got no answer is reported as lost: a short silence ends a lease that lives on. */
    TIMEOUT_AS_LOST("timeout-as-lost", Shape.ONE_LINK,
            fails("4.21", "a renewal nobody answered was reported as lost")),
    /**
     * Renewal costs one round trip per lease, to a server 2 ms away (the SPI's default
     * {@code extendAll} over a real link): a tick of many leases outlasts their lease time.
     */
    PER_LEASE_RENEWAL("per-lease-renewal", Shape.ONE_LINK,
            fails("3.6", "does renewal cost a round trip per lease?")),
    /**
     * Of the endpoints a URI lists, each is given 30 s to answer before the next is tried (a per-host
     * wait taken from a long session): one that accepts connections and never answers, listed first,
     * keeps the client from the live ones past its connect timeout; alone, it keeps the client from
     * reporting the server unavailable in time.
     */
    WAITS_ON_SILENT_ENDPOINT("waits-on-silent-endpoint", Shape.ONE_LINK,
            fails("5.8", "listed first kept the client from the live endpoints"),
            fails("5.9", "waits for an answer beyond its timeouts")),
    /**
     * The server answers a request whose own grant it already holds as busy (a plain {@code SET NX}):
     * a retry after a lost reply waits on its own landed write until the wait runs out.
     */
    OWN_WRITE_UNRECOGNISED("own-write-unrecognised", Shape.ONE_LINK,
            fails("4.22", "the retry did not recognise A's own write")),
    /** The {@code Lock} view's holder re-enters without looking at its lease: a hold is counted on a lost lease. */
    VIEW_REENTERS_LOST_LEASE("view-reenters-lost", Shape.VIEW,
            fails("7.1", "the holding thread re-entered a lost lease")),
    /**
     * The {@code Lock} view reports "could not tell" as lost: an unconfirmed lease's unlock throws
     * {@code LeaseLostException(EXPIRED)}, on the session-store shape (a dropped link suspends it).
     */
    VIEW_UNCONFIRMED_AS_LOST("view-unknown-as-lost", Shape.VIEW_ON_SESSION,
            fails("7.2", "a client that could not tell reported a loss")),
    /**
     * The fencing token comes from a JVM-local source: a counter per JVM, which the driver counts up
     * at each grant (as a clock reading or a JVM-wide high-water mark would). It increases across every
     * client of one JVM, and starts over in another.
     */
    JVM_LOCAL_FENCE("jvm-local-fence", Shape.ONE_LINK,
            fails("1.4", "fencing token did not increase"),
            fails("1.7", "writes of valid holders were rejected"),
            fails("4.15", "handed out fencing token")),
    /** FENCING_TOKENS is declared, but the leases carry no token. */
    NO_FENCING_TOKEN("missing-token", Shape.ONE_LINK,
            fails("4.15", "declaring FENCING_TOKENS has no fencing token")),
    /** Inspection shows the last holder it saw after the lock was released (a cache of what it read before). */
    STALE_INSPECTION("stale-inspection", Shape.ONE_LINK,
            fails("8.1", "still showed a holder after")),
    /**
     * A revoke deletes the holder's grant but does not move the fence: the next grant reuses the
     * evicted holder's token (a fence kept per holder), so a fenced resource cannot tell the two apart.
     */
    REVOKE_REUSES_TOKEN("revoke-reuses-token", Shape.ONE_LINK,
            fails("8.3", "not above the revoked holder's")),
    /**
     * A revoke deletes the holder's grant and tells nobody, and leaves no trace for the holder's next
     * extension (a hand-made {@code DEL}): the evicted holder goes on believing its lease valid.
     */
    REVOKE_UNNOTICED("revoke-unnoticed", Shape.ONE_LINK,
            fails("8.3", "still believes its lease valid")),
    /**
     * A semaphore's permits are counted in one round trip and written in another, so two clients that
     * counted the same free permit both take it: N + 1 holders.
     */
    NON_ATOMIC_PERMITS("non-atomic-permits", Shape.ONE_LINK,
            fails("9.1", "permits valid at once")),
    /** A permit never expires on the server: a holder that dies keeps it for good. */
    DEAD_PERMIT_KEPT("dead-permit-kept", Shape.ONE_LINK,
            fails("9.4", "never came back")),
    /** A reader is admitted while a writer holds the read-write lock. */
    READER_BESIDE_WRITER("reader-beside-writer", Shape.ONE_LINK,
            fails("9.2", "a reader and a writer")),
    /** A waiting writer holds back no reader: readers that keep arriving starve it. */
    WRITER_STARVATION("writer-starvation", Shape.ONE_LINK,
            fails("9.3", "starved")),
    /**
     * The holds of a semaphore or a read-write lock are read as a lock's holder is: only the first is
     * shown, so an operator never sees the others (nor can revoke them).
     */
    ONE_HOLD_SHOWN("one-hold-shown", Shape.ONE_LINK,
            fails("9.9", "listed 1 of")),
    /**
     * A revoke of one hold takes every hold of the primitive (the lock's revoke reused: the whole
     * key deleted), so revoking one stuck permit evicts every healthy holder with it.
     */
    REVOKE_TAKES_EVERY_HOLD("revoke-takes-every-hold", Shape.ONE_LINK,
            fails("9.10", "ended B's too")),
    /**
     * A revoke of a permit, reader or writer ends it on the server but its holder's client is told
     * only of locks' revokes (it listens for no other kind): a holder that does not renew goes on
     * believing its hold valid — what the Redis and etcd drivers did before they listened for holds.
     */
    HOLD_REVOKE_UNHEARD("hold-revoke-unheard", Shape.ONE_LINK,
            fails("9.10", "still believes its hold valid"));

    /** The scheme of {@link MemoryBackend.Broken}, which serves every variant of a server or driver defect. */
    static final String BROKEN_SCHEME = "broken";

    /**
     * How a variant is set up: which scheme its clients connect with, how many links a partitioned client
     * has, whether it is a session store, and which reference it is held against.
     */
    enum Shape {
        /** Served by {@code broken://}, one link per partitioned client (the shape most variants were written against). */
        ONE_LINK(BROKEN_SCHEME, 1, false, false, MemoryReferenceTest.class),
        /** As {@link #ONE_LINK}, with two links per partitioned client: rule 4.17 holds one of them. */
        TWO_LINKS(BROKEN_SCHEME, 2, false, false, MemoryReferenceTest.class),
        /** Served by {@code broken://} with a session store's driver (ZooKeeper's shape), held against {@code memory-session}. */
        SESSION_STORE(BROKEN_SCHEME, 1, true, false, MemorySessionTest.class),
        /** The reference, {@code memory://}, through a {@link BrokenViewClient}. */
        VIEW("memory", 2, false, false, MemoryReferenceTest.class),
        /** The session-store reference, {@code memory-session://}, through a {@link BrokenViewClient}; its revocation is heard. */
        VIEW_ON_SESSION("memory-session", 2, false, true, MemoryReferenceTest.class);

        final String scheme;
        final int routes;
        final boolean sessionStore;
        final boolean revocationTellsHolder;
        final Class<? extends MemoryVerification> reference;

        Shape(String scheme, int routes, boolean sessionStore, boolean revocationTellsHolder,
              Class<? extends MemoryVerification> reference) {
            this.scheme = scheme;
            this.routes = routes;
            this.sessionStore = sessionStore;
            this.revocationTellsHolder = revocationTellsHolder;
            this.reference = reference;
        }
    }

    /**
     * A rule the variant must fail, and what the failure message must contain.
     *
     * @param rule    the rule's number, {@code 4.10}
     * @param message a part of the failure message that says what went wrong
     */
    record Failure(String rule, String message) {
    }

    private final String variant;
    private final Shape shape;
    private final List<Failure> failures;

    Bug(String variant, Shape shape, Failure... failures) {
        this.variant = variant;
        this.shape = shape;
        this.failures = List.of(failures);
    }

    private static Failure fails(String rule, String message) {
        return new Failure(rule, message);
    }

    /** @return the variant's name, as SPEC.md's table lists it */
    String variant() {
        return variant;
    }

    Shape shape() {
        return shape;
    }

    /** @return the rules the variant must fail; none for {@link #NONE} */
    List<Failure> failures() {
        return failures;
    }

    /** @return the server the variant's clients connect to: one per variant of {@code broken://} */
    String server() {
        return shape.scheme.equals(BROKEN_SCHEME) ? "secure-" + variant : "view-tck";
    }

    /** @return whether the defect is the {@code Lock} view's, staged on the client ({@link BrokenViewClient}) */
    boolean inView() {
        return !shape.scheme.equals(BROKEN_SCHEME);
    }

    /** @return every broken variant */
    static List<Bug> variants() {
        return Arrays.stream(values()).filter(bug -> !bug.failures.isEmpty()).collect(Collectors.toList());
    }

    /**
     * @param server the name of a {@code broken://} server, {@code secure-<variant>}
     * @return the defect that server (and its clients' drivers) has
     * @throws IllegalArgumentException if no variant of a server or driver defect has that name
     */
    static Bug servedBy(String server) {
        String name = server.startsWith("secure-") ? server.substring("secure-".length()) : server;
        return variants().stream().filter(bug -> !bug.inView() && bug.variant.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no broken variant is named '" + name + "'; a "
                        + BROKEN_SCHEME + ":// server is named secure-<variant>, one of "
                        + variants().stream().filter(bug -> !bug.inView()).map(Bug::variant).collect(Collectors.toList())));
    }
}
