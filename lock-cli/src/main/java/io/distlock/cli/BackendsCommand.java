package io.distlock.cli;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Locks;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code distlock backends}: the installed schemes, with the guarantee and features each declares. */
@Command(name = "backends", description = "List the installed backends: scheme, guarantee, features.")
final class BackendsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Print JSON (one object per backend) for scripts.")
    boolean json;

    @Override
    public Integer call() {
        List<BackendDescriptor> backends = Locks.backends();
        var out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.GSON.toJson(backends.stream().map(Json::of).toList()));
            out.flush();
            return ExitCodes.OK;
        }
        Console.table(out, List.of("SCHEME", "GUARANTEE", "FEATURES"), backends.stream()
                .map(b -> List.of(b.scheme(), b.guarantee().name(),
                        b.features().stream().sorted().map(Feature::name).collect(Collectors.joining(" "))))
                .toList());
        return ExitCodes.OK;
    }
}
