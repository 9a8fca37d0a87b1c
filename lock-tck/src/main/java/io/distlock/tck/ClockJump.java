package io.distlock.tck;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * A whitebox hook that makes one server's clock jump forward (rule 4.4), as an NTP step, a VM
 * resumed on another host or an operator's {@code date -s} does. What a jump does depends on how
 * the server keeps time: a server that expires leases by its wall clock lets every key expire that
 * much early; one that expires them by a monotonic clock is not moved at all. The hook applies
 * the jump as the server would feel it: a Redis server, whose expiries are wall-clock deadlines,
 * has every remaining TTL shortened by the jump ({@code RedisServer.shiftClock} of lock-tck-fixtures).
 * Supply it through {@link LockVerification#clockJump()}.
 */
public interface ClockJump {

    /**
     * @return how many nodes keep the lock's state (1 for a single server, N for a quorum of
     *         independent nodes); rule 4.4 jumps node 0 only: one server, or a minority of a quorum
     */
    int nodes();

    /**
     * Makes node {@code node}'s clock jump forward by {@code delta}, as its lease expiries see it;
     * returns once the jump has taken effect.
     *
     * @param node  a node index, {@code 0 <= node < nodes()}
     * @param delta how far the clock jumps; positive
     */
    void jumpForward(int node, Duration delta);

    /**
     * @return why a clock jump cannot move this backend's lease expiries, if it cannot (see
     *         {@link #impossible(String)}); empty by default
     */
    default Optional<String> impossibleBecause() {
        return Optional.empty();
    }

    /**
     * The hook from its two parts.
     *
     * @param nodes how many nodes keep the lock's state ({@link #nodes()})
     * @param jump  makes a node's clock jump ({@link #jumpForward(int, Duration)})
     * @return the hook
     * @throws NullPointerException     if {@code jump} is null
     * @throws IllegalArgumentException if {@code nodes} is not positive
     */
    static ClockJump of(int nodes, BiConsumer<Integer, Duration> jump) {
        Objects.requireNonNull(jump, "jump");
        if (nodes < 1) {
            throw new IllegalArgumentException("nodes must be positive: " + nodes);
        }
        return new ClockJump() {
            @Override
            public int nodes() {
                return nodes;
            }

            @Override
            public void jumpForward(int node, Duration delta) {
                jump.accept(node, delta);
            }
        };
    }

    /**
     * The hook of a backend whose servers expire leases by a monotonic clock (a ZooKeeper session
     * tracker, etcd's lessor): a wall-clock jump moves none of its expiries, so rule 4.4 does not
     * apply, and its row and the verdict say why. Only for a server whose design rules the fault
     * out, never for one on which it is merely hard to stage.
     *
     * @param reason why, in the terms of the backend's time model
     * @return a hook that jumps nothing
     */
    static ClockJump impossible(String reason) {
        Objects.requireNonNull(reason, "reason");
        return new ClockJump() {
            @Override
            public int nodes() {
                return 1;
            }

            @Override
            public void jumpForward(int node, Duration delta) {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public Optional<String> impossibleBecause() {
                return Optional.of(reason);
            }
        };
    }
}
