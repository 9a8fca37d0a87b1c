package io.distlock.rediswait.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.redis.support.LateWrites;
import io.distlock.redis.support.Revocations;
import io.distlock.redis.support.WaitConfirmedDriver;
import io.distlock.spi.DriverContext;

/**
 * Connects the Redis + {@code WAIT} lock: the family's {@link WaitConfirmedDriver} on a primary,
 * named in the URI ({@link FixedPrimary}) or found through Sentinel and followed across failovers
 * ({@link SentinelPrimary}).
 */
public final class RedisWaitDrivers {

    private RedisWaitDrivers() {
    }

    /**
     * Connects to the primary (fixed, or found through the Sentinels) and checks that it reports
     * at least {@code replicas} connected replicas.
     *
     * @param settings the parsed URI
     * @param options  the client's options
     * @param context  the engine: the owner description grants record, and where revocations go
     * @return the connected driver ({@link WaitConfirmedDriver} on the primary)
     * @throws IllegalArgumentException                 if the primary reports fewer connected replicas than
     *                                                  {@code replicas}, the named node is not a primary, or no
     *                                                  Sentinel knows the master name
     * @throws BackendUnavailableException             if the primary (or every Sentinel) cannot be reached
     *                                                  within the connect timeout
     * @throws io.distlock.LockException                if the primary refuses the credentials
     */
    public static WaitConfirmedDriver connect(RedisWaitSettings settings, LockOptions options, DriverContext context) {
        // A write given up after the operation timeout plus WAIT's may still be on its way that long.
        LateWrites lateWrites = new LateWrites(options.operationTimeout().plus(settings.waitTimeout()));
        Revocations revocations = new Revocations(context);
        Primary primary;
        try {
            primary = settings.viaSentinel()
                    ? SentinelPrimary.connect(settings, options, lateWrites, revocations)
                    : FixedPrimary.connect(settings, options, lateWrites, revocations);
        } catch (RuntimeException e) {
            revocations.close();
            throw e;
        }
        try {
            Primary.Target target = primary.current();
            int connected = target.check().connectedReplicas();
            if (connected < settings.replicas()) {
                throw new IllegalArgumentException("redis-wait URI '" + settings + "' asks for replicas=" + settings.replicas()
                        + ", but the primary at " + target + " reports " + Math.max(0, connected) + " connected replica(s)"
                        + " (INFO replication, connected_slaves): no grant could be confirmed. Lower replicas, or connect"
                        + " once the replicas are up");
            }
            return new WaitConfirmedDriver(primary, lateWrites, revocations, settings.replicas(), settings.waitTimeout(),
                    options.operationTimeout());
        } catch (RuntimeException e) {
            primary.close();
            revocations.close();
            throw e;
        }
    }

}
