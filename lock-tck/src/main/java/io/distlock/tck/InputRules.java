package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.NoSuchBackendException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.distlock.tck.LockVerification.SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Group 5 of {@code lock-tck/SPEC.md}, input: bad names and durations, a closed client, malformed
 * URIs, an unreachable server and an unknown scheme, each rejected with a clear message that never
 * shows a password. A rule group of {@link LockVerification} (see {@link RuleGroup}).
 */
interface InputRules extends RuleGroup {

    /** Rule 5.1 (see SPEC.md). */
    @Test
    @DisplayName("5.1 bad lock names are rejected")
    default void required_5_1_badNames() {
        Rig rig = Rig.of(this);
        LockClient client = rig.client();
        assertThrows(NullPointerException.class, () -> client.lock(null), rig.msg("lock(null) must throw NullPointerException"));
        List<String> bad = List.of("", " ", "\t \n", "x".repeat(LockClient.MAX_NAME_LENGTH + 1),
                "a\u0000b", "a\nb", "a\rb", "a\u001bb", "a\u007fb", "a\u0085b");
        for (String name : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> client.lock(name),
                    rig.msg("lock(" + printable(name) + ") must throw IllegalArgumentException"));
            assertClearMessage(rig, e, "lock(" + printable(name) + ")");
        }
        for (String good : List.of("x".repeat(LockClient.MAX_NAME_LENGTH), rig.name + " with spaces", rig.name + "-\u00e9\u6f22")) {
            Lease lease = rig.acquireNow(client, good, rig.env.shortLease());
            assertEquals(good, lease.lockName(), rig.msg("lockName() differs from the name the lock was taken by"));
            lease.release();
        }
    }

    /**
     * Rule 5.2 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("5.2 bad lease times and waits are rejected, nothing held")
    default void required_5_2_badDurations() throws InterruptedException {
        Rig rig = Rig.of(this);
        LockClient client = rig.client();
        DistributedLock lock = client.lock(rig.name);
        Duration ok = rig.env.shortLease();
        Duration wait = rig.env.contentionWait();
        assertThrows(NullPointerException.class, () -> lock.tryAcquire(null), rig.msg("tryAcquire(null) must throw NullPointerException"));
        assertThrows(NullPointerException.class, () -> lock.tryAcquire(null, wait),
                rig.msg("tryAcquire(null, wait) must throw NullPointerException"));
        assertThrows(NullPointerException.class, () -> lock.tryAcquire(ok, null),
                rig.msg("tryAcquire(lease, null) must throw NullPointerException"));
        assertThrows(NullPointerException.class, () -> lock.acquire(null), rig.msg("acquire(null) must throw NullPointerException"));
        List<Duration> badLeases = List.of(Duration.ZERO, Duration.ofMillis(-1),
                DistributedLock.MIN_LEASE_TIME.minusNanos(1), DistributedLock.MAX_LEASE_TIME.plusMillis(1));
        for (Duration bad : badLeases) {
            expectIllegalArgument(rig, () -> rig.track(lock.tryAcquire(bad)), "tryAcquire(" + bad + ")");
            expectIllegalArgument(rig, () -> rig.track(lock.tryAcquire(bad, wait)), "tryAcquire(" + bad + ", " + wait + ")");
            expectIllegalArgument(rig, () -> rig.track(lock.acquire(bad)), "acquire(" + bad + ")");
        }
        expectIllegalArgument(rig, () -> rig.track(lock.tryAcquire(ok, Duration.ofMillis(-1))), "tryAcquire(" + ok + ", -1 ms)");

        Lease lease = rig.acquireNow(rig.client(), ok);
        if (rig.backend().has(Feature.LEASE_EXTENSION)) {
            for (Duration bad : badLeases) {
                expectIllegalArgument(rig, () -> lease.extend(bad), "extend(" + bad + ")");
            }
            assertThrows(NullPointerException.class, () -> lease.extend(null), rig.msg("extend(null) must throw NullPointerException"));
            assertTrue(lease.isValid(), rig.msg("a rejected extend ended the lease"));
        }
        lease.release();
        assertTrue(rig.track(lock.tryAcquire(ok)).isPresent(),
                rig.msg("after rejected calls, the same client could not acquire the free lock"));
    }

    private static void expectIllegalArgument(Rig rig, Executable call, String what) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call,
                rig.msg(what + " must throw IllegalArgumentException"));
        assertClearMessage(rig, e, what);
    }

    private static void assertClearMessage(Rig rig, Throwable e, String what) {
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), rig.msg(what + " threw " + e.getClass().getName()
                + " without a message"));
    }

    /**
     * Rule 5.3 (see SPEC.md).
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("5.3 a closed client releases its leases and refuses work")
    default void required_5_3_useAfterClose() throws InterruptedException {
        Rig rig = Rig.of(this);
        LockClient closing = rig.client();
        LockClient other = rig.client();
        String busyName = rig.name + "-busy";
        Lease held = rig.acquireNow(closing, rig.env.longLease());
        rig.acquireNow(other, busyName, rig.env.longLease());
        DistributedLock handle = closing.lock(rig.name + "-handle");
        DistributedLock busy = closing.lock(busyName);
        Rig.Waiter<Optional<Lease>> waiter = rig.start("waiter",
                () -> rig.track(busy.tryAcquire(rig.env.shortLease(), rig.env.longLease())));
        rig.awaitBlocked(waiter);

        long closed = System.nanoTime();
        rig.closeWithin(closing, "the closing client");

        Throwable woken = rig.failure(waiter, rig.env.defaultTimeout());
        assertTrue(woken instanceof IllegalStateException, rig.msg("a waiter of a closed client did not throw"
                + " IllegalStateException but " + (woken == null ? "returned normally" : woken)));
        Duration wake = Duration.ofNanos(waiter.finishedAtNanos - closed);
        assertTrue(wake.compareTo(rig.env.tolerance()) <= 0, rig.msg("a waiter of a closed client took "
                + TestEnvironment.millis(wake) + " to be woken; at most " + TestEnvironment.millis(rig.env.tolerance())));
        assertThrows(IllegalStateException.class, () -> closing.lock(rig.name),
                rig.msg("lock() after close must throw IllegalStateException"));
        assertThrows(IllegalStateException.class, () -> rig.track(handle.tryAcquire(rig.env.shortLease())),
                rig.msg("tryAcquire on a handle of a closed client must throw IllegalStateException"));
        assertThrows(IllegalStateException.class, () -> rig.track(handle.tryAcquire(rig.env.shortLease(), rig.env.contentionWait())),
                rig.msg("a waiting tryAcquire on a handle of a closed client must throw IllegalStateException"));
        assertThrows(IllegalStateException.class, () -> rig.track(handle.acquire(rig.env.shortLease())),
                rig.msg("acquire on a handle of a closed client must throw IllegalStateException"));

        assertFalse(held.isValid(), rig.msg("a lease of a closed client reports isValid() == true"));
        assertTrue(rig.track(other.lock(rig.name).tryAcquire(rig.env.shortLease())).isPresent(),
                rig.msg("a lease held when its client closed was not released: another client could not acquire"));
        held.release(); // a no-op after close
        rig.closeWithin(closing, "the closing client, a second time"); // idempotent
    }

    /** Rule 5.4 (see SPEC.md). */
    @Test
    @DisplayName("5.4 malformed URIs are rejected without showing the password")
    default void required_5_4_malformedUris() {
        Rig rig = Rig.of(this);
        String scheme = rig.backend().scheme();
        List<String> uris = new ArrayList<>(List.of(
                scheme + "://tck:" + SECRET + "@[::1",
                scheme + "://tck:" + SECRET + "@host/%zz",
                scheme + "://tck:" + SECRET + "@host name",
                "//tck:" + SECRET + "@host-without-scheme"));
        uris.addAll(rig.hooks.malformedUris());
        for (String uri : uris) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rig.track(Locks.connect(uri)),
                    rig.msg("Locks.connect must reject the malformed URI " + redacted(uri) + " with IllegalArgumentException"));
            assertClearMessage(rig, e, "Locks.connect(" + redacted(uri) + ")");
            assertNoSecret(rig, e, "Locks.connect(" + redacted(uri) + ")");
        }
    }

    /** Rule 5.5 (see SPEC.md). */
    @Test
    @DisplayName("5.5 an unreachable server is reported in time, naming the endpoint, not the password")
    default void required_5_5_unreachableServer() {
        Rig rig = Rig.of(this);
        Optional<String> uri = rig.hooks.unreachableUri();
        assertTrue(uri.isPresent(), rig.msg("the verification supplies no unreachableUri(): every backend"
                + " must show how it fails when its server cannot be reached"));
        Duration timeout = rig.env.connectTimeout();
        LockOptions options = LockOptions.builder().connectTimeout(timeout).operationTimeout(timeout).build();
        Duration bound = timeout.multipliedBy(2).plus(rig.env.tolerance());
        long start = System.nanoTime();
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> {
            LockClient client = rig.track(Locks.connect(URI.create(uri.get()), options));
            rig.track(client.lock(rig.name).tryAcquire(rig.env.shortLease()));
        }, rig.msg("neither connecting to nor acquiring from " + redacted(uri.get()) + " threw BackendUnavailableException"));
        Duration took = TestEnvironment.since(start);
        assertTrue(took.compareTo(bound) <= 0, rig.msg("BackendUnavailableException came after " + TestEnvironment.millis(took)
                + "; at most " + TestEnvironment.millis(bound) + " with a connect timeout of " + TestEnvironment.millis(timeout)));
        assertNoSecret(rig, e, "the BackendUnavailableException");
        assertTrue(e.endpoint() != null && !e.endpoint().isBlank(), rig.msg("BackendUnavailableException names no endpoint"));
        assertTrue(String.valueOf(e.getMessage()).contains(e.endpoint()),
                rig.msg("the message does not name the endpoint '" + e.endpoint() + "': " + e.getMessage()));
    }

    /** Rule 5.8 (see SPEC.md). */
    @Test
    @DisplayName("5.8 a listed endpoint that never answers, ahead of live ones, costs at most one timeout")
    default void required_5_8_silentEndpointFirst() throws Exception {
        Rig rig = Rig.of(this);
        String scheme = rig.backend().scheme(); // a client of the plain deployment first: the verdict knows the backend
        // A listener nobody accepts on: the kernel completes each handshake and queues what is sent,
        // and no answer ever comes, as from a frozen (SIGSTOPped) server.
        try (ServerSocket silent = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
            String endpoint = silent.getInetAddress().getHostAddress() + ":" + silent.getLocalPort();
            Optional<String> uri = rig.hooks.uriWithEndpointFirst(endpoint);
            assumeTrue(uri.isPresent(), () -> VerdictExtension.DOES_NOT_APPLY + "the URI of '" + scheme
                    + "' lists no alternative endpoints (the verification supplies no uriWithEndpointFirst())");
            // Twice the library's default connect timeout (4 s, scaled): a client must get past the
            // frozen endpoint within it, having given that endpoint only a part of it (ZooKeeper's client,
            // for one, waits a random 0-1 s before its next host, whatever it was told).
            Duration timeout = rig.env.connectTimeout().multipliedBy(4);
            LockOptions options = LockOptions.builder().connectTimeout(timeout).operationTimeout(timeout).build();
            Duration connectBound = timeout.plus(rig.env.tolerance());
            long start = System.nanoTime();
            // On a thread of its own: a client that waits on the silent endpoint without bound must fail
            // this rule, not hang the TCK (closing the listener at the end resets what it waits on).
            CompletableFuture<LockClient> connecting = CompletableFuture.supplyAsync(
                    () -> rig.track(Locks.connect(URI.create(uri.get()), options)));
            LockClient client;
            try {
                client = connecting.get(connectBound.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                connecting.thenAccept(LockClient::close);
                throw new AssertionError(rig.msg("connecting to " + redacted(uri.get()) + " took longer than "
                        + TestEnvironment.millis(connectBound) + " (the connect timeout of " + TestEnvironment.millis(timeout)
                        + " + tolerance): the silent " + endpoint + " listed first kept the client from the live endpoints"));
            } catch (ExecutionException e) {
                throw new AssertionError(rig.msg("connecting to " + redacted(uri.get()) + ", whose first endpoint " + endpoint
                        + " never answers but whose others are live, failed: " + e.getCause()), e.getCause());
            }
            rig.notes.add("connected past the silent endpoint in " + TestEnvironment.millis(TestEnvironment.since(start)));
            // Once connected, no operation waits on the silent endpoint again: each cycle well within one timeout.
            LockClient other = rig.client();
            Duration cycleBound = timeout.plus(rig.env.tolerance());
            for (int i = 0; i < SILENT_ENDPOINT_CYCLES; i++) {
                String name = rig.name + "-" + i;
                long cycle = System.nanoTime();
                Lease lease = rig.track(client.lock(name).tryAcquire(rig.env.longLease())).orElseThrow(() -> new AssertionError(
                        rig.msg("a single attempt on the free lock '" + name + "' found it busy")));
                assertTrue(other.lock(name).tryAcquire(rig.env.shortLease()).isEmpty(), rig.msg("another client of the"
                        + " deployment was granted '" + name + "' while the client connected past the silent endpoint held it"));
                lease.release();
                Duration took = TestEnvironment.since(cycle);
                assertTrue(took.compareTo(cycleBound) <= 0, rig.msg("acquire, probe and release of '" + name + "' took "
                        + TestEnvironment.millis(took) + "; at most " + TestEnvironment.millis(cycleBound)
                        + ": does the client go back to the silent " + endpoint + "?"));
                rig.track(other.lock(name).tryAcquire(rig.env.shortLease()).orElseThrow(() -> new AssertionError(
                        rig.msg("'" + name + "' was not free right after its release")))).release();
            }
        }
    }

    /** Rule 5.9 (see SPEC.md). */
    @Test
    @DisplayName("5.9 a server that accepts connections and never answers is reported in time, naming the endpoint")
    default void required_5_9_silentServer() throws Exception {
        Rig rig = Rig.of(this);
        String scheme = rig.backend().scheme(); // the verdict names the backend whatever happens below
        Optional<String> uri = rig.hooks.unreachableUri();
        assumeTrue(uri.isPresent(), () -> VerdictExtension.NOT_RUN + "the verification supplies no unreachableUri() (rule 5.5 fails for it)");
        // The endpoints of the unreachable URI, each made a listener nobody accepts on: the kernel
        // completes each handshake and queues what is sent, and no answer ever comes, as from a
        // frozen (SIGSTOPped) server, or a TLS port whose server is stuck before its handshake.
        List<Integer> ports = new ArrayList<>();
        Matcher endpoint = LOOPBACK_ENDPOINT.matcher(uri.get());
        while (endpoint.find()) {
            ports.add(Integer.valueOf(endpoint.group(1)));
        }
        assumeTrue(!ports.isEmpty(), () -> VerdictExtension.DOES_NOT_APPLY + "the unreachableUri() of '" + scheme
                + "' names no loopback endpoint (127.0.0.1:port) for the TCK to listen on");
        List<ServerSocket> silent = new ArrayList<>();
        try {
            for (int port : ports) {
                try {
                    silent.add(new ServerSocket(port, 64, InetAddress.getLoopbackAddress()));
                } catch (IOException taken) {
                    assumeTrue(false, () -> VerdictExtension.NOT_RUN + "port " + port + " of the unreachableUri() is taken: " + taken);
                }
            }
            Duration timeout = rig.env.connectTimeout();
            LockOptions options = LockOptions.builder().connectTimeout(timeout).operationTimeout(timeout).build();
            Duration bound = timeout.multipliedBy(2).plus(rig.env.tolerance());
            long start = System.nanoTime();
            // On a thread of its own: a client that waits for the first answer without bound must fail
            // this rule, not hang the TCK (closing the listeners at the end resets what it waits on).
            AtomicReference<LockClient> opened = new AtomicReference<>();
            CompletableFuture<Void> attempt = CompletableFuture.runAsync(() -> {
                LockClient client = rig.track(Locks.connect(URI.create(uri.get()), options));
                opened.set(client);
                rig.track(client.lock(rig.name).tryAcquire(rig.env.shortLease()));
            });
            Throwable failure;
            try {
                attempt.get(bound.toNanos(), TimeUnit.NANOSECONDS);
                failure = null;
            } catch (TimeoutException e) {
                // Whatever the late attempt opened is closed when it ends (the rig may be done by then).
                attempt.whenComplete((ok, late) -> Optional.ofNullable(opened.get()).ifPresent(LockClient::close));
                throw new AssertionError(rig.msg("connecting to " + redacted(uri.get()) + ", whose servers accept connections"
                        + " and never answer, and a single attempt had not failed after " + TestEnvironment.millis(bound)
                        + " (twice the connect timeout of " + TestEnvironment.millis(timeout) + " + tolerance): the client"
                        + " waits for an answer beyond its timeouts"));
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            Duration took = TestEnvironment.since(start);
            assertTrue(failure instanceof BackendUnavailableException, rig.msg("connecting to " + redacted(uri.get())
                    + ", whose servers accept connections and never answer, and a single attempt "
                    + (failure == null ? "succeeded" : "threw " + failure) + " instead of BackendUnavailableException"));
            BackendUnavailableException e = (BackendUnavailableException) failure;
            rig.notes.add("unavailable after " + TestEnvironment.millis(took));
            assertNoSecret(rig, e, "the BackendUnavailableException");
            assertTrue(e.endpoint() != null && !e.endpoint().isBlank(), rig.msg("BackendUnavailableException names no endpoint"));
            assertTrue(String.valueOf(e.getMessage()).contains(e.endpoint()),
                    rig.msg("the message does not name the endpoint '" + e.endpoint() + "': " + e.getMessage()));
        } finally {
            for (ServerSocket listener : silent) {
                listener.close();
            }
        }
    }

    /** A loopback {@code 127.0.0.1:port} in a URI, for rule 5.9. */
    Pattern LOOPBACK_ENDPOINT = Pattern.compile("127\\.0\\.0\\.1:([0-9]{1,5})");

    /** How many acquire-release cycles rule 5.8 runs on the client that connected past the silent endpoint. */
    int SILENT_ENDPOINT_CYCLES = 5;

    /** Rule 5.6 (see SPEC.md). */
    @Test
    @DisplayName("5.6 an unknown scheme is reported with the installed ones")
    default void required_5_6_unknownScheme() {
        Rig rig = Rig.of(this);
        String scheme = rig.backend().scheme();
        NoSuchBackendException e = assertThrows(NoSuchBackendException.class, () -> rig.track(Locks.connect("nosuch://x")),
                rig.msg("Locks.connect(\"nosuch://x\") must throw NoSuchBackendException"));
        assertEquals("nosuch", e.scheme(), rig.msg("NoSuchBackendException names the wrong scheme"));
        assertTrue(String.valueOf(e.getMessage()).contains("nosuch"), rig.msg("the message does not name the scheme: " + e.getMessage()));
        assertTrue(e.installedSchemes().contains(scheme), rig.msg("installedSchemes() " + e.installedSchemes()
                + " lacks '" + scheme + "', the backend under test"));
    }

    private static void assertNoSecret(Rig rig, Throwable e, String what) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t).contains(SECRET), rig.msg(what + " shows the password: " + t.getClass().getName()
                    + " in the cause chain contains it"));
            if (t instanceof BackendUnavailableException) {
                assertFalse(((BackendUnavailableException) t).endpoint().contains(SECRET),
                        rig.msg(what + " shows the password in endpoint()"));
            }
        }
    }

    private static String redacted(String uri) {
        return "'" + Redaction.uri(uri, SECRET) + "'";
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder("\"");
        if (s.length() > 40) {
            return "<" + s.length() + " chars>";
        }
        for (char c : s.toCharArray()) {
            b.append(Character.isISOControl(c) ? String.format(Locale.ROOT, "\\u%04x", (int) c) : String.valueOf(c));
        }
        return b.append('"').toString();
    }
}
