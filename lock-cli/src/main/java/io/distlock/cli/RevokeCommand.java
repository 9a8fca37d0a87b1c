package io.distlock.cli;

import io.distlock.LockClient;
import io.distlock.LockInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.Console;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code distlock revoke URI NAME --reason TEXT}: ends the holder's lease on the server and moves the
 * fence, so that a fenced resource refuses the evicted holder's late writes; with {@code --semaphore}
 * or {@code --read-write} and {@code --hold ID}, one permit, reader or writer of that name's semaphore
 * or read-write lock, the others left held. Asks first on a terminal; a script passes {@code --yes},
 * and without either nothing is revoked.
 */
@Command(name = "revoke", description = "Take a lock back from its holder: its lease ends on the server, and the next"
        + " fencing token is higher than any it had; with --semaphore or --read-write and --hold ID, one permit, reader"
        + " or writer (the hold ids are those inspect shows). Asks for confirmation on a terminal (--yes for scripts)."
        + " Exits 0 if revoked, 3 if nobody held it, 4 if refused or not confirmed.")
final class RevokeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    Target target;

    @Parameters(index = "1", paramLabel = "NAME", description = "The lock's name.")
    String name;

    @Option(names = "--reason", required = true, paramLabel = "TEXT",
            description = "Why (at most 256 characters): the holder's client is told it, and it is logged.")
    String reason;

    @Mixin
    Primitive primitive;

    @Option(names = "--hold", paramLabel = "ID", description = "With --semaphore or --read-write: the hold to revoke, as inspect shows it.")
    String holdId;

    @Option(names = {"-y", "--yes"}, description = "Do not ask: revoke (for scripts).")
    boolean yes;

    @Option(names = "--json", description = "Print what was revoked as JSON.")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (primitive.holds() != (holdId != null)) {
            throw new ParameterException(spec.commandLine(), primitive.holds()
                    ? "--hold ID names the permit, reader or writer to revoke (inspect --semaphore or --read-write shows them)"
                    : "--hold needs --semaphore or --read-write: a lock has one holder, revoked by its name");
        }
        String what = primitive.holds() ? "hold " + holdId + " of " + primitive.describe(name) : "'" + name + "'";
        try (LockClient client = target.connect()) {
            if (!yes) {
                Console terminal = io.distlock.cli.Console.interactive() ? System.console() : null;
                if (terminal == null) {
                    err.println("distlock: refused: revoke asks for confirmation on a terminal; there is none."
                            + " Pass --yes to revoke without asking. Nothing was revoked.");
                    return ExitCodes.REFUSED;
                }
                Optional<LockInfo> holder = primitive.holds()
                        ? primitive.holders(client, name).stream().filter(h -> h.holdId().equals(Optional.of(holdId))).findFirst()
                        : client.inspect(name);
                if (holder.isEmpty()) {
                    out.println(what + " on " + target.shown() + ": not held; nothing to revoke");
                    return ExitCodes.NOT_HELD;
                }
                io.distlock.cli.Console.table(out, primitive.holds() ? Holdings.HOLD_HEADER : Holdings.HEADER,
                        List.of(primitive.holds() ? Holdings.holdRow(holder.get(), Instant.now()) : Holdings.row(holder.get(), Instant.now())));
                String answer = terminal.readLine("Revoke %s from %s? [y/N] ", what, holder.get().owner().orElse("its holder"));
                if (answer == null || !answer.trim().toLowerCase(Locale.ROOT).startsWith("y")) {
                    err.println("distlock: not confirmed; nothing was revoked");
                    return ExitCodes.REFUSED;
                }
            }
            Optional<LockInfo> revoked = primitive.holds() ? primitive.revoke(client, name, holdId, reason) : client.revoke(name, reason);
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("revoked", revoked.isPresent());
                m.put("holder", revoked.map(Json::of).orElse(null));
                m.put("nextTokenAbove", revoked.flatMap(h -> h.fencingToken().isPresent()
                        ? Optional.of(h.fencingToken().getAsLong()) : Optional.empty()).orElse(null));
                out.println(Json.GSON.toJson(m));
            } else if (revoked.isEmpty()) {
                out.println(what + " on " + target.shown() + ": not held; nothing was revoked");
            } else {
                LockInfo h = revoked.get();
                out.println("revoked " + what + " from " + h.owner().orElse("its holder")
                        + (h.fencingToken().isPresent() ? " (fencing token " + h.fencingToken().getAsLong() + ")" : ""));
                out.println(h.fencingToken().isPresent()
                        ? "next token floor: every later grant's token is above " + h.fencingToken().getAsLong()
                                + "; a fenced resource refuses the evicted holder's writes"
                        : "this backend has no fencing tokens: the evicted holder's late writes can only be refused by"
                                + " a check of your own");
            }
            out.flush();
            return revoked.isPresent() ? ExitCodes.OK : ExitCodes.NOT_HELD;
        }
    }
}
