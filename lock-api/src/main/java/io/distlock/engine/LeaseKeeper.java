package io.distlock.engine;

import io.distlock.Lease;
import io.distlock.LockEvent;
import io.distlock.spi.Backoff;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Renewal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;

/**
 * Watches every lease of one client from the client's single keeper thread: one queue of
 * deadlines and one pending wake-up, never a thread or timer per lease. At each deadline it either
 * declares the lease lost (its validity passed) or sends it for renewal (auto-renewal, a third
 * into the lease). The keeper only decides: the renewal itself runs on the client's I/O executor,
 * so a slow server delays that batch and nothing else — other leases still expire and are
 * declared lost on time.
 *
 * <p>Renewals are batched: when some lease is due, every auto-renewing lease at least a sixth into
 * its lease joins the same {@link io.distlock.spi.LockDriver#extendAll} call, so leases drift into
 * a few shared batches instead of one round trip each; leases due while a batch still waits for an
 * I/O thread join that batch. A lease whose extension is already in flight (the caller's
 * {@code extend}, or an earlier batch) is left out; whoever holds its extension permit reschedules
 * it.
 *
 * <p>Outcomes: extended — validity is recomputed from the batch's send time; lost — the lease is
 * lost ({@link Lease.LossReason#NOT_HELD}); unknown — retried soon (a tenth of the lease later),
 * and the lease is declared lost only when its validity passes ({@link Lease.LossReason#EXPIRED}).
 */
final class LeaseKeeper {

    private final ClientState state;
    private final Events events;
    private final DriverCalls calls;
    /**
     * The leases in the keeper's care, a binary heap on {@link EngineLease#keeperAt} (the soonest
     * first), each lease knowing its place ({@link EngineLease#keeperIndex}): a lease whose next look
     * moves is moved, not queued again, so the heap holds each lease once and nothing else — no
     * entry object per look, no stale entries waiting for their time (two or three per auto-renewed
     * lease of a session store, when they were queued).
     */
    private EngineLease[] heap = new EngineLease[16];
    private int size;
    private EngineRuntime.Cancellable wake;
    private long wakeAt;
    /**
     * The renewal batch handed to the I/O executor and not started yet: leases that come due
     * meanwhile join it rather than queue a batch of their own. While every I/O thread waits on the
     * server, one small batch per due lease would queue up, each paying its own round trips, and
     * renewals would fall further behind the more leases there are (1,000 auto-renewed map-lock
     * leases with 20 ms round trips, two per extension, were lost that way); merged, a slow server
     * costs a few large batches.
     */
    private List<EngineLease> queued;

    LeaseKeeper(ClientState state, Events events, DriverCalls calls) {
        this.state = state;
        this.events = events;
        this.calls = calls;
    }

    /** (Re)computes when to look at {@code lease} next, from its state now. */
    void schedule(EngineLease lease) {
        if (!lease.isHeld()) {
            return;
        }
        synchronized (this) {
            // Read under the keeper's monitor: of two racing calls, the later one places the lease by
            // the state it read, which is the newer (a lease's own monitor is never held while it
            // calls the keeper).
            long at = lease.nextCheck();
            place(lease, at);
            if (wake == null || at - wakeAt < 0) {
                wakeUpAt(at);
            }
        }
    }

    /**
     * A lease left the keeper's care (released, lost): out of the heap. The pending wake-up stays
     * where it is, even when it was this lease's: it then finds nothing due and sleeps until the next
     * lease's time ({@link #tick}). Cancelling or moving it would cost more than that one early
     * wake-up: a client taking and releasing one lease after another (a session store watches each)
     * would have every acquire's {@link #schedule} put a wake-up at the head of the keeper's
     * executor, which wakes the keeper's thread — a context switch per acquire, on machines where the
     * caller, the driver's I/O threads and the server share a few cores. Kept, the wake-up fires once
     * per lease time, however many leases came and went.
     */
    void forget(EngineLease lease) {
        synchronized (this) {
            if (lease.keeperIndex >= 0) {
                remove(lease);
            }
        }
    }

    // ---- the heap (under this keeper's monitor) --------------------------------------------

    /** Puts {@code lease} in the heap at {@code at}, or moves it there. */
    private void place(EngineLease lease, long at) {
        int i = lease.keeperIndex;
        if (i < 0) {
            if (size == heap.length) {
                heap = java.util.Arrays.copyOf(heap, size * 2);
            }
            lease.keeperAt = at;
            lease.keeperIndex = size;
            heap[size++] = lease;
            siftUp(size - 1);
            return;
        }
        long old = lease.keeperAt;
        lease.keeperAt = at;
        if (at - old < 0) {
            siftUp(i);
        } else {
            siftDown(i);
        }
    }

    private EngineLease pollFirst() {
        EngineLease first = heap[0];
        remove(first);
        return first;
    }

    private void remove(EngineLease lease) {
        int i = lease.keeperIndex;
        lease.keeperIndex = -1;
        EngineLease last = heap[--size];
        heap[size] = null;
        if (last != lease) {
            heap[i] = last;
            last.keeperIndex = i;
            siftDown(i);
            if (heap[i] == last) {
                siftUp(i);
            }
        }
        if (heap.length > 64 && size < heap.length / 4) {
            heap = java.util.Arrays.copyOf(heap, heap.length / 2); // a client that held many leases once gives the room back
        }
    }

    private void siftUp(int i) {
        EngineLease lease = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            EngineLease above = heap[parent];
            if (lease.keeperAt - above.keeperAt >= 0) {
                break;
            }
            heap[i] = above;
            above.keeperIndex = i;
            i = parent;
        }
        heap[i] = lease;
        lease.keeperIndex = i;
    }

    private void siftDown(int i) {
        EngineLease lease = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && heap[right].keeperAt - heap[child].keeperAt < 0) {
                child = right;
            }
            if (lease.keeperAt - heap[child].keeperAt <= 0) {
                break;
            }
            heap[i] = heap[child];
            heap[i].keeperIndex = i;
            i = child;
        }
        heap[i] = lease;
        lease.keeperIndex = i;
    }

    private void wakeUpAt(long at) {
        if (wake != null) {
            wake.cancel();
        }
        wakeAt = at;
        wake = state.runtime().schedule(this::tick, at - state.nanoTime());
    }

    private void tick() {
        try {
            check();
        } catch (RuntimeException | Error e) {
            EngineClient.LOG.log(System.Logger.Level.ERROR, "lease keeper failed; rescheduling", e);
        } finally {
            synchronized (this) {
                wake = null;
                if (size > 0 && !state.closed()) {
                    wakeUpAt(heap[0].keeperAt);
                }
            }
        }
    }

    private void check() {
        long now = state.nanoTime();
        List<EngineLease> due = new ArrayList<>();
        synchronized (this) {
            while (size > 0 && heap[0].keeperAt - now <= 0) {
                EngineLease lease = pollFirst();
                if (lease.isHeld()) {
                    due.add(lease);
                }
            }
        }
        Set<EngineLease> renew = Collections.newSetFromMap(new IdentityHashMap<>());
        for (EngineLease lease : due) {
            if (lease.expired(now)) {
                lease.markLost(Lease.LossReason.EXPIRED);
            } else if (lease.renewalDue(now)) {
                renew.add(lease);
            } else {
                schedule(lease);
            }
        }
        if (renew.isEmpty()) {
            return;
        }
        synchronized (this) {
            for (int i = 0; i < size; i++) {
                EngineLease lease = heap[i];
                if (lease.isHeld() && lease.renewalEligible(now)) {
                    renew.add(lease);
                }
            }
        }
        List<EngineLease> batch = new ArrayList<>(renew.size());
        for (EngineLease lease : renew) {
            if (lease.tryBeginRenewal()) {
                batch.add(lease);
            }
            // else: an extension of it is in flight; its end reschedules it
        }
        if (batch.isEmpty()) {
            return;
        }
        synchronized (this) {
            if (queued != null) {
                queued.addAll(batch); // a batch waits for an I/O thread: these go with it
                return;
            }
            queued = batch;
        }
        try {
            state.runtime().io().execute(this::renewQueued);
        } catch (RejectedExecutionException closing) {
            List<EngineLease> dropped;
            synchronized (this) {
                dropped = queued;
                queued = null;
            }
            if (dropped != null) {
                dropped.forEach(EngineLease::endRenewal);
            }
        }
    }

    /** On the I/O executor: takes the batch that was waiting for a thread, with the leases that joined it, and renews it. */
    private void renewQueued() {
        List<EngineLease> batch;
        synchronized (this) {
            batch = queued;
            queued = null;
        }
        if (batch != null) {
            renewAll(batch);
        }
    }

    /**
     * After a renewal whose outcome is unknown: try again a tenth of the lease later (at least the
     * client's minimum retry back-off), so that a lease gets several more tries before its validity
     * ends, and a backend that is only slow is not hammered.
     */
    private Backoff renewalRetry(Duration leaseTime) {
        return Backoff.fixed(Duration.ofNanos(Math.max(state.options().minRetryBackoff().toNanos(), leaseTime.toNanos() / 10)));
    }

    /** On the I/O executor: one batched extension; each lease's permit is held until its outcome is recorded. */
    private void renewAll(List<EngineLease> leases) {
        List<Renewal> renewals = new ArrayList<>(leases.size());
        List<EngineLease> sent = new ArrayList<>(leases.size());
        long start = state.nanoTime();
        for (EngineLease lease : leases) {
            Renewal renewal = new Renewal(lease.grant(), lease.leaseTime());
            if (lease.beginExtension(start, renewal.leaseTime())) {
                renewals.add(renewal);
                sent.add(lease);
            } else {
                lease.endRenewal(); // released or lost meanwhile
            }
        }
        if (sent.isEmpty()) {
            return;
        }
        List<ExtendOutcome> results = calls.extendAll(renewals);
        boolean loggedUnknown = false;
        for (int i = 0; i < sent.size(); i++) {
            EngineLease lease = sent.get(i);
            ExtendOutcome outcome = results.get(i);
            try {
                if (outcome.isLost()) {
                    lease.markLost(outcome);
                } else if (outcome.isExtended()) {
                    if (lease.renewed(start, renewals.get(i).leaseTime())) { // false: released or lost meanwhile, cleaned up there
                        events.emit(LockEvent.Type.EXTENDED, lease.lockName(), renewals.get(i).leaseTime().toNanos(), null, null);
                    }
                } else {
                    events.emit(LockEvent.Type.RENEWAL_FAILED, lease.lockName(), 0, null, outcome.cause());
                    // The backend may only be slow or briefly away: keep trying until the validity
                    // ends, at which point the lease is declared lost (EXPIRED) by the same queue.
                    if (!loggedUnknown) {
                        loggedUnknown = true;
                        EngineClient.LOG.log(System.Logger.Level.WARNING, "renewing {0} lease(s) on {1} got no answer; retrying"
                                + " until their validity ends: {2}", sent.size(), state.endpoint(), outcome.cause().getMessage());
                    }
                    lease.retryRenewalAt(state.nanoTime() + renewalRetry(lease.leaseTime()).delayNanos(1));
                }
            } finally {
                lease.endRenewal();
            }
            schedule(lease);
        }
    }
}
