package io.distlock.tck.memory;

import io.distlock.Lease;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.List;

/** One client's connection to a {@link MemoryServer}. */
final class MemoryDriver implements LockDriver {

    private static final String CONSTANT_OWNER = "owner";

    private final MemoryServer server;
    private final Bug bug;
    private final boolean fencing;
    private final DriverContext context;
    private final boolean sessionStore;

    MemoryDriver(MemoryServer server, Bug bug, boolean fencing, DriverContext context, boolean sessionStore) {
        this.server = server;
        this.context = context;
        this.bug = bug;
        this.fencing = fencing;
        this.sessionStore = sessionStore;
        server.connected(context);
    }

    private String owner(LockRequest request) {
        return bug == Bug.CONSTANT_OWNER_TOKEN ? CONSTANT_OWNER : request.ownerToken();
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        MemoryServer.Answer answer = server.tryAcquire(request.name(), owner(request), request.leaseTime());
        if (answer.granted()) {
            Grant grant = new Grant(request, MemoryServer.token(fencing, answer.fence()), null);
            server.onRevoke(owner(request), () -> context.leaseLost(grant, Lease.LossReason.BACKEND_LOST));
            return Attempt.granted(grant);
        }
        return Attempt.busy(answer.holderRemaining());
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        return ExtendOutcome.of(server.extend(grant.name(), owner(grant.request()), leaseTime));
    }

    /** One "round trip" for the whole batch, as a pipelining driver would send it. */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        server.renewalBatches.incrementAndGet();
        server.renewedLeases.addAndGet(renewals.size());
        return LockDriver.super.extendAll(renewals);
    }

    @Override
    public boolean release(Grant grant) {
        server.forget(owner(grant.request()));
        return server.release(grant.name(), owner(grant.request()));
    }

    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        if (bug != Bug.LEAKED_ABANDON) {
            server.abandon(request.name(), owner(request));
        }
    }

    @Override
    public Watch watch(String name, Runnable onChange) {
        return server.watch(name, onChange);
    }

    @Override
    public boolean serverExpiresLeases() {
        return !sessionStore;
    }

    /** A session store's server keeps a grant until told: the engine tells at the end of the lease. */
    @Override
    public void leaseExpired(Grant grant) {
        server.forget(owner(grant.request()));
        server.release(grant.name(), owner(grant.request()));
    }

    @Override
    public void close() {
        server.disconnected(context);
    }
}
