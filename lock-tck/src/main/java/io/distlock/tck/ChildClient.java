package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockOptions;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A lock client in a child JVM ({@link ChildClientMain}), which the parent drives over the child's
 * standard input and output: the TCK's way to have a contender that shares nothing with the others
 * but the backend's servers. Every exchange is bounded by a timeout; a child that does not answer in
 * time, answers what it should not, or exits is killed, and the failure shows the last lines of its
 * standard error. {@link #close()} ends the child (its client releases what it holds); so does the
 * end of this JVM.
 *
 * <p>Times are this JVM's {@link System#nanoTime()}: a grant's {@linkplain Grant#receivedAtNanos() start}
 * is when its answer arrived here, and its {@linkplain Grant#validUntilNanos() promised end} the moment
 * the request was sent plus the {@code remaining()} the child read after its acquire returned — inside
 * the lease's real validity, whatever the scheduling of either JVM, as {@link History} needs.
 *
 * <p>One exchange at a time: callers on several threads take turns.
 */
final class ChildClient implements AutoCloseable {

    /** Children still running, killed when this JVM ends (a child also ends when its standard input closes). */
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static final String EXITED = "\u0000exited";
    private static final int STDERR_LINES = 40;
    /** How long a failure the child reported waits for its stack trace to be read from the child's standard error. */
    private static final Duration STACK_TRACE_WAIT = Duration.ofSeconds(2);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly),
                "distlock-tck-child-cleanup"));
    }

    /** One grant to the child, with this JVM's times. */
    record Grant(long lease, OptionalLong token, Duration remaining, long sentAtNanos, long receivedAtNanos) {
        /** @return when the grant's promised validity ends, counted from when its request was sent */
        long validUntilNanos() {
            return sentAtNanos + remaining.toNanos();
        }
    }

    private record Answer(String[] fields, long sentAtNanos, long receivedAtNanos) {
    }

    private final SeparateProcess how;
    private final TestEnvironment env;
    private final UnaryOperator<String> msg;
    private final String label;
    private final Process process;
    private final BufferedWriter stdin;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Deque<String> stderr = new ArrayDeque<>();
    private boolean started;
    private boolean connected;
    private String scheme = "?";
    private int grants;
    private long lowestToken = Long.MAX_VALUE;
    private long highestToken = Long.MIN_VALUE;

    private ChildClient(SeparateProcess how, TestEnvironment env, UnaryOperator<String> msg, String label, Process process) {
        this.how = how;
        this.env = env;
        this.msg = msg;
        this.label = label;
        this.process = process;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        daemon("stdout", () -> readAnswers(process.getInputStream()));
        daemon("stderr", () -> keepStderr(process.getErrorStream()));
    }

    /**
     * Starts the child JVM and returns at once; {@link #connect()} waits for it.
     *
     * @param how   how the child connects
     * @param env   the timing every exchange is bounded by
     * @param msg   prefixes a failure message with the rule
     * @param label what the rule calls this client ("B")
     * @return the child, starting
     * @throws UncheckedIOException if no JVM can be started
     */
    static ChildClient launch(SeparateProcess how, TestEnvironment env, UnaryOperator<String> msg, String label) {
        List<String> command = command();
        try {
            Process process = new ProcessBuilder(command).start();
            RUNNING.add(process);
            return new ChildClient(how, env, msg, label, process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a JVM for a client in a separate process: " + command.get(0), e);
        }
    }

    /** @return the command that starts a child: this JVM's {@code java}, class path and module path */
    static List<String> command() {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m"));
        String logging = System.getProperty("slf4j.provider");
        if (logging != null) {
            command.add("-Dslf4j.provider=" + logging); // the parent's logging, for what the child prints
        }
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && !modulePath.isEmpty()) {
            command.addAll(List.of("--module-path", modulePath, "--add-modules", "ALL-MODULE-PATH"));
        }
        // Surefire's class path may be one manifest-only jar: as good a -cp as the full list.
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChildClientMain.class.getName()));
        return command;
    }

    /** @return the child's process id */
    long pid() {
        return process.pid();
    }

    /**
     * Waits for the child JVM to start, and has it connect with the hook's URI and options. Returns at
     * once if it is connected already.
     *
     * @throws BackendUnavailableException if the child's connect found the backend unreachable
     * @throws AssertionError              if the child did not start or connect in time, or its connect failed
     */
    synchronized void connect() {
        if (connected) {
            return;
        }
        if (!started) {
            expect(await("start", env.defaultTimeout().multipliedBy(2), System.nanoTime()), "started");
            started = true;
        }
        LockOptions options = how.options();
        StringBuilder request = new StringBuilder("connect uri=").append(ChildClientMain.encode(how.uri().toString()))
                .append(" connectTimeout=").append(options.connectTimeout().toNanos())
                .append(" operationTimeout=").append(options.operationTimeout().toNanos())
                .append(" clockDriftFactor=").append(options.clockDriftFactor())
                .append(" clockDriftMinimum=").append(options.clockDriftMinimum().toNanos())
                .append(" minRetryBackoff=").append(options.minRetryBackoff().toNanos())
                .append(" maxRetryBackoff=").append(options.maxRetryBackoff().toNanos());
        Optional<Credentials> credentials = options.credentials();
        if (credentials.isPresent()) {
            credentials.get().username().ifPresent(user -> request.append(" user=").append(ChildClientMain.encode(user)));
            request.append(" password=").append(ChildClientMain.encode(new String(credentials.get().password())));
        }
        Answer answer = exchange(request.toString(), "connect", options.connectTimeout().plus(env.defaultTimeout()));
        scheme = expect(answer, "connected")[1];
        connected = true;
    }

    /**
     * One acquire in the child: a single attempt ({@code maxWait} null) or a waiting one.
     *
     * @param lockName  the lock
     * @param leaseTime the lease time
     * @param maxWait   the longest wait, or null for one attempt
     * @return the grant, or empty if the lock was busy
     * @throws BackendUnavailableException if the child's attempt got no answer (its message and endpoint)
     * @throws AssertionError              if the child failed otherwise, did not answer in time, or exited
     */
    synchronized Optional<Grant> tryAcquire(String lockName, Duration leaseTime, Duration maxWait) {
        connect();
        Duration bound = (maxWait == null ? Duration.ZERO : maxWait).plus(how.options().operationTimeout())
                .plus(how.options().connectTimeout()).plus(env.defaultTimeout());
        Answer answer = exchange("acquire " + ChildClientMain.encode(lockName) + " " + leaseTime.toNanos() + " "
                + (maxWait == null ? "-" : Long.toString(maxWait.toNanos())), "acquire '" + lockName + "'", bound);
        String[] fields = answer.fields();
        if (fields[0].equals("busy")) {
            return Optional.empty();
        }
        expect(answer, "granted");
        OptionalLong token = fields[2].equals("-") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(fields[2]));
        grants++;
        token.ifPresent(t -> {
            lowestToken = Math.min(lowestToken, t);
            highestToken = Math.max(highestToken, t);
        });
        return Optional.of(new Grant(Long.parseLong(fields[1]), token, Duration.ofNanos(Long.parseLong(fields[3])),
                answer.sentAtNanos(), answer.receivedAtNanos()));
    }

    /**
     * Releases a grant in the child.
     *
     * @param grant what {@link #tryAcquire} returned
     * @throws AssertionError if the child's release failed, did not answer in time, or the child exited
     */
    synchronized void release(Grant grant) {
        expect(exchange("release " + grant.lease(), "release", how.options().operationTimeout().plus(env.defaultTimeout())),
                "released");
    }

    /** @return how many grants the child received */
    synchronized int grants() {
        return grants;
    }

    /** @return what the rule calls this client, and its process */
    String label() {
        return label + " (separate process, pid " + pid() + ")";
    }

    /** @return the client, its process, and its grants with their lowest and highest token, for notes and messages */
    @Override
    public synchronized String toString() {
        return label() + ": " + scheme + " client, " + grants + " grant" + (grants == 1 ? "" : "s")
                + (highestToken >= lowestToken ? ", tokens " + lowestToken + ".." + highestToken : "");
    }

    /**
     * Asks the child to quit (its client releases what it holds) and waits a bounded time; kills it if
     * it does not. Never throws.
     */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                synchronized (this) {
                    write("quit");
                }
                stdin.close();
                process.waitFor(how.options().operationTimeout().plus(env.tolerance()).toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (IOException | UncheckedIOException | AssertionError e) {
            // it is going anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            process.destroyForcibly();
            RUNNING.remove(process);
        }
    }

    // ------------------------------------------------------------------------------------------

    private Answer exchange(String request, String what, Duration bound) {
        long sent = System.nanoTime();
        write(request);
        return await(what, bound, sent);
    }

    private void write(String line) {
        try {
            stdin.write(line);
            stdin.write('\n');
            stdin.flush();
        } catch (IOException e) {
            throw failure("could not be sent a request (" + e.getMessage() + ")");
        }
    }

    private Answer await(String what, Duration bound, long sent) {
        String line;
        try {
            line = answers.poll(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly(); // the exchange is left half done: the child cannot be used again
            throw failure("was abandoned: the rule's thread was interrupted during " + what);
        }
        long received = System.nanoTime();
        if (line == null) {
            process.destroyForcibly();
            throw failure("did not answer " + what + " within " + TestEnvironment.millis(bound) + " (killed)");
        }
        if (line.equals(EXITED)) {
            throw failure("exited during " + what + (process.isAlive() ? "" : " with code " + process.exitValue()));
        }
        String[] fields = line.split(" ", -1);
        if (fields[0].equals("unavailable")) {
            throw new BackendUnavailableException(ChildClientMain.decode(fields[1]), ChildClientMain.decode(fields[2])
                    + " (in the client in a separate process, pid " + pid() + ")", null);
        }
        if (fields[0].equals("failed")) {
            // The child printed the stack trace before it answered; its reader thread may not have read it yet.
            awaitStderrLine(fields[1], STACK_TRACE_WAIT);
            throw failure("failed to " + what + ": " + fields[1] + ": " + ChildClientMain.decode(fields[2]));
        }
        return new Answer(fields, sent, received);
    }

    private String[] expect(Answer answer, String word) {
        if (!answer.fields()[0].equals(word)) {
            process.destroyForcibly();
            throw failure("answered '" + String.join(" ", answer.fields()) + "' where '" + word + "' was due (killed)");
        }
        return answer.fields();
    }

    private AssertionError failure(String what) {
        String tail;
        synchronized (stderr) {
            tail = stderr.isEmpty() ? "(nothing)" : String.join("\n", stderr);
        }
        return new AssertionError(msg.apply(label() + " " + what + "\n--- its standard error, last lines ---\n" + tail));
    }

    private void readAnswers(InputStream out) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                answers.add(line);
            }
        } catch (IOException gone) {
            // the child is gone
        }
        answers.add(EXITED);
    }

    /** Waits, at most {@code bound}, until a line of the child's standard error kept here contains {@code text}. */
    private void awaitStderrLine(String text, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        synchronized (stderr) {
            while (stderr.stream().noneMatch(line -> line.contains(text))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(stderr, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void keepStderr(InputStream err) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(err, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                synchronized (stderr) {
                    stderr.addLast(line);
                    if (stderr.size() > STDERR_LINES) {
                        stderr.removeFirst();
                    }
                    stderr.notifyAll();
                }
            }
        } catch (IOException gone) {
            // the child is gone
        }
    }

    private void daemon(String stream, Runnable reader) {
        Thread thread = new Thread(reader, "distlock-tck-child-" + process.pid() + "-" + stream);
        thread.setDaemon(true);
        thread.start();
    }
}
