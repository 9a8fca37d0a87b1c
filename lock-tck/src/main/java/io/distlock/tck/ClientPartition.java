package io.distlock.tck;

import io.distlock.LockOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A whitebox hook that opens clients which a rule can cut off from the backend, each on links of
 * its own (rules 4.9–4.12, 4.14, 4.16 and 4.17: a release, a wait, a lost reply and an interrupted
 * acquire during a partition; a blackholed server; a partition past the session; one node's link
 * holding requests; rules 4.20–4.22: a close, a renewal and a waiting acquire's first reply meeting
 * silence; rule 7.2: the {@code Lock} view's unlock during a partition). Every backend whose verification starts its own
 * servers supplies one: for TCP backends, a fault proxy per node for each client
 * ({@code FaultProxy.partitionedClient} of lock-tck-fixtures builds it).
 * Supply it through {@link LockVerification#clientPartition()}.
 */
public interface ClientPartition {

    /**
     * Opens a fresh, independent client (another "process") whose connections to every node go
     * through links of its own, healthy when it returns.
     *
     * @return the client and its links; the TCK closes it
     */
    PartitionedClient open();

    /**
     * The operation timeout of the clients {@link #open()} makes: how long one of their requests
     * may go unanswered before it counts as failed, retries within it included (for a backend that
     * asks every node at once, such as Redlock, one fan-out's bound). Rules bound "in time" by it.
     *
     * @return the operation timeout; {@link LockOptions#operationTimeout()} of the defaults unless overridden
     */
    default Duration operationTimeout() {
        return LockOptions.defaults().operationTimeout();
    }

    /**
     * How long such a client needs, once its links heal, to be connected again (a ZooKeeper client
     * waits out a reconnect back-off): added to the hand-off bound after a heal.
     *
     * @return the reconnect time, not negative; zero by default
     */
    default Duration reconnect() {
        return Duration.ZERO;
    }

    /**
     * How long the server keeps the session of such a client once it hears nothing from it (a
     * ZooKeeper session timeout, an etcd session lease's TTL): when it ends, the server removes the
     * client's locks by itself. Rule 4.16 cuts the client off at least this long, so that a session
     * store's lost session is what it shows; rule 4.9 needs it to outlast a partition of the
     * operation timeout, or the server frees the lock before the release it tests is carried out
     * (choose the clients' session and operation timeout so that it does), and so does rule 4.21,
     * whose silence lasts one extension's timeout.
     *
     * @return the session timeout; zero (the default) for a backend without client sessions
     */
    default Duration sessionTimeout() {
        return Duration.ZERO;
    }

    /**
     * The hook from its three parts, for a verification whose backend keeps no client session.
     *
     * @param open             opens a client on links of its own ({@link #open()})
     * @param operationTimeout those clients' operation timeout ({@link #operationTimeout()})
     * @param reconnect        how long they need to be connected again after a heal ({@link #reconnect()})
     * @return the hook
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if a duration is negative
     */
    static ClientPartition of(Supplier<PartitionedClient> open, Duration operationTimeout, Duration reconnect) {
        return of(open, operationTimeout, reconnect, Duration.ZERO);
    }

    /**
     * The hook from its four parts, for a verification whose backend keeps a session per client.
     *
     * @param open             opens a client on links of its own ({@link #open()})
     * @param operationTimeout those clients' operation timeout ({@link #operationTimeout()})
     * @param reconnect        how long they need to be connected again after a heal ({@link #reconnect()})
     * @param sessionTimeout   how long the server keeps their session once it hears nothing ({@link #sessionTimeout()})
     * @return the hook
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if a duration is negative
     */
    static ClientPartition of(Supplier<PartitionedClient> open, Duration operationTimeout, Duration reconnect,
                              Duration sessionTimeout) {
        Objects.requireNonNull(open, "open");
        if (operationTimeout.isNegative() || reconnect.isNegative() || sessionTimeout.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative: operationTimeout=" + operationTimeout
                    + ", reconnect=" + reconnect + ", sessionTimeout=" + sessionTimeout);
        }
        return new ClientPartition() {
            @Override
            public PartitionedClient open() {
                return open.get();
            }

            @Override
            public Duration operationTimeout() {
                return operationTimeout;
            }

            @Override
            public Duration reconnect() {
                return reconnect;
            }

            @Override
            public Duration sessionTimeout() {
                return sessionTimeout;
            }
        };
    }
}
