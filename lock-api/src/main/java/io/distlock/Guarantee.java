package io.distlock;

/**
 * What a double grant costs, and so what a backend may be trusted with (Kleppmann's split).
 */
public enum Guarantee {
    /**
     * A double grant only duplicates work (a report mailed twice). TTL-based locks are at most
     * this: a process pause longer than the lease, a clock jump, a restart without fsync or an
     * asynchronous-replication failover can give two holders at once.
     */
    EFFICIENCY,

    /**
     * A double grant would corrupt data. The backend rests on consensus and hands out
     * {@linkplain Feature#FENCING_TOKENS fencing tokens} that the protected resource checks, so a
     * stale holder's write is rejected even when it still believes it holds the lock.
     */
    CORRECTNESS
}
