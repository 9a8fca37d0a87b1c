package io.distlock.cli;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.NoSuchBackendException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

import java.io.PrintWriter;

/**
 * {@code distlock}: see who holds the locks of a live deployment, take one back, audit the backend with
 * the TCK's non-destructive rules and benchmark it. Exit codes: {@link ExitCodes}.
 */
@Command(name = "distlock", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "See, take back, audit and benchmark the locks of a live deployment.",
        subcommands = {BackendsCommand.class, HoldersCommand.class, InspectCommand.class, RevokeCommand.class,
                CheckCommand.class, BenchCommand.class, DemoCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:done (check: every rule that ran passed; revoke: revoked)",
                "1:check: a rule failed; bench: a scenario failed",
                "2:bad input (nothing was done)",
                "3:inspect, revoke: nobody holds the lock",
                "4:refused: credentials, rights, or revoke not confirmed",
                "5:the backend could not be reached or did not answer",
                "6:the backend does not offer this",
                "130:interrupted (Ctrl-C): what the command held is released or left to expire"})
public final class Main implements Runnable {

    private Main() {
    }

    /**
     * Runs the command and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    static int run(String[] args, PrintWriter out, PrintWriter err) {
        // The engine logs a revocation or a lost lease at INFO through java.util.logging: a command prints
        // what it did itself, and a driver's warning is one line like the command's own failures.
        DriverLogs.quiet();
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler(new Failures());
        return cli.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(new CommandLine(this), "name a command: backends, holders, inspect,"
                + " revoke, check, bench, demo (distlock help COMMAND for one's options)");
    }

    /** Maps what the library throws to an exit code and one line on standard error, never a stack trace. */
    static final class Failures implements IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception e, CommandLine cli, ParseResult parsed) {
            PrintWriter err = cli.getErr();
            Throwable t = e;
            if (t instanceof IllegalArgumentException || t instanceof NoSuchBackendException) {
                err.println("distlock: " + t.getMessage());
                return ExitCodes.USAGE;
            }
            if (t instanceof AuthenticationException || t instanceof AccessDeniedException) {
                err.println("distlock: refused: " + t.getMessage());
                return ExitCodes.REFUSED;
            }
            if (t instanceof BackendUnavailableException) {
                err.println("distlock: unavailable: " + t.getMessage());
                return ExitCodes.UNAVAILABLE;
            }
            if (t instanceof UnsupportedOperationException) {
                err.println("distlock: " + t.getMessage());
                return ExitCodes.UNSUPPORTED;
            }
            if (t instanceof InterruptedException) {
                err.println("distlock: interrupted");
                return ExitCodes.INTERRUPTED;
            }
            err.println("distlock: " + t);
            return ExitCodes.FAILED;
        }
    }

    /** The version of the jar the command runs from. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"distlock " + (v == null ? "(development build)" : v)};
        }
    }
}
