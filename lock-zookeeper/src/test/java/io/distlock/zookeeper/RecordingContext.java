package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Grant;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's side of a driver, for tests that drive a {@link io.distlock.zookeeper.internal.ZkLockDriver}
 * directly (the SPI contract, without the engine's policy on top): records what the driver reports.
 */
final class RecordingContext implements DriverContext {

    final List<Grant> lost = new CopyOnWriteArrayList<>();
    final AtomicInteger suspended = new AtomicInteger();
    final AtomicInteger restored = new AtomicInteger();
    final AtomicInteger sessionReports = new AtomicInteger();
    final AtomicLong latestSessionReport = new AtomicLong();
    volatile Duration sessionTimeout;
    final List<Object> confirmedSessions = new CopyOnWriteArrayList<>();
    final List<Object> endedSessions = new CopyOnWriteArrayList<>();
    /** Every revocation reported: owner token and reason. */
    final List<List<String>> revocations = new CopyOnWriteArrayList<>();
    private final String owner;

    RecordingContext() {
        this("unknown");
    }

    /** @param owner the owner description the driver stores with its grants */
    RecordingContext(String owner) {
        this.owner = owner;
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public void leaseRevoked(String ownerToken, String reason) {
        revocations.add(List.of(ownerToken, reason));
    }

    @Override
    public void leaseLost(Grant grant, Lease.LossReason reason) {
        lost.add(grant);
    }

    @Override
    public void connectionSuspended() {
        suspended.incrementAndGet();
    }

    @Override
    public void connectionRestored() {
        restored.incrementAndGet();
    }

    @Override
    public void sessionConfirmed(Object session, long sentAtNanos, Duration sessionTimeout) {
        sessionReports.incrementAndGet();
        confirmedSessions.add(session);
        latestSessionReport.accumulateAndGet(sentAtNanos, (a, b) -> a == 0 || b - a > 0 ? b : a);
        this.sessionTimeout = sessionTimeout;
    }

    @Override
    public void sessionEnded(Object session) {
        endedSessions.add(session);
    }
}
