package io.distlock.cli;

import io.distlock.LockClient;
import io.distlock.LockInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code distlock inspect URI NAME}: who holds one lock, since when, its token, what remains, who waits;
 * with {@code --semaphore} or {@code --read-write}, every permit, reader or writer of that name's
 * semaphore or read-write lock, each with the hold id {@code revoke --hold} takes.
 */
@Command(name = "inspect", description = "Show who holds one lock: owner, fencing token, since when, remaining, waiters;"
        + " with --semaphore or --read-write, every permit, reader or writer held, each with its hold id."
        + " Exits 3 if nobody holds it.")
final class InspectCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    Target target;

    @Parameters(index = "1", paramLabel = "NAME", description = "The lock's name.")
    String name;

    @Mixin
    HoldersCommand.Watch watch;

    @Mixin
    Primitive primitive;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = target.connect()) {
            return watch.repeat(out, () -> {
                if (primitive.holds()) {
                    return showHolds(out, client);
                }
                Optional<LockInfo> held = client.inspect(name);
                if (watch.json) {
                    out.println(held.map(h -> Json.GSON.toJson(Json.of(h))).orElse("null"));
                    out.flush();
                } else if (held.isEmpty()) {
                    out.println("'" + name + "' on " + target.shown() + ": not held");
                    out.flush();
                } else {
                    Console.table(out, Holdings.HEADER, List.of(Holdings.row(held.get(), Instant.now())));
                    out.println("detail: " + held.get().detail());
                    out.flush();
                }
                return held.isPresent() ? ExitCodes.OK : ExitCodes.NOT_HELD;
            });
        }
    }

    private int showHolds(PrintWriter out, LockClient client) {
        List<LockInfo> holds = primitive.holders(client, name);
        if (watch.json) {
            out.println(Json.GSON.toJson(holds.stream().map(Json::of).toList()));
        } else if (holds.isEmpty()) {
            out.println(primitive.describe(name) + " on " + target.shown() + ": not held");
        } else {
            out.println(primitive.describe(name) + " on " + target.shown() + ": " + holds.size() + " held");
            Instant now = Instant.now();
            Console.table(out, Holdings.HOLD_HEADER, holds.stream().map(h -> Holdings.holdRow(h, now)).toList());
            out.println("detail: " + holds.get(0).detail());
        }
        out.flush();
        return holds.isEmpty() ? ExitCodes.NOT_HELD : ExitCodes.OK;
    }
}
