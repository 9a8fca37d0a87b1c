package io.distlock.tck;

import java.time.Duration;
import java.util.Optional;

/**
 * A whitebox hook that asks the backend's server(s) directly how long a lock stays held: rule 1.10
 * checks that {@link io.distlock.Lease#remaining()} never promises more than that, while one lease
 * is extended, auto-renewed and released from several threads. Supply it through
 * {@link LockVerification#lockProbe()}.
 */
@FunctionalInterface
public interface LockProbe {

    /** What a store answers for a lock it holds until told to let go (a ZooKeeper node): longer than any lease. */
    Duration UNTIL_RELEASED = Duration.ofDays(365);

    /**
     * How long the server keeps {@code lockName} held at least, measured while this call runs: a
     * Redis key's {@code PTTL}; for a quorum, the time until fewer than a quorum of nodes still hold
     * it; {@link #UNTIL_RELEASED} for a store that holds until told.
     *
     * @param lockName the lock's name
     * @return how long it stays held, or empty if no one holds it
     */
    Optional<Duration> heldFor(String lockName);
}
