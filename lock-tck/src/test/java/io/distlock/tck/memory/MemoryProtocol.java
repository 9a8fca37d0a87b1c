package io.distlock.tck.memory;

import io.distlock.spi.DriverContext;
import io.distlock.spi.Hold;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a {@link MemoryDriver} asks of its server: the memory backend's wire protocol, answered by a
 * {@link MemoryServer} of the driver's own JVM ({@link #of}) or, for a client in another JVM, by one
 * behind a {@link MemoryGateway}. Whatever a server decides (grants, fencing tokens, expiries) is
 * decided on the server's side of it.
 */
interface MemoryProtocol {

    /** See {@link MemoryServer#authorize}. */
    void authorize(String principal, String name, String endpoint);

    /** See {@link MemoryServer#tryAcquire}. */
    MemoryServer.Answer tryAcquire(String name, String owner, Duration leaseTime, String description, Hold hold);

    /** {@link Bug#NON_ATOMIC_PERMITS}' count of the permits held; served only in the server's own JVM. */
    default int permitsHeld(String key) {
        throw new UnsupportedOperationException("served in the server's own JVM only");
    }

    /** {@link Bug#NON_ATOMIC_PERMITS}' blind write of a permit; served only in the server's own JVM. */
    default MemoryServer.Answer grantPermit(String key, String owner, Duration leaseTime, String description, Hold hold) {
        throw new UnsupportedOperationException("served in the server's own JVM only");
    }

    /** See {@link MemoryServer#extend}. */
    boolean extend(String name, String owner, Duration leaseTime);

    /** See {@link MemoryServer#release}. */
    boolean release(String name, String owner);

    /** See {@link MemoryServer#holds}. */
    boolean holds(String name, String owner);

    /** See {@link MemoryServer#abandon(String, String, boolean)}. */
    void abandon(String name, String owner, boolean outcomeUnknown);

    /** See {@link MemoryServer#watch}. */
    Watch watch(String name, Runnable onChange);

    /** See {@link MemoryServer#onRevoke}. */
    void onRevoke(String owner, Consumer<String> listener);

    /** See {@link MemoryServer#inspect}. */
    MemoryServer.Holder inspect(String name);

    /** See {@link MemoryServer#holders}. */
    List<MemoryServer.Holder> holders(String prefix, int limit);

    /** See {@link MemoryServer#revoke(String, String)}. */
    MemoryServer.Holder revoke(String name, String reason);

    /** See {@link MemoryServer#holdsOf}. */
    List<MemoryServer.Holder> holdsOf(String key);

    /** See {@link MemoryServer#revokeHold}. */
    MemoryServer.Holder revokeHold(String key, long fence, String reason);

    /** See {@link MemoryServer#revocation}. */
    String revocation(String owner);

    /** See {@link MemoryServer#forget}. */
    void forget(String owner);

    /** See {@link MemoryServer#openSession(Runnable)}. */
    long openSession(Runnable onEnd);

    /** See {@link MemoryServer#onSession(String, long)}. */
    void onSession(String owner, long session);

    /** One batch of {@code leases} renewals arrived (counted by the server, for the engine's tests). */
    void renewed(int leases);

    /** See {@link MemoryServer#connected}. */
    void connected(DriverContext context);

    /** See {@link MemoryServer#disconnected}: the driver is closed. */
    void disconnected(DriverContext context);

    /**
     * @param server a server of this JVM
     * @return the protocol, answered by {@code server} in the caller's thread
     */
    static MemoryProtocol of(MemoryServer server) {
        return new MemoryProtocol() {
            @Override
            public void authorize(String principal, String name, String endpoint) {
                server.authorize(principal, name, endpoint);
            }

            @Override
            public MemoryServer.Answer tryAcquire(String name, String owner, Duration leaseTime, String description, Hold hold) {
                return server.tryAcquire(name, owner, leaseTime, description, hold);
            }

            @Override
            public int permitsHeld(String key) {
                return server.permitsHeld(key);
            }

            @Override
            public MemoryServer.Answer grantPermit(String key, String owner, Duration leaseTime, String description, Hold hold) {
                return server.grantPermit(key, owner, leaseTime, description, hold);
            }

            @Override
            public boolean extend(String name, String owner, Duration leaseTime) {
                return server.extend(name, owner, leaseTime);
            }

            @Override
            public boolean release(String name, String owner) {
                return server.release(name, owner);
            }

            @Override
            public boolean holds(String name, String owner) {
                return server.holds(name, owner);
            }

            @Override
            public void abandon(String name, String owner, boolean outcomeUnknown) {
                server.abandon(name, owner, outcomeUnknown);
            }

            @Override
            public Watch watch(String name, Runnable onChange) {
                return server.watch(name, onChange);
            }

            @Override
            public void onRevoke(String owner, Consumer<String> listener) {
                server.onRevoke(owner, listener);
            }

            @Override
            public MemoryServer.Holder inspect(String name) {
                return server.inspect(name);
            }

            @Override
            public List<MemoryServer.Holder> holders(String prefix, int limit) {
                return server.holders(prefix, limit);
            }

            @Override
            public MemoryServer.Holder revoke(String name, String reason) {
                return server.revoke(name, reason);
            }

            @Override
            public List<MemoryServer.Holder> holdsOf(String key) {
                return server.holdsOf(key);
            }

            @Override
            public MemoryServer.Holder revokeHold(String key, long fence, String reason) {
                return server.revokeHold(key, fence, reason);
            }

            @Override
            public String revocation(String owner) {
                return server.revocation(owner);
            }

            @Override
            public void forget(String owner) {
                server.forget(owner);
            }

            @Override
            public long openSession(Runnable onEnd) {
                return server.openSession(onEnd);
            }

            @Override
            public void onSession(String owner, long session) {
                server.onSession(owner, session);
            }

            @Override
            public void renewed(int leases) {
                server.renewalBatches.incrementAndGet();
                server.renewedLeases.addAndGet(leases);
            }

            @Override
            public void connected(DriverContext context) {
                server.connected(context);
            }

            @Override
            public void disconnected(DriverContext context) {
                server.disconnected(context);
            }
        };
    }
}
