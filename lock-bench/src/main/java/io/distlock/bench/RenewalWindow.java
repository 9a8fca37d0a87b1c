package io.distlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One measuring window of a scale row: three renewal periods of a client that holds many
 * auto-renewed leases, with the server's counters read at both ends and the renewal ticks that ran
 * wholly inside it.
 *
 * <p>The engine may run two renewal ticks at once (two I/O threads), so a tick can still be running
 * while the server's counters are read; such a window would count its renewals on one side and its
 * server requests on the other. A window is kept only when no tick overlaps either reading;
 * otherwise it is measured again (up to five times). Each window opens and closes right after a
 * tick has completed, when the keeper is idle for a sixth of a lease at least.
 *
 * @param ticks     the renewal ticks that started after the first reading and ended before the second
 * @param clientCpu the client CPU nanoseconds spent between the readings (what {@code clientCpu} counts)
 * @param <S>       what the server's counters are read into
 * @param server0   the server's counters at the start
 * @param server1   the server's counters at the end
 * @param start     when the first reading ended
 * @param end       when the second reading ended
 */
record RenewalWindow<S>(List<TickLog.Tick> ticks, long clientCpu, S server0, S server1, long start, long end) {

    /**
     * @param log       the ticks of the client's backend
     * @param server    reads the server's counters
     * @param clientCpu the client CPU nanoseconds so far (a thread's, or the process's)
     * @param leaseTime the leases' lease time: the keeper renews a third into each lease, so a
     *                  window of one lease time is three renewal periods
     * @param what      the row, for messages
     * @throws IllegalStateException if no tick came in time, or every window overlapped a tick
     */
    static <S> RenewalWindow<S> measure(TickLog log, Supplier<S> server, LongSupplier clientCpu, Duration leaseTime,
                                        String what) throws InterruptedException {
        for (int tries = 0; tries < 5; tries++) {
            RenewalWindow<S> window = once(log, server, clientCpu, leaseTime, what);
            if (window != null) {
                return window;
            }
        }
        throw new IllegalStateException(what + ": every window had a renewal tick running while the server was read");
    }

    /** @return the window, or null if a renewal tick ran while the server's counters were read */
    private static <S> RenewalWindow<S> once(TickLog log, Supplier<S> server, LongSupplier clientCpu, Duration leaseTime,
                                             String what) throws InterruptedException {
        awaitTickAfter(log, log.ticks().size(), System.nanoTime(), leaseTime, what);
        long cpu0 = clientCpu.getAsLong();
        long open = System.nanoTime();
        S server0 = server.get();
        long start = System.nanoTime();
        awaitTickAfter(log, log.ticks().size(), start + leaseTime.toNanos(), leaseTime, what);
        long cpu = clientCpu.getAsLong() - cpu0;
        long close = System.nanoTime();
        S server1 = server.get();
        long end = System.nanoTime();
        // Every tick that started before the second reading ended has to be recorded to be judged.
        long deadline = end + 3 * leaseTime.toNanos();
        while (log.inFlight() > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        List<TickLog.Tick> inside = new ArrayList<>();
        for (TickLog.Tick tick : log.ticks()) {
            if (tick.overlaps(open, start) || tick.overlaps(close, end)) {
                return null;
            }
            if (tick.startNanos() - start > 0 && tick.startNanos() + tick.nanos() - close < 0) {
                inside.add(tick);
            }
        }
        return new RenewalWindow<>(inside, cpu, server0, server1, start, end);
    }

    /**
     * Waits until the tick list has grown past {@code seen} with a tick that started after
     * {@code notBefore}.
     */
    private static void awaitTickAfter(TickLog log, int seen, long notBefore, Duration leaseTime, String what)
            throws InterruptedException {
        long deadline = notBefore + 3 * leaseTime.toNanos();
        while (System.nanoTime() - deadline < 0) {
            List<TickLog.Tick> ticks = log.ticks();
            if (ticks.size() > seen && ticks.get(ticks.size() - 1).startNanos() - notBefore >= 0) {
                return;
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException(what + ": no renewal tick within " + leaseTime.multipliedBy(3));
    }
}
