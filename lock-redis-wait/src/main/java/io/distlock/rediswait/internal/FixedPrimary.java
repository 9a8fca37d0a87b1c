package io.distlock.rediswait.internal;

import io.distlock.LockOptions;
import io.distlock.redis.support.LateWrites;
import io.distlock.redis.support.Revocations;
import io.distlock.redis.support.RedisLockDriver;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.WaitConfirmedDriver;
import io.distlock.spi.Watch;

/**
 * The primary named in the URI, used for the client's lifetime. If it fails over, this client
 * does not follow (its calls get no answer, or {@code READONLY}, until it is a primary again): use
 * the Sentinel form for that.
 */
final class FixedPrimary implements Primary {

    private final Target target;

    private FixedPrimary(Target target) {
        this.target = target;
    }

    /**
     * Connects ({@code PING}) and checks that the node is a primary.
     *
     * @throws io.distlock.BackendUnavailableException if it cannot be reached within the connect timeout
     * @throws IllegalArgumentException                if it is a replica or a Sentinel
     */
    static FixedPrimary connect(RedisWaitSettings settings, LockOptions options, LateWrites lateWrites, Revocations revocations) {
        RedisNode node = RedisNode.connect(settings.dataNode(), options.connectTimeout(), options.operationTimeout(),
                settings.poolSize());
        try {
            PrimaryCheck check = PrimaryCheck.ask(node, System.nanoTime() + options.operationTimeout().toNanos());
            if ("sentinel".equals(check.role())) {
                throw new IllegalArgumentException("redis-wait URI '" + settings + "' names " + node.endpoint()
                        + ", which is a Sentinel: add ?master=<name> to find the primary through it");
            }
            if (!check.isPrimary()) {
                throw new IllegalArgumentException("redis-wait URI '" + settings + "' names " + node.endpoint()
                        + ", which answers ROLE " + check.role() + ": a lock is taken on the primary (name it, or find"
                        + " it through Sentinel with ?master=<name>)");
            }
            return new FixedPrimary(new Target(node, new RedisLockDriver(node, lateWrites, revocations), check));
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    @Override
    public Target current() {
        return target;
    }

    @Override
    public void suspect(WaitConfirmedDriver.Target failed) {
        // Nowhere else to go.
    }

    @Override
    public Watch watch(String channel, Runnable onChange) {
        return target.node().subscribe(channel, onChange);
    }

    @Override
    public void close() {
        target.locks().close();
    }

    @Override
    public String toString() {
        return "FixedPrimary[" + target + "]";
    }
}
