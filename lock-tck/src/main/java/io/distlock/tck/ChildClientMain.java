package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The child JVM of {@link ChildClient}: one lock client, driven line by line over standard input,
 * answering on standard output (everything else the JVM prints goes to standard error). It ends when
 * told to ({@code quit}) or when its standard input closes — its parent closed it or is gone — closing
 * its client first, so that what it holds is released.
 *
 * <p>The protocol, one line per message, fields separated by one space, text URL-encoded (UTF-8),
 * durations in nanoseconds:
 * <pre>
 * (at start)                                     started &lt;pid&gt;
 * connect uri=&lt;uri&gt; connectTimeout=&lt;ns&gt; operationTimeout=&lt;ns&gt; clockDriftFactor=&lt;f&gt;
 *         clockDriftMinimum=&lt;ns&gt; minRetryBackoff=&lt;ns&gt; maxRetryBackoff=&lt;ns&gt; [user=&lt;u&gt;] [password=&lt;p&gt;]
 *                                                connected &lt;scheme&gt;
 * acquire &lt;name&gt; &lt;lease ns&gt; &lt;maxWait ns | -&gt;    granted &lt;lease no&gt; &lt;token | -&gt; &lt;remaining() ns&gt; | busy
 * release &lt;lease no&gt;                             released
 * quit                                           bye
 * (any request)                                  unavailable &lt;endpoint&gt; &lt;message&gt; | failed &lt;exception class&gt; &lt;message&gt;
 * </pre>
 * {@code acquire} without {@code maxWait} is one attempt ({@code tryAcquire(lease)}); {@code remaining()}
 * is read right after the acquire returned.
 */
final class ChildClientMain {

    private static volatile LockClient client;

    private ChildClientMain() {
    }

    /**
     * Serves the protocol until {@code quit} or the end of standard input.
     *
     * @param args none
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // stray prints (a driver's, a logger's) must not mix with the protocol
        BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> readUntilClosed(commands), "distlock-child-stdin");
        reader.setDaemon(true);
        reader.start();
        out.println("started " + ProcessHandle.current().pid());
        Map<Long, Lease> leases = new HashMap<>();
        long nextLease = 0;
        while (true) {
            String[] request = commands.take().split(" ", -1);
            try {
                switch (request[0]) {
                    case "connect" -> {
                        client = connect(request);
                        out.println("connected " + client.backend().scheme());
                    }
                    case "acquire" -> {
                        Optional<Lease> lease = acquire(request);
                        if (lease.isEmpty()) {
                            out.println("busy");
                        } else {
                            Duration remaining = lease.get().remaining();
                            leases.put(++nextLease, lease.get());
                            out.println("granted " + nextLease + " " + (lease.get().fencingToken().isPresent()
                                    ? Long.toString(lease.get().fencingToken().getAsLong()) : "-") + " " + remaining.toNanos());
                        }
                    }
                    case "release" -> {
                        Lease lease = leases.remove(Long.parseLong(request[1]));
                        if (lease == null) {
                            throw new IllegalArgumentException("no lease " + request[1]);
                        }
                        lease.release();
                        out.println("released");
                    }
                    case "quit" -> {
                        close();
                        out.println("bye");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown request '" + request[0] + "'");
                }
            } catch (BackendUnavailableException e) {
                out.println("unavailable " + encode(e.endpoint()) + " " + encode(e.getMessage()));
            } catch (RuntimeException e) {
                e.printStackTrace(); // to standard error, which the parent shows when a rule fails
                out.println("failed " + e.getClass().getName() + " " + encode(String.valueOf(e.getMessage())));
            }
        }
    }

    private static LockClient connect(String[] request) {
        Map<String, String> settings = new HashMap<>();
        for (int i = 1; i < request.length; i++) {
            int eq = request[i].indexOf('=');
            settings.put(request[i].substring(0, eq), decode(request[i].substring(eq + 1)));
        }
        LockOptions.Builder options = LockOptions.builder()
                .connectTimeout(nanos(settings.get("connectTimeout")))
                .operationTimeout(nanos(settings.get("operationTimeout")))
                .clockDrift(Double.parseDouble(settings.get("clockDriftFactor")), nanos(settings.get("clockDriftMinimum")))
                .retryBackoff(nanos(settings.get("minRetryBackoff")), nanos(settings.get("maxRetryBackoff")));
        if (settings.containsKey("password")) {
            options.credentials(Credentials.of(settings.get("user"), settings.get("password")));
        }
        return Locks.connect(URI.create(settings.get("uri")), options.build());
    }

    private static Optional<Lease> acquire(String[] request) {
        if (client == null) {
            throw new IllegalStateException("acquire before connect");
        }
        String name = decode(request[1]);
        Duration lease = nanos(request[2]);
        if (request[3].equals("-")) {
            return client.lock(name).tryAcquire(lease);
        }
        try {
            return client.lock(name).tryAcquire(lease, nanos(request[3]));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while acquiring", e);
        }
    }

    /** Reads requests until standard input closes; then the parent is done with this JVM (or gone): it ends. */
    private static void readUntilClosed(BlockingQueue<String> commands) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                commands.add(line);
            }
        } catch (IOException gone) {
            // the parent is gone: as the end of the input
        }
        Thread closing = new Thread(ChildClientMain::close, "distlock-child-close");
        closing.setDaemon(true);
        closing.start();
        try {
            closing.join(Duration.ofSeconds(10).toMillis()); // close() itself is bounded by the operation timeout
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().halt(0);
    }

    private static void close() {
        LockClient c = client;
        if (c != null) {
            c.close();
        }
    }

    private static Duration nanos(String value) {
        return Duration.ofNanos(Long.parseLong(value));
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
