package io.distlock.cli.bench;

import io.distlock.BackendDescriptor;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.cli.report.Report;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * {@code distlock bench}'s engine: measures a live backend with the library's own API, and the raw
 * floor beside it where there is one, then hands back the rows as a {@link Report}.
 *
 * <p><b>Scenarios.</b> (1) <em>uncontended</em>: one client, {@code tryAcquire(lease)} then
 * {@code release()}, back to back; the pair's latency and the acquire's alone. (2) <em>raw floor</em>,
 * for a single Redis-protocol server ({@link FloorPlan}): the same, with {@code SET NX PX} and a
 * compare-and-delete script on one plain Jedis connection. (3) <em>contended</em>: N clients (N
 * connections) loop on one lock with {@code tryAcquire(lease, maxWait)} and an empty hold.
 *
 * <p><b>Time.</b> The requested duration is the measuring time, split equally between the scenarios
 * (a third each with a floor, a half each without). Each first warms up, unrecorded, for half its
 * share (0.3 s to 3 s), on top. Uncontended and the floor run <em>interleaved</em>: slices of at most
 * 250 ms in turn, the order swapped every round, so that what else the machine does (a build, a GC)
 * falls on both alike and their ratio — the figure the floor exists for — stays stable.
 *
 * <p><b>Cleanliness.</b> Every name lies under {@code distlock-bench/<8 hex>/}, every lease is
 * {@link #LEASE} long. {@link #abort} (a Ctrl-C's shutdown hook) stops the loops, closes every client
 * (which releases what it holds) and deletes the floor's key; whatever a server did not confirm expires
 * with its lease.
 */
public final class Bench {

    /** Every lease's time: short, so that anything an abrupt end leaves behind expires soon. */
    public static final Duration LEASE = Duration.ofSeconds(2);
    /** The most contended clients. */
    public static final int MAX_CLIENTS = 64;
    /** How long a contended attempt waits before it counts as given up (and tries again). */
    public static final Duration MAX_WAIT = Duration.ofSeconds(10);
    static final String PREFIX = "distlock-bench/";
    private static final String UNCONTENDED = "uncontended: ";
    private static final String FLOOR = "raw floor: ";

    /**
     * What to run.
     *
     * @param target           the URI as it may be shown (no user info, no query)
     * @param duration         the measuring time, split across the scenarios
     * @param clients          how many clients contend, 1 to {@link #MAX_CLIENTS}
     * @param floor            where the raw floor runs, or why not
     * @param connectTimeout   the raw floor's connect timeout (the library's comes with the clients)
     * @param operationTimeout the raw floor's reply timeout
     */
    public record Settings(String target, Duration duration, int clients, FloorPlan floor, Duration connectTimeout,
                           Duration operationTimeout) {
        /** Checks the ranges. */
        public Settings {
            if (clients < 1 || clients > MAX_CLIENTS) {
                throw new IllegalArgumentException("clients must be between 1 and " + MAX_CLIENTS + ", was " + clients);
            }
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("duration must be positive, was " + duration);
            }
        }
    }

    /**
     * What a run measured.
     *
     * @param report         the rows, as the report shows them
     * @param failures       per scenario that did not complete, why ("contended, 4 clients: ...")
     * @param floorSkipped   why there is no floor row, or null if there is one (or it failed)
     * @param backToReleaser of the contended grants, the fraction that went to the client that had just
     *                       released; NaN if the contended row is missing
     * @param gaveUp         contended attempts that waited {@link #MAX_WAIT} in vain
     */
    public record Result(Report report, List<String> failures, String floorSkipped, double backToReleaser, long gaveUp) {
        /** Copies the list. */
        public Result {
            failures = List.copyOf(failures);
        }

        /** @return whether every scenario completed (a skipped floor is not a failure) */
        public boolean completed() {
            return failures.isEmpty();
        }
    }

    private final Settings settings;
    private final Supplier<LockClient> connect;
    private final Progress progress;
    private final String names;
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final List<LockClient> clients = new ArrayList<>();
    private volatile boolean aborted;
    private volatile boolean running;
    private Contended contended;
    private RawFloor floor;
    private boolean cleaned;

    /**
     * @param settings what to run
     * @param connect  connects one more client to the target (each call a new one, with its own connections)
     * @param progress where to say what runs
     */
    public Bench(Settings settings, Supplier<LockClient> connect, Progress progress) {
        this.settings = settings;
        this.connect = connect;
        this.progress = progress;
        this.names = PREFIX + String.format(Locale.ROOT, "%08x", ThreadLocalRandom.current().nextInt()) + "/";
    }

    /** @return the prefix of every name and key this run uses, {@code distlock-bench/<8 hex>/} */
    public String names() {
        return names;
    }

    /**
     * Runs every scenario. A scenario that fails is reported in {@link Result#failures()} and the others
     * still run; a first client that cannot connect throws, as the library does.
     *
     * @return the figures; {@code null} if {@link #abort} stopped the run (nothing is to be printed)
     * @throws RuntimeException what connecting the first client threw (unreachable, refused, bad URI)
     */
    public Result run() {
        running = true;
        Instant startedAt = Instant.now();
        long t0 = System.nanoTime();
        List<Report.BenchRow> rows = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        try {
            if (aborted) {
                return null;
            }
            LockClient first = register(connect.get());
            BackendDescriptor backend = first.backend();
            FloorPlan plan = settings.floor();
            progress.note("bench " + settings.target() + " (" + backend.scheme() + ", " + backend.guarantee()
                    + "): names under " + names + ", leases of " + LEASE.toSeconds() + " s");
            String floorSkipped = null;
            if (plan instanceof FloorPlan.None none) {
                floorSkipped = none.reason();
                progress.note(none.reason());
            } else {
                FloorPlan.At at = (FloorPlan.At) plan;
                try {
                    register(RawFloor.open(at, names + "floor", LEASE, settings.connectTimeout(),
                            settings.operationTimeout()));
                    progress.note("raw floor: " + at.commands() + " on " + at.endpoint()
                            + ", the same server, one plain Jedis connection");
                } catch (RawFloor.Refused e) {
                    floorSkipped = "no raw floor: the server refused its commands for this user (" + e.getMessage()
                            + "); distlock's own keys are all it may touch";
                    progress.note(floorSkipped);
                } catch (RuntimeException e) {
                    failures.add("raw floor: " + describe(e));
                }
            }
            boolean withFloor = floor() != null;
            Duration share = settings.duration().dividedBy(withFloor ? 3 : 2);
            Duration warmUp = clamp(share.dividedBy(2), Duration.ofMillis(300), Duration.ofSeconds(3));
            Duration slice = clamp(share.dividedBy(10), Duration.ofMillis(20), Duration.ofMillis(250));
            progress.note(String.format(Locale.ROOT, "measuring %s in all: %s each for %s; each warms up %s first,"
                            + " unrecorded%s", Progress.seconds(settings.duration()), Progress.seconds(share),
                    withFloor ? "uncontended, raw floor and contended" : "uncontended and contended",
                    Progress.seconds(warmUp), withFloor ? "; uncontended and the raw floor take turns in slices of "
                            + slice.toMillis() + " ms, so that the machine's noise falls on both alike" : ""));

            uncontended(first, share, warmUp, slice, rows, failures);
            if (aborted) {
                return null;
            }
            double back = Double.NaN;
            long gaveUp = 0;
            String label = "contended, " + settings.clients() + " client" + (settings.clients() == 1 ? "" : "s");
            try {
                String why = contended(first, label, share, warmUp);
                if (aborted) {
                    return null;
                }
                if (why == null) {
                    rows.add(contended.row(label));
                    back = contended.backToReleaser();
                    gaveUp = contended.gaveUp();
                } else {
                    failures.add(label + ": " + why);
                }
            } catch (RuntimeException e) {
                if (aborted) {
                    return null;
                }
                failures.add(label + ": " + describe(e));
            }
            progress.end();
            Report report = new Report("bench", settings.target(),
                    new Report.Backend(backend.scheme(), backend.guarantee().name(),
                            backend.features().stream().map(Enum::name).sorted().toList()),
                    startedAt.toString(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), List.of(), List.of(),
                    ordered(rows), failures.isEmpty(), false);
            return new Result(report, failures, floorSkipped, back, gaveUp);
        } catch (InterruptedException e) {
            // Nothing in the bench interrupts this thread (abort interrupts the contended clients' threads
            // only): whoever did wants the run stopped, so it ends as an aborted run does.
            Thread.currentThread().interrupt();
            aborted = true;
            return null;
        } finally {
            progress.end();
            cleanup();
            finished.countDown();
        }
    }

    private void uncontended(LockClient client, Duration share, Duration warmUp, Duration slice,
                             List<Report.BenchRow> rows, List<String> failures) {
        String lockName = names + "uncontended";
        DistributedLock lock = client.lock(lockName);
        PairLoop distlock = new PairLoop("uncontended", () -> {
            Optional<Lease> lease = lock.tryAcquire(LEASE);
            long granted = System.nanoTime();
            lease.orElseThrow(() -> new IllegalStateException(lockName + " was held by someone else")).release();
            return granted;
        });
        List<PairLoop> loops = new ArrayList<>(List.of(distlock));
        RawFloor raw = floor();
        if (raw != null) {
            loops.add(new PairLoop("raw floor", raw::acquireAndRelease));
        }
        String phase = raw != null ? "uncontended + raw floor" : "uncontended";
        progress.stage(phase, "warming up", warmUp.multipliedBy(loops.size()));
        turns(loops, warmUp, slice, false);
        if (aborted) {
            return;
        }
        progress.stage(phase, "measuring", share.multipliedBy(loops.size()));
        turns(loops, share, slice, true);
        progress.end();
        for (PairLoop loop : loops) {
            boolean isFloor = loop != distlock;
            if (loop.failure() != null) {
                failures.add(loop.name() + ": " + describe(loop.failure()));
                continue;
            }
            if (isFloor) {
                FloorPlan.At at = (FloorPlan.At) settings.floor();
                rows.addAll(loop.rows(FLOOR + "acquire + release (" + at.commands() + ")",
                        FLOOR + "acquire (" + at.acquireCommands() + ")", true));
            } else {
                rows.addAll(loop.rows(UNCONTENDED + "acquire + release", UNCONTENDED + "acquire", false));
            }
        }
    }

    /** Gives each loop {@code each} in slices, taking turns, the order swapped every round. */
    private void turns(List<PairLoop> loops, Duration each, Duration slice, boolean record) {
        long rounds = Math.max(1, each.toNanos() / slice.toNanos());
        long sliceNanos = each.toNanos() / rounds;
        for (long round = 0; round < rounds && !aborted; round++) {
            for (int i = 0; i < loops.size(); i++) {
                int index = round % 2 == 0 ? i : loops.size() - 1 - i;
                loops.get(index).runSlice(sliceNanos, record, () -> aborted);
            }
        }
    }

    private String contended(LockClient first, String label, Duration share, Duration warmUp) throws InterruptedException {
        List<LockClient> all = new ArrayList<>(List.of(first));
        if (settings.clients() > 1) {
            progress.note(label + ": connecting " + (settings.clients() - 1) + " more client"
                    + (settings.clients() > 2 ? "s" : ""));
        }
        for (int i = 1; i < settings.clients() && !aborted; i++) {
            all.add(register(connect.get()));
        }
        if (aborted) {
            return null;
        }
        long recordFrom = System.nanoTime() + warmUp.toNanos();
        long recordUntil = recordFrom + share.toNanos();
        synchronized (this) {
            contended = new Contended(names + "contended", all, LEASE, MAX_WAIT);
        }
        progress.stage(label, "warming up", warmUp);
        List<Thread> threads = contended.start(recordFrom, recordUntil, workers::add);
        if (!sleepUntil(recordFrom)) {
            return null;
        }
        progress.stage(label, "measuring", share);
        sleepUntil(recordUntil);
        progress.end();
        // A hand-off after the window is all they have left; MAX_WAIT and a lease bound a stuck one.
        return contended.join(threads, MAX_WAIT.plus(LEASE).plus(settings.operationTimeout().multipliedBy(2)));
    }

    /** @return false if the run was aborted meanwhile */
    private boolean sleepUntil(long deadline) {
        long left;
        while (!aborted && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
        }
        return !aborted;
    }

    /**
     * Stops the run, for a Ctrl-C's shutdown hook: the loops stop after their current operation, the
     * contended threads are interrupted (an interrupted acquire leaves nothing held); then, once the run
     * has wound down (or {@code grace} has passed), every client is closed — which releases what it still
     * holds — and the floor's key is deleted. Returns when that is done.
     *
     * @param grace how long to wait for the run's own wind-down before cleaning up under it
     */
    public void abort(Duration grace) {
        aborted = true;
        Contended c;
        synchronized (this) {
            c = contended;
        }
        if (c != null) {
            c.stop();
        }
        workers.forEach(Thread::interrupt);
        if (running) {
            try {
                finished.await(grace.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        cleanup();
        progress.close();
    }

    private synchronized RawFloor floor() {
        return floor;
    }

    /** @return whether {@link #abort} was called */
    public boolean aborted() {
        return aborted;
    }

    private synchronized <T extends AutoCloseable> T register(T resource) {
        if (resource instanceof LockClient client) {
            clients.add(client);
        } else if (resource instanceof RawFloor raw) {
            floor = raw;
        }
        if (cleaned) {
            // A client connected while a Ctrl-C was cleaning up: close it at once, it would be missed.
            closeQuietly(resource);
        }
        return resource;
    }

    /** Closes every client (in parallel: each may take the operation timeout) and deletes the floor's key. Idempotent. */
    private synchronized void cleanup() {
        if (cleaned) {
            return;
        }
        cleaned = true;
        List<Thread> closers = new ArrayList<>();
        for (LockClient client : clients) {
            Thread t = new Thread(() -> closeQuietly(client), "distlock-bench-close");
            t.setDaemon(true);
            t.start();
            closers.add(t);
        }
        if (floor != null) {
            floor.removeKey();
            closeQuietly(floor);
        }
        // LockClient.close returns within the operation timeout + 1 s, even with the server gone.
        long deadline = System.nanoTime() + settings.operationTimeout().plusSeconds(2).toNanos();
        for (Thread t : closers) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            // Closing is best effort here; what a server did not confirm expires with its lease.
        }
    }

    /** The floor rows right after the distlock rows they are compared with, the contended row last. */
    private static List<Report.BenchRow> ordered(List<Report.BenchRow> rows) {
        List<Report.BenchRow> sorted = new ArrayList<>();
        rows.stream().filter(r -> r.scenario().startsWith(UNCONTENDED)).forEach(sorted::add);
        rows.stream().filter(Report.BenchRow::floor).forEach(sorted::add);
        rows.stream().filter(r -> !sorted.contains(r)).forEach(sorted::add);
        return sorted;
    }

    /**
     * The floor row a distlock row is compared with: for {@code uncontended: acquire + release}, the
     * floor's {@code raw floor: acquire + release (...)}; for {@code uncontended: acquire}, the floor's
     * acquire. For the report, which shows distlock's latencies as multiples of the floor's.
     *
     * @param rows every row of a report
     * @param row  one of them
     * @return the matching floor row, if the report has one and {@code row} is a distlock uncontended row
     */
    public static Optional<Report.BenchRow> floorFor(List<Report.BenchRow> rows, Report.BenchRow row) {
        if (row.floor() || !row.scenario().startsWith(UNCONTENDED)) {
            return Optional.empty();
        }
        String kind = row.scenario().substring(UNCONTENDED.length());
        return rows.stream().filter(r -> r.floor() && r.scenario().startsWith(FLOOR + kind + " (")).findFirst();
    }

    private static Duration clamp(Duration d, Duration min, Duration max) {
        return d.compareTo(min) < 0 ? min : d.compareTo(max) > 0 ? max : d;
    }

    static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
