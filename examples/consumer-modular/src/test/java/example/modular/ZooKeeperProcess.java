package example.modular;

import io.distlock.tck.fixtures.FreePorts;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A stand-alone ZooKeeper server from the {@code org.apache.zookeeper:zookeeper} artifact, run as
 * the README says ("Running a server locally"): {@code ZooKeeperServerMain} with a {@code zoo.cfg},
 * in a child JVM, on a free loopback port. Its class path must hold the zookeeper and
 * zookeeper-jute jars, slf4j-api, metrics-core and snappy-java.
 */
final class ZooKeeperProcess implements AutoCloseable {

    private final Process process;
    private final Path directory;
    private final int port;

    private ZooKeeperProcess(Process process, Path directory, int port) {
        this.process = process;
        this.directory = directory;
        this.port = port;
    }

    static ZooKeeperProcess start(String classpath) throws IOException {
        Path directory = Files.createTempDirectory("example-zookeeper");
        int port = FreePorts.find();
        Files.writeString(directory.resolve("zoo.cfg"), String.join("\n",
                "tickTime=2000",
                "dataDir=" + directory.resolve("data"),
                "clientPortAddress=127.0.0.1",
                "clientPort=" + port,
                "admin.enableServer=false",
                "4lw.commands.whitelist=ruok",
                "preAllocSize=1024", ""));
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath,
                "org.apache.zookeeper.server.ZooKeeperServerMain", directory.resolve("zoo.cfg").toString())
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("server.log").toFile())
                .start();
        ZooKeeperProcess server = new ZooKeeperProcess(process, directory, port);
        try {
            server.awaitReady(Duration.ofSeconds(60));
            return server;
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    /** {@code ruok} answered {@code imok}, polled until the deadline; fails with the log if the server dies. */
    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("ZooKeeper exited with " + process.exitValue() + ":\n" + log());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(FreePorts.LOOPBACK, port), 500);
                socket.setSoTimeout(2000);
                OutputStream out = socket.getOutputStream();
                out.write("ruok".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                if (new String(in.readAllBytes(), StandardCharsets.US_ASCII).equals("imok")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            try {
                process.waitFor(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for ZooKeeper", e);
            }
        }
        throw new IllegalStateException("ZooKeeper did not answer ruok on port " + port + " within " + timeout + ":\n" + log());
    }

    String uri() {
        return "zookeeper://127.0.0.1:" + port;
    }

    private String log() {
        try {
            List<String> lines = Files.readAllLines(directory.resolve("server.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toArray(Path[]::new)) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + directory, e);
        }
    }
}
