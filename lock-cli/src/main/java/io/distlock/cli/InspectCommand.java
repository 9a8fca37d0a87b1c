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

/** {@code distlock inspect URI NAME}: who holds one lock, since when, its token, what remains, who waits. */
@Command(name = "inspect", description = "Show who holds one lock: owner, fencing token, since when, remaining, waiters."
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

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = target.connect()) {
            return watch.repeat(out, () -> {
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
}
