package io.distlock.tck.memory;

import io.distlock.AccessDeniedException;
import io.distlock.BackendUnavailableException;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Hold;
import io.distlock.spi.ServerList;
import io.distlock.spi.Watch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP gateway to one {@link MemoryServer}, so that a client in another JVM (the TCK's
 * client in a separate process) reaches the server the clients of this JVM use: a
 * {@code memory://<server>?gateway=<port>} client talks to it through a {@link Remote} instead of a
 * server of its own JVM. The gateway answers with the server's own decisions — grants, fencing
 * tokens, expiries are the server's, in the server's JVM, as a real backend's are; the driver, with
 * whatever defect its backend has, runs in the client's JVM.
 *
 * <p>The wire: one line per message, fields separated by one space, text URL-encoded (UTF-8),
 * durations in nanoseconds. A request is {@code <id> <operation> <arguments…>} (the operations of
 * {@link MemoryProtocol}, and first {@code hello <scheme://server>}); its answer
 * {@code <id> ok <values…>}, {@code <id> denied <endpoint> <message>} (an
 * {@link AccessDeniedException}), {@code <id> unavailable <endpoint> <message>} (a
 * {@link BackendUnavailableException}) or {@code <id> failed <message>}. The gateway also sends
 * what the server tells a driver by itself: {@code ! changed <watch id>}, {@code ! revoked <owner> [<reason>]}
 * (with the reason when an operator revoked it), {@code ! sessionEnded <session>}. A holder travels as its
 * nine fields, or {@code -} for none.
 * Requests are answered concurrently, each on a thread of its own.
 */
final class MemoryGateway {

    private static final Map<MemoryServer, MemoryGateway> GATEWAYS = new ConcurrentHashMap<>();
    private static final ExecutorService WORKERS = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "memory-gateway-worker");
        thread.setDaemon(true);
        return thread;
    });

    private final MemoryServer server;
    private final String serverName;
    private final ServerSocket socket;

    private MemoryGateway(MemoryServer server, String serverName) {
        this.server = server;
        this.serverName = serverName;
        try {
            socket = new ServerSocket();
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a gateway to " + serverName, e);
        }
        daemon("memory-gateway-" + socket.getLocalPort(), this::accept);
    }

    /**
     * The port of {@code server}'s gateway, started on first use; it serves until this JVM ends.
     *
     * @param server     the server
     * @param serverName its {@code scheme://name}, which a client's {@code hello} must name
     * @return the loopback port
     */
    static int portOf(MemoryServer server, String serverName) {
        return GATEWAYS.computeIfAbsent(server, s -> new MemoryGateway(s, serverName)).socket.getLocalPort();
    }

    private void accept() {
        while (true) {
            Socket connection;
            try {
                connection = socket.accept();
            } catch (IOException e) {
                return;
            }
            daemon("memory-gateway-connection", () -> new Connection(connection).serve());
        }
    }

    /** One client's connection: what it registered is withdrawn when it ends. */
    private final class Connection {
        private final Socket socket;
        private final Writer out;
        private final Map<String, Watch> watches = new ConcurrentHashMap<>();
        private final Set<String> revocable = ConcurrentHashMap.newKeySet();

        Connection(Socket socket) {
            this.socket = socket;
            try {
                this.out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void serve() {
            try (socket; BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    String request = line;
                    WORKERS.execute(() -> answer(request.split(" ", -1)));
                }
            } catch (IOException gone) {
                // the client is gone
            } finally {
                watches.values().forEach(Watch::close);
                revocable.forEach(server::forget);
            }
        }

        private void answer(String[] request) {
            String id = request[0];
            try {
                String values = switch (request[1]) {
                    case "hello" -> {
                        if (!decode(request[2]).equals(serverName)) {
                            throw new IllegalArgumentException("this gateway serves " + serverName + ", not " + decode(request[2]));
                        }
                        yield "";
                    }
                    case "authorize" -> {
                        server.authorize(request[2].equals("-") ? null : decode(request[2]), decode(request[3]),
                                decode(request[4]));
                        yield "";
                    }
                    case "acquire" -> {
                        MemoryServer.Answer answer = server.tryAcquire(decode(request[2]), decode(request[3]),
                                Duration.ofNanos(Long.parseLong(request[4])), decode(request[5]),
                                new Hold(Hold.Kind.valueOf(request[6]), Integer.parseInt(request[7])));
                        yield answer.granted() + " " + answer.fence() + " " + answer.holderRemaining().toNanos();
                    }
                    case "extend" -> String.valueOf(server.extend(decode(request[2]), decode(request[3]),
                            Duration.ofNanos(Long.parseLong(request[4]))));
                    case "release" -> String.valueOf(server.release(decode(request[2]), decode(request[3])));
                    case "holds" -> String.valueOf(server.holds(decode(request[2]), decode(request[3])));
                    case "abandon" -> {
                        server.abandon(decode(request[2]), decode(request[3]), Boolean.parseBoolean(request[4]));
                        yield "";
                    }
                    case "watch" -> {
                        String watch = request[3];
                        watches.put(watch, server.watch(decode(request[2]), () -> send("! changed " + watch)));
                        yield "";
                    }
                    case "unwatch" -> {
                        Watch watch = watches.remove(request[2]);
                        if (watch != null) {
                            watch.close();
                        }
                        yield "";
                    }
                    case "onRevoke" -> {
                        String owner = decode(request[2]);
                        revocable.add(owner);
                        server.onRevoke(owner, reason -> send("! revoked " + encode(owner)
                                + (reason == null ? "" : " " + encode(reason))));
                        yield "";
                    }
                    case "inspect" -> holder(server.inspect(decode(request[2])));
                    case "holders" -> {
                        StringBuilder all = new StringBuilder();
                        for (MemoryServer.Holder holder : server.holders(decode(request[2]), Integer.parseInt(request[3]))) {
                            all.append(all.isEmpty() ? "" : " ").append(encode(holder(holder)));
                        }
                        yield all.toString();
                    }
                    case "revoke" -> holder(server.revoke(decode(request[2]), decode(request[3])));
                    case "holdsOf" -> {
                        StringBuilder all = new StringBuilder();
                        for (MemoryServer.Holder holder : server.holdsOf(decode(request[2]))) {
                            all.append(all.isEmpty() ? "" : " ").append(encode(holder(holder)));
                        }
                        yield all.toString();
                    }
                    case "revokeHold" -> holder(server.revokeHold(decode(request[2]), Long.parseLong(request[3]), decode(request[4])));
                    case "revocation" -> {
                        String reason = server.revocation(decode(request[2]));
                        yield reason == null ? "-" : encode(reason);
                    }
                    case "forget" -> {
                        revocable.remove(decode(request[2]));
                        server.forget(decode(request[2]));
                        yield "";
                    }
                    case "renewed" -> {
                        MemoryProtocol.of(server).renewed(Integer.parseInt(request[2]));
                        yield "";
                    }
                    case "openSession" -> {
                        long[] session = {0};
                        session[0] = server.openSession(() -> send("! sessionEnded " + session[0]));
                        yield Long.toString(session[0]);
                    }
                    case "onSession" -> {
                        server.onSession(decode(request[2]), Long.parseLong(request[3]));
                        yield "";
                    }
                    default -> throw new IllegalArgumentException("unknown operation '" + request[1] + "'");
                };
                send(id + " ok" + (values.isEmpty() ? "" : " " + values));
            } catch (AccessDeniedException e) {
                send(id + " denied " + encode(e.endpoint()) + " " + encode(e.getMessage()));
            } catch (BackendUnavailableException e) {
                send(id + " unavailable " + encode(e.endpoint()) + " " + encode(e.getMessage()));
            } catch (RuntimeException e) {
                send(id + " failed " + encode(e.toString()));
            }
        }

        /** A holder as the wire carries it: its fields, encoded, one space apart; {@code -} for none. */
        private static String holder(MemoryServer.Holder h) {
            return h == null ? "-" : String.join(" ", encode(h.name()), encode(h.owner()), encode(h.description()),
                    Long.toString(h.fence()), Long.toString(h.grantedAtMillis()), Long.toString(h.remainingNanos()),
                    Integer.toString(h.waiters()), h.hold().kind().name(), Integer.toString(h.hold().permits()));
        }

        private void send(String line) {
            synchronized (out) {
                try {
                    out.write(line + "\n");
                    out.flush();
                } catch (IOException gone) {
                    // the client is gone; its connection's end withdraws what it registered
                }
            }
        }
    }

    /**
     * The client's side: the protocol of a server behind a gateway, for one driver. Each call waits up
     * to the driver's operation timeout for its answer; one that gets none is a
     * {@link BackendUnavailableException}, as a lost reply is.
     */
    static final class Remote implements MemoryProtocol {

        private final String endpoint;
        private final long timeoutNanos;
        private final Socket socket;
        private final Writer out;
        private final AtomicLong ids = new AtomicLong();
        private final Map<Long, CompletableFuture<String[]>> pending = new ConcurrentHashMap<>();
        private final Map<String, Runnable> watchers = new ConcurrentHashMap<>();
        private final Map<String, java.util.function.Consumer<String>> revocationListeners = new ConcurrentHashMap<>();
        private final Map<String, Runnable> sessionListeners = new ConcurrentHashMap<>();

        /** How long the {@link Bug#WAITS_ON_SILENT_ENDPOINT} variant waits for each gateway's hello: a per-host wait taken from a long session. */
        private static final Duration UNBOUNDED_HELLO = Duration.ofSeconds(30);

        /**
         * Connects to the first of the gateways on {@code ports} that answers, in the order listed, as a
         * client of a backend whose URI lists alternative endpoints does. No gateway but the last may take
         * more than half of what is left of the connect timeout: one that accepts connections and never
         * answers (TCK rule 5.8) costs only part of it. With {@code waitsOnEach}
         * ({@link Bug#WAITS_ON_SILENT_ENDPOINT}), each gets 30 s instead.
         *
         * @throws BackendUnavailableException if none answers within the connect timeout, naming the last failure
         * @throws IllegalStateException       if one serves another server
         */
        static Remote firstAnswering(List<Integer> ports, String serverName, String endpoint, Duration connectTimeout,
                                     Duration operationTimeout, boolean waitsOnEach) {
            long deadline = System.nanoTime() + connectTimeout.toNanos();
            BackendUnavailableException last = null;
            for (int k = 0; k < ports.size(); k++) {
                Duration helloWait = waitsOnEach ? UNBOUNDED_HELLO
                        : Duration.ofNanos(Math.max(1, ServerList.turnDeadline(deadline, k, ports.size()) - System.nanoTime()));
                try {
                    return new Remote(ports.get(k), serverName, endpoint, operationTimeout, helloWait);
                } catch (BackendUnavailableException e) {
                    last = e;
                }
            }
            throw last;
        }

        /**
         * Connects to the gateway on {@code port} and checks that it serves {@code serverName}.
         *
         * @param helloWait how long the gateway may take to answer the check
         * @throws BackendUnavailableException if the gateway cannot be reached or does not answer in time
         * @throws IllegalStateException       if it serves another server
         */
        private Remote(int port, String serverName, String endpoint, Duration operationTimeout, Duration helloWait) {
            this.endpoint = endpoint;
            this.timeoutNanos = operationTimeout.toNanos();
            try {
                socket = new Socket();
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                        (int) Math.max(1, helloWait.toMillis()));
                out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                daemon("memory-gateway-client-" + port, () -> readAnswers(in));
            } catch (IOException e) {
                throw new BackendUnavailableException(endpoint, "cannot reach the gateway of " + endpoint + " on port " + port
                        + ": " + e.getMessage(), e);
            }
            try {
                send("hello", encode(serverName)).get(helloWait.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                disconnected(null);
                throw new BackendUnavailableException(endpoint, "the gateway on port " + port + " of " + endpoint
                        + " did not answer within " + helloWait.toMillis() + " ms", e);
            } catch (InterruptedException e) {
                disconnected(null);
                Thread.currentThread().interrupt();
                throw new BackendUnavailableException(endpoint, "interrupted while connecting to the gateway of " + endpoint, e);
            } catch (ExecutionException e) {
                disconnected(null);
                if (e.getCause() instanceof RuntimeException failure) {
                    throw failure;
                }
                throw new IllegalStateException(e.getCause());
            }
        }

        @Override
        public void authorize(String principal, String name, String endpoint) {
            call("authorize", principal == null ? "-" : encode(principal), encode(name), encode(endpoint));
        }

        @Override
        public MemoryServer.Answer tryAcquire(String name, String owner, Duration leaseTime, String description, Hold hold) {
            String[] answer = call("acquire", encode(name), encode(owner), Long.toString(leaseTime.toNanos()),
                    encode(description), hold.kind().name(), Integer.toString(hold.permits()));
            return new MemoryServer.Answer(Boolean.parseBoolean(answer[0]), Long.parseLong(answer[1]),
                    Duration.ofNanos(Long.parseLong(answer[2])));
        }

        @Override
        public boolean extend(String name, String owner, Duration leaseTime) {
            return Boolean.parseBoolean(call("extend", encode(name), encode(owner), Long.toString(leaseTime.toNanos()))[0]);
        }

        @Override
        public boolean release(String name, String owner) {
            return Boolean.parseBoolean(call("release", encode(name), encode(owner))[0]);
        }

        @Override
        public boolean holds(String name, String owner) {
            return Boolean.parseBoolean(call("holds", encode(name), encode(owner))[0]);
        }

        @Override
        public void abandon(String name, String owner, boolean outcomeUnknown) {
            call("abandon", encode(name), encode(owner), Boolean.toString(outcomeUnknown));
        }

        /** Registers without blocking; the watch is {@linkplain Watch#active() active} once the gateway confirmed it. */
        @Override
        public Watch watch(String name, Runnable onChange) {
            String id = Long.toString(ids.incrementAndGet());
            watchers.put(id, onChange);
            CompletableFuture<Void> active = send("watch", encode(name), id).thenApply(answer -> null);
            return new Watch() {
                @Override
                public java.util.concurrent.CompletionStage<Void> active() {
                    return active;
                }

                @Override
                public void close() {
                    if (watchers.remove(id) != null) {
                        send("unwatch", id);
                    }
                }
            };
        }

        /** Registers without waiting, as the driver of this JVM's server does after its grant. */
        @Override
        public void onRevoke(String owner, java.util.function.Consumer<String> listener) {
            revocationListeners.put(owner, listener);
            send("onRevoke", encode(owner));
        }

        @Override
        public MemoryServer.Holder inspect(String name) {
            return holder(call("inspect", encode(name)), 0);
        }

        @Override
        public java.util.List<MemoryServer.Holder> holders(String prefix, int limit) {
            return holderList(call("holders", encode(prefix), Integer.toString(limit)));
        }

        @Override
        public java.util.List<MemoryServer.Holder> holdsOf(String key) {
            return holderList(call("holdsOf", encode(key)));
        }

        @Override
        public MemoryServer.Holder revokeHold(String key, long fence, String reason) {
            return holder(call("revokeHold", encode(key), Long.toString(fence), encode(reason)), 0);
        }

        private static java.util.List<MemoryServer.Holder> holderList(String[] encoded) {
            java.util.List<MemoryServer.Holder> all = new java.util.ArrayList<>();
            for (String one : encoded) {
                if (!one.isEmpty()) {
                    all.add(holder(decode(one).split(" ", -1), 0));
                }
            }
            return all;
        }

        @Override
        public MemoryServer.Holder revoke(String name, String reason) {
            return holder(call("revoke", encode(name), encode(reason)), 0);
        }

        @Override
        public String revocation(String owner) {
            String reason = call("revocation", encode(owner))[0];
            return reason.equals("-") ? null : decode(reason);
        }

        private static MemoryServer.Holder holder(String[] fields, int from) {
            if (fields[from].equals("-")) {
                return null;
            }
            return new MemoryServer.Holder(decode(fields[from]), decode(fields[from + 1]), decode(fields[from + 2]),
                    Long.parseLong(fields[from + 3]), Long.parseLong(fields[from + 4]), Long.parseLong(fields[from + 5]),
                    Integer.parseInt(fields[from + 6]), new Hold(Hold.Kind.valueOf(fields[from + 7]), Integer.parseInt(fields[from + 8])));
        }

        @Override
        public void forget(String owner) {
            revocationListeners.remove(owner);
            send("forget", encode(owner));
        }

        @Override
        public void renewed(int leases) {
            send("renewed", Integer.toString(leases)); // counted over there; nothing to wait for
        }

        @Override
        public long openSession(Runnable onEnd) {
            long session = Long.parseLong(call("openSession")[0]);
            sessionListeners.put(Long.toString(session), onEnd);
            return session;
        }

        @Override
        public void onSession(String owner, long session) {
            call("onSession", encode(owner), Long.toString(session));
        }

        /** The gateway's connection has no faults of its own: nothing is suspended or restored. */
        @Override
        public void connected(DriverContext context) {
        }

        /** The driver is closed: so is its connection to the gateway. */
        @Override
        public void disconnected(DriverContext context) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed either way
            }
        }

        private String[] call(String operation, String... arguments) {
            try {
                return send(operation, arguments).get(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new BackendUnavailableException(endpoint, "no answer from the gateway of " + endpoint + " to "
                        + operation + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BackendUnavailableException(endpoint, "interrupted while waiting for the gateway of " + endpoint, e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException failure) {
                    throw failure;
                }
                throw new IllegalStateException(e.getCause());
            }
        }

        private CompletableFuture<String[]> send(String operation, String... arguments) {
            long id = ids.incrementAndGet();
            CompletableFuture<String[]> answer = new CompletableFuture<>();
            pending.put(id, answer);
            String line = id + " " + operation + (arguments.length == 0 ? "" : " " + String.join(" ", arguments)) + "\n";
            synchronized (out) {
                try {
                    out.write(line);
                    out.flush();
                } catch (IOException e) {
                    pending.remove(id);
                    answer.completeExceptionally(new BackendUnavailableException(endpoint, "the connection to the gateway of "
                            + endpoint + " is lost: " + e.getMessage(), e));
                }
            }
            return answer;
        }

        private void readAnswers(BufferedReader in) {
            try (in) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    String[] fields = line.split(" ", -1);
                    if (fields[0].equals("!")) {
                        if (fields[1].equals("revoked")) {
                            java.util.function.Consumer<String> revoked = revocationListeners.remove(decode(fields[2]));
                            if (revoked != null) {
                                revoked.accept(fields.length > 3 ? decode(fields[3]) : null);
                            }
                            continue;
                        }
                        Runnable listener = fields[1].equals("changed") ? watchers.get(fields[2])
                                : sessionListeners.remove(fields[2]);
                        if (listener != null) {
                            listener.run();
                        }
                        continue;
                    }
                    CompletableFuture<String[]> answer = pending.remove(Long.parseLong(fields[0]));
                    if (answer == null) {
                        continue; // its caller gave up
                    }
                    String[] values = java.util.Arrays.copyOfRange(fields, 2, fields.length);
                    switch (fields[1]) {
                        case "ok" -> answer.complete(values);
                        case "denied" -> answer.completeExceptionally(new AccessDeniedException(decode(values[0]),
                                decode(values[1]), null));
                        case "unavailable" -> answer.completeExceptionally(new BackendUnavailableException(decode(values[0]),
                                decode(values[1]), null));
                        default -> answer.completeExceptionally(new IllegalStateException("the gateway of " + endpoint
                                + " failed: " + decode(values[0])));
                    }
                }
            } catch (IOException gone) {
                // the connection ended: every call still waiting gets no answer
            }
            BackendUnavailableException lost = new BackendUnavailableException(endpoint, "the connection to the gateway of "
                    + endpoint + " ended", null);
            pending.values().forEach(answer -> answer.completeExceptionally(lost));
            pending.clear();
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
