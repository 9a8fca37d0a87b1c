package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A lock holder in a JVM of its own, for a test that freezes the whole process ({@code SIGSTOP}):
 * it acquires {@code args[1]} on {@code args[0]} for 30 s, prints {@code HELD <token>}, then reads
 * looks at the clock every millisecond. Once it sees a gap of more than a second (it was frozen), it
 * reads {@code isValid()} and {@code remaining()} and prints {@code WOKE valid=<bool> remaining=<ms>},
 * before anything else this process does after the thaw can be waited for.
 */
public final class PausedHolder {

    private PausedHolder() {
    }

    /**
     * @param args the connection URI and the lock name
     */
    public static void main(String[] args) {
        try (LockClient client = Locks.connect(args[0])) {
            Lease lease = client.lock(args[1]).tryAcquire(Duration.ofSeconds(30)).orElseThrow();
            System.out.println("HELD " + lease.fencingToken().orElseThrow());
            long last = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                if (now - last > TimeUnit.SECONDS.toNanos(1)) {
                    // Read after the gap is seen, never before: a reading taken just before the
                    // freeze and printed after it would show the lease as it was then.
                    boolean valid = lease.isValid();
                    long remaining = lease.remaining().toMillis();
                    System.out.println("WOKE valid=" + valid + " remaining=" + remaining);
                    return;
                }
                last = now;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
    }

    /** Starts it in a child JVM on this JVM's class path; its output is piped. */
    static Process start(String uri, String lockName) {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                "-cp", System.getProperty("java.class.path"), PausedHolder.class.getName(), uri, lockName);
        try {
            return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a paused holder", e);
        }
    }
}
