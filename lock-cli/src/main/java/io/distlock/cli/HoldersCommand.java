package io.distlock.cli;

import io.distlock.LockClient;
import io.distlock.LockInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code distlock holders URI}: who holds which lock under a prefix. */
@Command(name = "holders", description = "List who holds the locks whose names start with a prefix.")
final class HoldersCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    Target target;

    @Option(names = "--prefix", paramLabel = "P", defaultValue = "", description = "Only names starting with P (default: every name).")
    String prefix;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "At most N locks, 1 to 10000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Mixin
    Watch watch;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = target.connect()) {
            return watch.repeat(out, () -> {
                List<LockInfo> held = client.holders(prefix, limit);
                if (watch.json) {
                    out.println(Json.GSON.toJson(held.stream().map(Json::of).toList()));
                    out.flush();
                } else {
                    Instant now = Instant.now();
                    out.println(target.shown() + (prefix.isEmpty() ? "" : ", names starting with '" + prefix + "'")
                            + ": " + held.size() + (held.size() == limit ? " (the limit; raise --limit)" : "") + " held");
                    if (!held.isEmpty()) {
                        Console.table(out, Holdings.HEADER, held.stream().map(h -> Holdings.row(h, now)).toList());
                    }
                }
                return ExitCodes.OK;
            });
        }
    }

    /** The options to print JSON and to refresh, shared by holders and inspect. */
    static final class Watch {
        @Option(names = "--json", description = "Print JSON for scripts.")
        boolean json;

        @Option(names = "--watch", description = "Refresh until Ctrl-C (in place on a terminal).")
        boolean watch;

        @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "2s", converter = Durations.class,
                description = "How often --watch refreshes (default: ${DEFAULT-VALUE}).")
        Duration interval;

        /** One look, or with --watch one every interval until interrupted; the code of the last look. */
        int repeat(PrintWriter out, Look look) throws InterruptedException {
            boolean inPlace = watch && !json && Console.interactive();
            while (true) {
                if (inPlace) {
                    Console.clear(out);
                }
                int code = look.once();
                if (!watch) {
                    return code;
                }
                if (!inPlace) {
                    out.println();
                    out.flush();
                }
                Thread.sleep(interval.toMillis()); // the refresh period the user asked for
            }
        }
    }

    /** One look at the backend. */
    @FunctionalInterface
    interface Look {
        int once();
    }
}
