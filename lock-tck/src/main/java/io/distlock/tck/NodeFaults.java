package io.distlock.tck;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A whitebox hook into a multi-node backend's test servers, for the rules that need nodes to fail
 * (rules 2.8 and 4.2–4.7). Supply one through {@link LockVerification#nodeFaults()}.
 *
 * <p>Only {@link #stopMinority()} is required. The other faults are optional: a hook lists the
 * ones it offers in {@link #offered()} and implements their methods; a rule that needs a fault
 * the hook does not offer is skipped with a message naming the missing {@link Kind}. Every fault
 * hits a <em>minority</em> of the nodes, so a quorum backend must keep working through it.
 *
 * <p>A client of a backend that talks to one node at a time (a ZooKeeper session, for example)
 * notices a slow, partitioned or frozen node only when its own timeout runs out, and then moves to
 * another node. {@link #failover()} says how long that takes with the clients the verification
 * builds; rules 4.6 and 4.7 add it to the time bound of every grant that may meet the faulty node.
 * Their "only once" checks do not change.
 */
public interface NodeFaults {

    /** The faults a hook can inject, each named after its method. */
    enum Kind {
        /** {@link #stopMinority()}. */
        STOP_MINORITY,
        /** {@link #restartOneWithoutPersistence()}. */
        RESTART_WITHOUT_PERSISTENCE,
        /** {@link #pauseMinority()}. */
        PAUSE_MINORITY,
        /** {@link #slowMinority(Duration)}. */
        SLOW_MINORITY,
        /** {@link #partitionMinority()}. */
        PARTITION_MINORITY
    }

    /**
     * @return the faults this hook offers; by default only {@link Kind#STOP_MINORITY}
     */
    default Set<Kind> offered() {
        return EnumSet.of(Kind.STOP_MINORITY);
    }

    /**
     * The faults that cannot happen to this backend at all, each with the reason in the terms of
     * its own fault model: for example a restart without persistence of a Raft member, which the
     * server refuses (it would void the consensus the lock rests on). A rule that needs one of
     * these does not apply: it is skipped, the reason is shown in its row, and the verdict names it
     * without calling the guarantee unshown. A fault that the hook merely does not offer belongs in
     * neither set: its rules are "not run", and the guarantee is not shown.
     *
     * @return kind → why it cannot happen; empty by default
     */
    default Map<Kind, String> impossible() {
        return Map.of();
    }

    /**
     * How long a client needs to move off a slow, partitioned or frozen node to a healthy one, for
     * the clients {@link LockVerification#newClient()} builds: rules 4.6 and 4.7 allow an acquire
     * the hand-off bound plus this, and within it make an attempt or an extension again after an
     * unknown outcome. A backend whose clients talk to every node at once (Redlock)
     * needs no failover and keeps the default.
     *
     * @return the failover time, not negative; {@link Duration#ZERO} by default
     */
    default Duration failover() {
        return Duration.ZERO;
    }

    /**
     * Stops a minority of the backend's nodes (for example 1 of 3, or 2 of 5) and returns at once.
     * The nodes stay down until the returned fault is closed.
     *
     * @return the fault; closing it brings the nodes back (and waits until they serve again)
     */
    Fault stopMinority();

    /**
     * Kills one node that the most recent {@link #stopMinority()} did <em>not</em> stop — so one
     * that took part in any quorum formed during that fault — and starts it again at once with
     * none of its data (a restart without persistence). Returns when it serves again.
     *
     * @throws UnsupportedOperationException unless {@link #offered()} has {@link Kind#RESTART_WITHOUT_PERSISTENCE}
     */
    default void restartOneWithoutPersistence() {
        throw new UnsupportedOperationException(Kind.RESTART_WITHOUT_PERSISTENCE + " is not offered");
    }

    /**
     * Freezes the server processes of a minority of nodes ({@code SIGSTOP}): they keep their
     * sockets, connections are still accepted by the kernel, nothing is answered.
     *
     * @return the fault; closing it resumes them ({@code SIGCONT})
     * @throws UnsupportedOperationException unless {@link #offered()} has {@link Kind#PAUSE_MINORITY}
     */
    default Fault pauseMinority() {
        throw new UnsupportedOperationException(Kind.PAUSE_MINORITY + " is not offered");
    }

    /**
     * Adds {@code latency} to every packet, each way, between the clients and a minority of nodes.
     *
     * @param latency the added one-way latency
     * @return the fault; closing it removes the latency
     * @throws UnsupportedOperationException unless {@link #offered()} has {@link Kind#SLOW_MINORITY}
     */
    default Fault slowMinority(Duration latency) {
        throw new UnsupportedOperationException(Kind.SLOW_MINORITY + " is not offered");
    }

    /**
     * Partitions a minority of nodes away from the clients: nothing gets through either way, and
     * connections hang rather than fail.
     *
     * @return the fault; closing it heals the partition
     * @throws UnsupportedOperationException unless {@link #offered()} has {@link Kind#PARTITION_MINORITY}
     */
    default Fault partitionMinority() {
        throw new UnsupportedOperationException(Kind.PARTITION_MINORITY + " is not offered");
    }

    /** An injected fault that lasts until closed. */
    @FunctionalInterface
    interface Fault extends AutoCloseable {
        /** Ends the fault. Idempotent; never throws a checked exception. */
        @Override
        void close();
    }
}
