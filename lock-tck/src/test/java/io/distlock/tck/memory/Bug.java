package io.distlock.tck.memory;

/** One deliberate defect of the in-memory backend, each a classic mistake of real lock code. */
enum Bug {
    /** The reference: no defect. */
    NONE,
    /** Release deletes whoever holds the lock (a plain {@code DEL} instead of compare-and-delete). */
    BLIND_DELETE,
    /** Granted locks never expire on the server (a {@code SET NX} without {@code PX}). */
    NO_EXPIRY,
    /** The driver ignores the request's owner token and uses a constant one for everybody. */
    CONSTANT_OWNER_TOKEN,
    /** The fencing counter lives with the lock's state and starts over whenever the lock is free. */
    NON_MONOTONIC_FENCE,
    /** {@code abandon} does nothing: an interrupted or timed-out waiter's request stays queued and is granted to a ghost. */
    LEAKED_ABANDON,
    /** The server honours only half of the lease time asked for (a unit mix-up), so {@code remaining()} over-promises. */
    EARLY_EXPIRY,
    /** The newest waiter is served first although FIFO_WAITERS is declared. */
    LIFO_WAITERS,
    /** Extend does not compare the owner: it prolongs whoever holds the lock (a plain {@code PEXPIRE}). */
    BLIND_EXTEND,
    /** WAIT_NOTIFICATION is declared but the driver's watch never fires. */
    SILENT_NOTIFICATIONS,
    /** A release, abandon or lease end that could not reach the server returns as if done (nothing retries it). */
    FORGETS_FAILED_CLEANUP,
    /** An attempt that got no answer is reported as busy: an unreachable server looks like contention. */
    UNKNOWN_AS_BUSY,
    /** Extensions are applied later, out of order, and reported at once: a shorter one can land last. */
    REORDERED_EXTENDS,
    /** Ownership is keyed by client and lock name, not by lease: a client's stale lease acts on its newer one. */
    OWNER_BY_NAME,
    /** The server takes a late write (in flight while its cleanup ran) for a fresh request and grants it. */
    LATE_WRITE_WINS,
    /** A CORRECTNESS single node whose fencing counter starts over when the server restarts. */
    FENCE_RESETS_ON_RESTART,
    /**
     * A session store whose driver reports its connection suspended when cut off, and never
     * restored once the link heals (its new session is never announced): every later grant is
     * given back, and the client never serves again.
     */
    NEVER_RESTORED,
    /**
     * A client with several routes sends an acquire again past one that did not answer, and on
     * release forgets that the first copy may still land: it does, late, and takes the lock.
     */
    LATE_COPY_AFTER_RELEASE,
    /**
     * A CORRECTNESS server that expires grants by its wall clock (as Redis does): a clock that
     * jumps forward ends them early, and another client is granted while the holder believes.
     */
    WALL_CLOCK_EXPIRY,
    /**
     * A CORRECTNESS server with asynchronous replicas: a grant is acknowledged before any replica
     * has it, so a failover to a replica that lags forgets it.
     */
    ASYNC_REPLICATION,
    /**
     * The driver checks its own round trip, and a grant that came back later than the lease time
     * is deleted and reported as busy: a slow reply from a free lock looks like contention.
     */
    LATE_GRANT_AS_BUSY,
    /**
     * Each read of an attempt waits a whole operation timeout of its own (a connection's id, then
     * the request): a silent server costs the caller several timeouts, not one.
     */
    TIMEOUT_PER_READ,
    /**
     * A session store whose driver binds its grants to no session and, when its session ends, marks
     * lost only the grants it has recorded: a grant the server decided on the session but whose
     * answer the client records only after the session ended is never lost, and stays valid.
     */
    SWEEP_FORGETS_IN_FLIGHT,
    /** A refused password is reported as an unreachable server: a waiting acquire retries it until its wait runs out. */
    WRONG_PASSWORD_AS_UNAVAILABLE,
    /**
     * The lock's state on the server carries no access control: any principal that can connect may
     * delete it (ZooKeeper nodes created with {@code OPEN_ACL_UNSAFE}, a Redis ACL without key patterns).
     */
    STATE_WITHOUT_ACL,
    /** A refusal for lack of rights is reported as contention: a principal without rights sees "busy". */
    NO_RIGHTS_AS_BUSY,
    /** The client accepts any server certificate (a trust-all trust manager, host names not checked). */
    TRUSTS_ANY_CERTIFICATE,
    /** The driver logs its connection URI, password included, at DEBUG. */
    LOGS_PASSWORD,
    /**
     * The driver's {@code close()} says goodbye to the server over its link and waits a whole
     * operation timeout for the answer (etcd's session revoke did): with the server silent, the
     * client's close takes two timeouts, not one.
     */
    SLOW_CLOSE,
    /** An extension that got no answer is reported as lost: a short silence ends a lease that lives on. */
    TIMEOUT_AS_LOST,
    /**
     * The server answers a request whose own grant it already holds as busy (a plain {@code SET NX}):
     * a retry after a lost reply waits on its own landed write until the wait runs out.
     */
    OWN_WRITE_UNRECOGNISED,
    /**
     * The fencing token comes from a JVM-local source: a counter per JVM, which the driver counts up
     * at each grant (as a clock reading or a JVM-wide high-water mark would). It increases across every
     * client of one JVM, and starts over in another.
     */
    JVM_LOCAL_FENCE,
    /** FENCING_TOKENS is declared, but the leases carry no token. */
    NO_FENCING_TOKEN
}
