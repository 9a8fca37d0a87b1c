package io.distlock.cli.check;

import io.distlock.cli.report.Report;
import io.distlock.tck.History;
import io.distlock.tck.HistoryChecker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** Draws a contention history as the report's timeline: one lane per client, times relative to the history's origin. */
final class Timelines {

    static final int MAX_GRANTS = 300;
    static final int MAX_OVERLAPS = 100;

    private Timelines() {
    }

    static Report.Timeline of(String rule, History history) {
        long origin = history.originNanos();
        List<History.Event> events = history.events();
        Map<Long, History.Event> acquired = new HashMap<>();
        Map<Long, Long> released = new HashMap<>();
        Map<Long, List<Report.Write>> writes = new HashMap<>();
        TreeSet<String> clients = new TreeSet<>(Timelines::byLabel);
        String lockName = "";
        long span = 0;
        for (History.Event e : events) {
            clients.add(e.client());
            lockName = e.lockName();
            span = Math.max(span, e.nanoTime() - origin);
            switch (e.kind()) {
                case ACQUIRED -> {
                    acquired.put(e.lease(), e);
                    span = Math.max(span, e.validUntilNanos() - origin);
                }
                case RELEASING -> released.put(e.lease(), e.nanoTime());
                case WRITE -> writes.computeIfAbsent(e.lease(), l -> new ArrayList<>())
                        .add(new Report.Write(e.nanoTime() - origin, e.accepted()));
            }
        }
        List<Report.Grant> grants = new ArrayList<>();
        for (History.Event a : acquired.values()) {
            Long release = released.get(a.lease());
            // A lease is valid until its holder released it or its promised validity ran out, whichever came first.
            long end = release == null ? a.validUntilNanos() : Math.min(release, a.validUntilNanos());
            grants.add(new Report.Grant(a.lease(), a.client(), a.nanoTime() - origin, end - origin, a.validUntilNanos() - origin,
                    a.fencingToken().isPresent() ? a.fencingToken().getAsLong() : null, release == null,
                    writes.getOrDefault(a.lease(), List.of())));
        }
        grants.sort((x, y) -> Long.compare(x.fromNanos(), y.fromNanos()));
        int recorded = grants.size();
        // A broken backend can grant a hundred thousand leases in a few seconds: draw the run up to its first
        // MAX_GRANTS grants, which is where a double grant shows first and what a page can hold.
        long windowEnd = recorded > MAX_GRANTS ? grants.get(MAX_GRANTS).fromNanos() : Long.MAX_VALUE;
        if (recorded > MAX_GRANTS) {
            grants = new ArrayList<>(grants.subList(0, MAX_GRANTS));
            span = windowEnd;
        }
        List<Report.Wait> waits = new ArrayList<>();
        for (History.Wait w : history.waits()) {
            clients.add(w.client());
            if (w.fromNanos() - origin >= windowEnd) {
                continue;
            }
            waits.add(new Report.Wait(w.client(), w.fromNanos() - origin, w.toNanos() - origin, w.granted()));
            span = Math.max(span, Math.min(windowEnd, w.toNanos() - origin));
        }
        Map<Long, Report.Grant> byLease = new HashMap<>();
        grants.forEach(g -> byLease.put(g.lease(), g));
        List<Report.Overlap> overlaps = new ArrayList<>();
        List<HistoryChecker.Violation> violations = HistoryChecker.overlappingLeases(history);
        for (HistoryChecker.Violation v : violations) {
            Report.Grant first = byLease.get(v.events().get(0).lease());
            Report.Grant second = byLease.get(v.events().get(1).lease());
            if (first == null || second == null || overlaps.size() == MAX_OVERLAPS) {
                continue; // beyond the window drawn
            }
            overlaps.add(new Report.Overlap(first.lease(), second.lease(), Math.max(first.fromNanos(), second.fromNanos()),
                    Math.min(first.toNanos(), second.toNanos()), v.message()));
        }
        return new Report.Timeline(rule, lockName, span, List.copyOf(clients), grants, waits, overlaps, recorded,
                violations.size());
    }

    /** client-2 before client-10; anything else (a child process's label) after, by name. */
    private static int byLabel(String a, String b) {
        int na = number(a);
        int nb = number(b);
        return na != nb ? Integer.compare(na, nb) : a.compareTo(b);
    }

    private static int number(String label) {
        int dash = label.lastIndexOf('-');
        try {
            return dash >= 0 ? Integer.parseInt(label.substring(dash + 1)) : Integer.MAX_VALUE;
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }
}
