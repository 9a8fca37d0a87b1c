package io.distlock.etcd.internal;

import io.distlock.spi.TlsSettings;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TLS handshake with every member, tried once at connect with the client's own settings, so that
 * a refused certificate is reported as what it is. gRPC, which jetcd uses, treats a failed handshake
 * as a connection it could not make: it waits and tries again, and a call only ever times out ("did
 * not answer"), which would read as an outage. This check makes the same handshake (the same trust
 * and key managers, host-name verification, ALPN {@code h2}), then sends the HTTP/2 connection
 * preface and waits for the member's first bytes: under TLS 1.3 a server that wants a client
 * certificate it did not get says so only after the handshake, in an alert that this read receives.
 *
 * <p>A member that cannot be reached or does not answer in time is no TLS failure: that is left to
 * the connect's first call, which reports it as unavailable.
 */
final class TlsCheck {

    /** The HTTP/2 client connection preface, then an empty SETTINGS frame: a member answers with its own SETTINGS. */
    private static final byte[] PREFACE;

    static {
        byte[] magic = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[] settings = {0, 0, 0, 4, 0, 0, 0, 0, 0};
        PREFACE = new byte[magic.length + settings.length];
        System.arraycopy(magic, 0, PREFACE, 0, magic.length);
        System.arraycopy(settings, 0, PREFACE, magic.length, settings.length);
    }

    /** A member whose handshake failed, and how. */
    record Refusal(String host, Throwable failure) {
    }

    private TlsCheck() {
    }

    /**
     * Tries the handshake with every member at once, for up to {@code timeout}, and returns as soon
     * as one member refused it (the settings do not fit the cluster) or one accepted it (they do; a
     * member that does not answer is not waited for).
     *
     * @param hosts    {@code host:port} of every member
     * @param tls      the client's TLS settings
     * @param timeout  how long to try in all
     * @return the first member whose handshake failed, if one did before any succeeded
     */
    static Optional<Refusal> firstRefusal(List<String> hosts, TlsSettings tls, Duration timeout) {
        javax.net.ssl.SSLSocketFactory factory = tls.sslContext().getSocketFactory();
        CompletableFuture<Optional<Refusal>> verdict = new CompletableFuture<>();
        AtomicInteger undecided = new AtomicInteger(hosts.size());
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String host : hosts) {
            Thread thread = new Thread(() -> {
                Object outcome = null;
                try {
                    outcome = handshakeOrDropped(factory, host, deadline);
                } finally {
                    if (outcome instanceof Refusal refusal) {
                        verdict.complete(Optional.of(refusal));
                    } else if (outcome == ACCEPTED || undecided.decrementAndGet() == 0) {
                        verdict.complete(Optional.empty());
                    }
                }
            }, "distlock-etcd-tls-check");
            thread.setDaemon(true);
            thread.start();
        }
        try {
            return verdict.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty(); // no member answered in time: not a TLS failure
        }
    }

    /**
     * {@link #handshake}, and when the member drops it — accepts the connection and closes or resets
     * it before the handshake ends — a look at whether the member speaks plaintext on the port: etcd
     * serving plain HTTP there closes the connection on the ClientHello, with a FIN (the JDK then says
     * "Remote host terminated the handshake", an {@link SSLException}, a refusal already) or, when it
     * closed before it had read the whole ClientHello, with a reset (a plain "Connection reset"). A
     * reset alone proves nothing (a dropped link resets too): only a member that answers the HTTP/2
     * preface in plaintext is refused for it; otherwise the member counts as not reached, and the
     * connect's first call reports what it finds.
     *
     * @return a {@link Refusal}, {@link #ACCEPTED} or {@link #UNREACHED}
     */
    private static Object handshakeOrDropped(javax.net.ssl.SSLSocketFactory factory, String host, long deadlineNanos) {
        Object outcome = handshake(factory, host, Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())));
        if (!(outcome instanceof Dropped dropped)) {
            return outcome;
        }
        if (!answersPlaintext(host, Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())))) {
            return UNREACHED;
        }
        SSLHandshakeException refusal = new SSLHandshakeException("the member dropped the TLS handshake (" + dropped.failure()
                + ") and answers the HTTP/2 preface in plaintext");
        refusal.initCause(dropped.failure());
        return new Refusal(host, refusal);
    }

    /** A member that accepted the connection and closed or reset it before the handshake ended. */
    private record Dropped(IOException failure) {
    }

    /**
     * @return true if the member at {@code hostPort} answers the HTTP/2 connection preface, sent in
     *         plaintext, with a frame (etcd's gRPC port answers with its SETTINGS) or an HTTP/1 status line
     */
    private static boolean answersPlaintext(String hostPort, Duration timeout) {
        int millis = millis(timeout);
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host(hostPort), port(hostPort)), millis);
            plain.setSoTimeout(millis);
            plain.getOutputStream().write(PREFACE);
            plain.getOutputStream().flush();
            byte[] head = plain.getInputStream().readNBytes(9);
            boolean settingsFrame = head.length == 9 && head[3] == 4; // frame type 4: SETTINGS
            boolean http1 = head.length >= 5 && new String(head, 0, 5, StandardCharsets.US_ASCII).equals("HTTP/");
            return settingsFrame || http1;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** @return the host of {@code host:port}, an IPv6 address without its brackets */
    private static String host(String hostPort) {
        String host = hostPort.substring(0, hostPort.lastIndexOf(':'));
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** @return the port of {@code host:port} */
    private static int port(String hostPort) {
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    /** @return {@code timeout} as a socket timeout: whole milliseconds, at least 1 */
    private static int millis(Duration timeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }

    /** A member that completed the handshake and answered the preface. */
    private static final Object ACCEPTED = new Object();
    /** A member that could not be reached, or did not answer in time. */
    private static final Object UNREACHED = new Object();

    /** @return a {@link Refusal}, {@link Dropped}, {@link #ACCEPTED} or {@link #UNREACHED} */
    private static Object handshake(javax.net.ssl.SSLSocketFactory factory, String hostPort, Duration timeout) {
        String host = host(hostPort);
        int port = port(hostPort);
        int millis = millis(timeout);
        try (Socket plain = new Socket()) {
            try {
                plain.connect(new InetSocketAddress(host, port), millis);
            } catch (IOException | RuntimeException e) {
                return UNREACHED; // refused, unreachable or slow: the connect's first call reports it
            }
            plain.setSoTimeout(millis);
            try (SSLSocket socket = (SSLSocket) factory.createSocket(plain, host, port, false)) {
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                parameters.setApplicationProtocols(new String[] {"h2"});
                if (!Character.isDigit(host.charAt(host.length() - 1)) && !host.contains(":")) {
                    parameters.setServerNames(List.of(new SNIHostName(host)));
                }
                socket.setSSLParameters(parameters);
                try {
                    socket.startHandshake();
                } catch (SocketException | EOFException dropped) {
                    return new Dropped(dropped); // closed or reset mid-handshake (a timeout is not a drop)
                }
                OutputStream out = socket.getOutputStream();
                out.write(PREFACE);
                out.flush();
                InputStream in = socket.getInputStream();
                // The member's SETTINGS, or the alert of a refused client certificate; an end of
                // stream tells nothing.
                return in.read() >= 0 ? ACCEPTED : UNREACHED;
            }
        } catch (SSLException e) {
            return new Refusal(hostPort, e);
        } catch (IOException | RuntimeException e) {
            return UNREACHED; // unreachable, reset or slow: the connect's first call reports it
        }
    }
}
