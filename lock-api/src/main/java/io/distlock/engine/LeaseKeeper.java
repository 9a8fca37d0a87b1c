package io.distlock.engine;

import io.distlock.Lease;
import io.distlock.spi.Renewal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Watches every lease of one client on the client's single scheduler thread: one queue of
 * deadlines and one pending wake-up, never a thread or timer per lease. At each deadline it either
 * declares the lease lost (its validity passed) or renews it (auto-renewal, a third into the lease).
 *
 * <p>Renewals are batched: when some lease is due, every auto-renewing lease at least a sixth into
 * its lease joins the same {@link io.distlock.spi.LockDriver#extendAll} call, so leases drift into
 * a few shared batches instead of one round trip each.
 */
final class LeaseKeeper {

    private record Entry(long at, EngineLease lease, long generation) { }

    private final EngineClient client;
    private final ScheduledExecutorService scheduler;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> Long.signum(a.at - b.at));
    private ScheduledFuture<?> wake;
    private long wakeAt;

    LeaseKeeper(EngineClient client, ScheduledExecutorService scheduler) {
        this.client = client;
        this.scheduler = scheduler;
    }

    /** (Re)computes when to look at {@code lease} next; older entries for it become stale. */
    void schedule(EngineLease lease) {
        if (!lease.isHeld()) {
            return;
        }
        long at = lease.nextCheck();
        long generation = lease.newKeeperGeneration();
        synchronized (this) {
            queue.add(new Entry(at, lease, generation));
            if (wake == null || at - wakeAt < 0) {
                wakeUpAt(at);
            }
        }
    }

    private void wakeUpAt(long at) {
        if (wake != null) {
            wake.cancel(false);
        }
        wakeAt = at;
        try {
            wake = scheduler.schedule(this::tick, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            wake = null;
        }
    }

    private void tick() {
        try {
            check();
        } catch (RuntimeException | Error e) {
            EngineClient.LOG.log(System.Logger.Level.ERROR, "lease keeper failed; rescheduling", e);
        } finally {
            synchronized (this) {
                wake = null;
                if (!queue.isEmpty() && !client.closed()) {
                    wakeUpAt(queue.peek().at);
                }
            }
        }
    }

    private void check() {
        long now = System.nanoTime();
        List<EngineLease> due = new ArrayList<>();
        synchronized (this) {
            while (!queue.isEmpty() && queue.peek().at - now <= 0) {
                Entry entry = queue.poll();
                if (entry.generation == entry.lease.keeperGeneration() && entry.lease.isHeld()) {
                    due.add(entry.lease);
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
            for (Entry entry : queue) {
                if (entry.generation == entry.lease.keeperGeneration() && entry.lease.isHeld()
                        && entry.lease.renewalEligible(now)) {
                    renew.add(entry.lease);
                }
            }
        }
        renewAll(new ArrayList<>(renew));
    }

    private void renewAll(List<EngineLease> leases) {
        List<Renewal> renewals = new ArrayList<>(leases.size());
        for (EngineLease lease : leases) {
            renewals.add(new Renewal(lease.grant(), lease.leaseTime()));
        }
        long start = System.nanoTime();
        List<Boolean> results;
        try {
            results = client.extendAll(renewals);
        } catch (RuntimeException e) {
            // The backend may only be slow or briefly away: keep trying until the validity ends,
            // at which point the lease is declared lost (EXPIRED) by the same queue.
            EngineClient.LOG.log(System.Logger.Level.WARNING, "renewing {0} leases failed; retrying: {1}",
                    leases.size(), e.toString());
            long now = System.nanoTime();
            for (EngineLease lease : leases) {
                long retry = Math.max(client.options().minRetryBackoff().toNanos(), lease.leaseTime().toNanos() / 10);
                lease.retryRenewalAt(now + retry);
                schedule(lease);
            }
            return;
        }
        for (int i = 0; i < leases.size(); i++) {
            EngineLease lease = leases.get(i);
            if (!results.get(i)) {
                lease.markLost(Lease.LossReason.REVOKED);
            } else if (lease.renewed(start, renewals.get(i).leaseTime())) {
                schedule(lease);
            } else {
                // Released or declared lost while the renewal was in flight: do not keep it alive.
                client.releaseQuietly(lease.grant());
            }
        }
    }
}
