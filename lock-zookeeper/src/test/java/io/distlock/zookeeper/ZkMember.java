package io.distlock.zookeeper;

import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.Signals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One member of a test ensemble: a real ZooKeeper server ({@code QuorumPeerMain}) in a child JVM
 * of its own, on free loopback ports, with a {@link FaultProxy} in front of its client port. A
 * process of its own so that it can be frozen ({@code SIGSTOP}) and killed like a real server;
 * clients reach it only through the proxy, so that its client traffic can be slowed or
 * partitioned while it keeps talking to its peers.
 */
final class ZkMember implements AutoCloseable {

    final int id;
    final int clientPort;
    private final Path dataDir;
    private final Path config;
    private final FaultProxy proxy;
    private volatile Process process;

    private ZkMember(int id, int clientPort, Path dataDir, Path config) {
        this.id = id;
        this.clientPort = clientPort;
        this.dataDir = dataDir;
        this.config = config;
        this.proxy = FaultProxy.start(FreePorts.LOOPBACK, clientPort);
    }

    /**
     * Writes the configuration of an ensemble of {@code size} members under {@code root} (one
     * {@code zoo.cfg} and {@code myid} each; ticks of {@code tickMillis}); starts nothing.
     */
    static List<ZkMember> configure(Path root, int size, int tickMillis) {
        int[] client = new int[size];
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < size; i++) {
            client[i] = FreePorts.find();
            servers.append("server.").append(i + 1).append('=').append(FreePorts.LOOPBACK).append(':')
                    .append(FreePorts.find()).append(':').append(FreePorts.find()).append('\n');
        }
        List<ZkMember> members = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                Path dir = Files.createDirectories(root.resolve("zk" + (i + 1)));
                Files.writeString(dir.resolve("myid"), Integer.toString(i + 1));
                String cfg = "tickTime=" + tickMillis + "\ninitLimit=10\nsyncLimit=5\n"
                        + "dataDir=" + dir.toAbsolutePath() + "\n"
                        + "clientPort=" + client[i] + "\nclientPortAddress=" + FreePorts.LOOPBACK + "\n"
                        + "admin.enableServer=false\n4lw.commands.whitelist=" + ZkServers.FOUR_LETTER_WORDS + "\n"
                        + "preAllocSize=1024\n" // KB: no 64 MB transaction log files per test run
                        + servers;
                Path config = dir.resolve("zoo.cfg");
                Files.writeString(config, cfg);
                members.add(new ZkMember(i + 1, client[i], dir, config));
            }
        } catch (IOException e) {
            members.forEach(ZkMember::close);
            throw new UncheckedIOException("cannot write the configuration of a ZooKeeper ensemble under " + root, e);
        }
        return members;
    }

    /** Starts the server process (it joins the ensemble on its own); returns at once. */
    synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("member " + id + " is running already");
        }
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC",
                "-Dzookeeper.admin.enableServer=false", "-Dzookeeper.4lw.commands.whitelist=" + ZkServers.FOUR_LETTER_WORDS,
                "-Dzookeeper.jmx.log4j.disable=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"),
                "org.apache.zookeeper.server.quorum.QuorumPeerMain", config.toString());
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDir.resolve("server.log").toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start ZooKeeper member " + id, e);
        }
    }

    /** Kills the server process ({@code SIGKILL}, a crash) and waits until it is gone. */
    synchronized void kill() {
        Process running = process;
        if (running == null) {
            return;
        }
        running.destroyForcibly();
        try {
            if (!running.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("ZooKeeper member " + id + " (pid " + running.pid() + ") did not die");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing member " + id, e);
        }
        process = null;
    }

    /** Deletes the member's snapshots and transaction logs (it must be killed first). */
    void wipeData() throws IOException {
        Path data = dataDir.resolve("version-2");
        if (Files.exists(data)) {
            try (Stream<Path> files = Files.walk(data)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toArray(Path[]::new)) {
                    Files.delete(file);
                }
            }
        }
    }

    /** Freezes the server process ({@code SIGSTOP}): its sockets stay open, nothing is answered. */
    void pause() {
        Signals.stop(running("SIGSTOP"), Duration.ofSeconds(10));
    }

    /** Lets a frozen server process run again ({@code SIGCONT}). */
    void resume() {
        Signals.resume(running("SIGCONT"), Duration.ofSeconds(10));
    }

    private Process running(String signal) {
        Process running = process;
        if (running == null || !running.isAlive()) {
            throw new IllegalStateException("member " + id + " is not running; cannot send " + signal);
        }
        return running;
    }

    /**
     * The last {@code lines} lines the server logged (warnings and errors only: it logs at WARN),
     * for a failure message: why an ensemble elects no leader or a member does not rejoin.
     */
    String logTail(int lines) {
        Path log = dataDir.resolve("server.log");
        try {
            List<String> all = Files.exists(log) ? Files.readAllLines(log) : List.of();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** @return the proxy in front of the client port, through which every client connects */
    FaultProxy proxy() {
        return proxy;
    }


    /** Resumes (if frozen) and kills the process, and closes the proxy. */
    @Override
    public void close() {
        Process running = process;
        if (running != null && running.isAlive()) {
            try {
                resume();
            } catch (RuntimeException ignored) {
                // killing it anyway
            }
        }
        kill();
        proxy.close();
    }

    @Override
    public String toString() {
        Process running = process;
        return "member " + id + " (client port " + clientPort + ", proxy " + proxy.endpoint()
                + (running != null ? ", pid " + running.pid() : ", down") + ")";
    }
}
