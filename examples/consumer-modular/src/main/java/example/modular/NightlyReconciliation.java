package example.modular;

import io.distlock.BackendDescriptor;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * The README's first example, on the module path: every instance of a service wakes at 02:00 for
 * the nightly reconciliation, and exactly one of them runs it (the same code as
 * {@code examples/consumer}, which runs it on the classpath).
 *
 * <p>As a program it is one such instance, started as
 * {@code java -p <modules> --patch-module zookeeper=<zookeeper-jute jar> -m example.modular/example.modular.NightlyReconciliation <uri>}
 * (the patch only where lock-zookeeper is on the module path; see this example's README): it runs
 * the job once (printing {@code nightly-reconciliation: ran} or {@code ... skipped}), then lives on
 * as a service would, holding its client, until its standard input is closed.
 */
public final class NightlyReconciliation {

    /** Where the report goes. */
    public interface ReportStore {
        /**
         * @param report tonight's report
         * @param fence  the lease's fencing token, for the store to reject a token lower than one it
         *               has seen; empty on a backend without fencing tokens ({@code redlock://})
         */
        void write(String report, OptionalLong fence);
    }

    private NightlyReconciliation() {
    }

    /** Called at 02:00 on every instance; returns true on the one instance that ran the job. */
    public static boolean reconcileOnce(LockClient client, ReportStore store) {
        Optional<Lease> granted = client.lock("nightly-reconciliation")
                .tryAcquire(Duration.ofMinutes(10));          // one attempt: a run-once job never waits
        if (granted.isEmpty()) {
            return false;                                     // another instance has it: skip
        }
        Lease lease = granted.get();
        store.write(reconcile(), lease.fencingToken());       // no fencing token on redlock://: empty
        // Not released: the lock stays taken until the lease runs out, so an instance that wakes
        // late (clock skew, a slow start) skips too. The job must end well within the lease.
        return true;
    }

    private static String reconcile() {
        return "reconciliation report for tonight";
    }

    /**
     * One service instance.
     *
     * @param args the backend URI, for example {@code redis://127.0.0.1:6379}
     * @throws IOException if standard input fails
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java -p <modules> [--patch-module zookeeper=<zookeeper-jute jar>]"
                    + " -m example.modular/example.modular.NightlyReconciliation <uri>   (stays up until stdin is closed)");
            System.exit(2);
        }
        // A service connects once, as it starts: its first connect also warms up the driver in a cold
        // JVM (on a small machine starting five of them at once, more than the default 2 s), so it
        // gives the connect longer than an operation needs.
        LockOptions startup = LockOptions.builder().connectTimeout(Duration.ofSeconds(15)).build();
        // What the module path brought: each backend artifact its own schemes, and no other.
        System.out.println("backends: " + Locks.backends().stream().map(BackendDescriptor::scheme).sorted()
                .collect(Collectors.joining(", ")));
        try (LockClient client = Locks.connect(URI.create(args[0]), startup)) {   // one client per process, for its lifetime
            boolean ran = reconcileOnce(client, (report, fence) -> System.out.println(
                    "writing '" + report + "'" + (fence.isPresent() ? " with fencing token " + fence.getAsLong() : "")));
            System.out.println("nightly-reconciliation: " + (ran ? "ran" : "skipped"));
            System.out.flush();
            drain(System.in);                                 // the service keeps running
        }                                                     // closing the client releases its leases
    }

    private static void drain(InputStream in) throws IOException {
        byte[] buffer = new byte[256];
        while (in.read(buffer) >= 0) {
            // nothing to do until the input ends
        }
    }
}
