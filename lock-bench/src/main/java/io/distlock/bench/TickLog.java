package io.distlock.bench;

import io.distlock.spi.Attempt;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The renewal ticks of one counting backend (a {@code bench-*://} scheme): every
 * {@link LockDriver#extendAll} call the engine's keeper starts, with its size and duration, so a
 * scale row can tell ticks, leases per tick and server requests per tick apart.
 */
final class TickLog {

    /** One {@code extendAll} call: when it started, how many leases, how long it took. */
    record Tick(long startNanos, int leases, long nanos) {
        /** @return whether this call ran at some time in [{@code from}, {@code to}] */
        boolean overlaps(long from, long to) {
            return startNanos - to <= 0 && startNanos + nanos - from >= 0;
        }
    }

    private final List<Tick> ticks = new ArrayList<>();

    /** {@code extendAll} calls started and not yet recorded (the engine may run two at once). */
    private final AtomicInteger inFlight = new AtomicInteger();

    /** @return the renewal ticks seen so far, oldest first */
    synchronized List<Tick> ticks() {
        return List.copyOf(ticks);
    }

    /** @return how many {@code extendAll} calls are running now */
    int inFlight() {
        return inFlight.get();
    }

    private synchronized void record(Tick tick) {
        ticks.add(tick);
    }

    /**
     * @return {@code driver} unchanged in every call (defaults included: each goes to the
     *         driver's own), with its {@code extendAll} calls recorded here
     */
    LockDriver counting(LockDriver driver) {
        return new Counting(driver, this);
    }

    /** Delegates every method of {@link LockDriver}, so the backend behaves exactly as without the count. */
    private record Counting(LockDriver driver, TickLog log) implements LockDriver {
        @Override
        public Attempt tryAcquire(LockRequest request) {
            return driver.tryAcquire(request);
        }

        @Override
        public ExtendOutcome extend(Grant grant, Duration leaseTime) {
            return driver.extend(grant, leaseTime);
        }

        @Override
        public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
            log.inFlight.incrementAndGet();
            long start = System.nanoTime();
            try {
                return driver.extendAll(renewals);
            } finally {
                log.record(new Tick(start, renewals.size(), System.nanoTime() - start));
                log.inFlight.decrementAndGet();
            }
        }

        @Override
        public boolean release(Grant grant) {
            return driver.release(grant);
        }

        @Override
        public List<Grant> releaseAll(List<Grant> grants) {
            return driver.releaseAll(grants);
        }

        @Override
        public void abandon(LockRequest request, boolean outcomeUnknown) {
            driver.abandon(request, outcomeUnknown);
        }

        @Override
        public boolean lateWritesPossible() {
            return driver.lateWritesPossible();
        }

        @Override
        public Watch watch(String name, Runnable onChange) {
            return driver.watch(name, onChange);
        }

        @Override
        public Watch watch(LockRequest request, Runnable onChange) {
            return driver.watch(request, onChange); // a read, write or permit waiter's own watch
        }

        @Override
        public boolean reliableNotifications() {
            return driver.reliableNotifications();
        }

        @Override
        public boolean serverExpiresLeases() {
            return driver.serverExpiresLeases();
        }

        @Override
        public void leaseExpired(Grant grant) {
            driver.leaseExpired(grant);
        }

        @Override
        public void close() {
            driver.close();
        }
    }
}
