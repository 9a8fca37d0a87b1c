package io.distlock.bench;

import io.distlock.tck.fixtures.FreePorts;
import org.apache.zookeeper.client.FourLetterWordMain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A stand-alone ZooKeeper server ({@code ZooKeeperServerMain}) in a JVM of its own, on a free
 * loopback port, with its data in a temporary directory: a server as users run it, whose CPU is
 * not the bench's. Started on the bench's class path (ZooKeeper's server needs metrics-core and
 * snappy-java there, which curator-test brings).
 */
final class ZooKeeperProcess implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private final int port;

    private ZooKeeperProcess(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** Starts the server and returns once it answers {@code ruok}. */
    static ZooKeeperProcess start() throws IOException {
        Path dir = Files.createTempDirectory("distlock-bench-zk-");
        int port = FreePorts.find();
        Path config = dir.resolve("zoo.cfg");
        Files.writeString(config, "tickTime=2000\ndataDir=" + dir.resolve("data").toAbsolutePath() + "\n"
                + "clientPort=" + port + "\nclientPortAddress=" + FreePorts.LOOPBACK + "\n"
                + "admin.enableServer=false\n4lw.commands.whitelist=ruok,srvr\n");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m", "-Xmx256m", "-Dzookeeper.jmx.log4j.disable=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), "org.apache.zookeeper.server.ZooKeeperServerMain", config.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        ZooKeeperProcess server = new ZooKeeperProcess(process, dir, port);
        try {
            server.awaitServing(TimeUnit.SECONDS.toNanos(60));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void awaitServing(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the ZooKeeper server exited with " + process.exitValue() + "; see " + dir.resolve("server.log"));
            }
            try {
                if ("imok".equals(FourLetterWordMain.send4LetterWord(FreePorts.LOOPBACK, port, "ruok", false, 1_000).trim())) {
                    return;
                }
            } catch (Exception notYet) {
                // not listening yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the ZooKeeper server on port " + port + " did not start within 60 s; see "
                        + dir.resolve("server.log"));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** @return {@code 127.0.0.1:<port>} */
    String connectString() {
        return FreePorts.LOOPBACK + ":" + port;
    }

    /** @return the server process, for its CPU time */
    ProcessHandle handle() {
        return process.toHandle();
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toArray(Path[]::new)) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    @Override
    public String toString() {
        return "ZooKeeper at " + connectString() + " (pid " + process.pid() + ")";
    }
}
