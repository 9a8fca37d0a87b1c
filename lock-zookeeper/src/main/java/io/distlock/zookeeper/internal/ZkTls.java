package io.distlock.zookeeper.internal;

import io.distlock.AuthenticationException;
import io.distlock.spi.ServerList;
import io.distlock.spi.TlsSettings;
import org.apache.zookeeper.client.ZKClientConfig;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * TLS for one client: the properties of its own {@link ZKClientConfig} (never JVM system
 * properties, so clients of one JVM may trust different servers), and a probe that tells a
 * refused handshake from an unreachable server.
 *
 * <p>Why a probe: ZooKeeper's client treats a failed TLS handshake like a broken connection and
 * tries again, server after server, until the caller gives up; a connect would then fail as
 * "unavailable" after its whole timeout. The probe runs beside the client's own connect: one TLS
 * handshake, with the same trust and key stores and host-name verification, to the first server
 * that accepts a TCP connection. If the server's certificate is refused (untrusted, or not
 * naming the host), or the server refuses the client's (TLS 1.3 says so only after the
 * handshake, so the probe then reads until the client's own connect succeeds), the connect fails at
 * once with an {@link AuthenticationException}.
 */
final class ZkTls {

    private static final String NETTY_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNetty";

    private final TlsSettings settings;
    private final SSLContext context;

    ZkTls(TlsSettings settings) {
        this.settings = settings;
        this.context = settings.sslContext();
    }

    /** Sets TLS in {@code config}: the secure Netty socket, the stores (as files), host-name verification on. */
    void configure(ZKClientConfig config) {
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, NETTY_SOCKET);
        config.setProperty("zookeeper.ssl.hostnameVerification", "true");
        settings.trustStoreFile().ifPresent(file -> {
            config.setProperty("zookeeper.ssl.trustStore.location", file.toString());
            config.setProperty("zookeeper.ssl.trustStore.type", settings.trustStoreType());
            settings.trustStorePassword().ifPresent(p -> config.setProperty("zookeeper.ssl.trustStore.password", new String(p)));
        });
        settings.keyStoreFile().ifPresent(file -> {
            config.setProperty("zookeeper.ssl.keyStore.location", file.toString());
            config.setProperty("zookeeper.ssl.keyStore.type", settings.keyStoreType());
            settings.keyStorePassword().ifPresent(p -> config.setProperty("zookeeper.ssl.keyStore.password", new String(p)));
        });
    }

    /**
     * A handshake with the first of {@code hosts} that accepts a connection, off the caller's thread.
     * {@link Probe#handshake} completes with null once a handshake succeeded (or no host could be
     * reached: nothing learned), or with the refusal; {@link Probe#refused} completes only with a
     * refusal, also one that comes after the handshake.
     */
    Probe probe(List<String> hosts, String endpoint, long deadlineNanos) {
        Probe probe = new Probe();
        Thread thread = new Thread(() -> probe.run(hosts, endpoint, deadlineNanos), "distlock-zookeeper-tls-probe");
        thread.setDaemon(true);
        thread.start();
        return probe;
    }

    final class Probe implements AutoCloseable {
        final CompletableFuture<AuthenticationException> handshake = new CompletableFuture<>();
        final CompletableFuture<AuthenticationException> refused = new CompletableFuture<>();
        private volatile Socket socket;
        private volatile boolean closed;

        private void run(List<String> hosts, String endpoint, long deadlineNanos) {
            try {
                for (int k = 0; k < hosts.size(); k++) {
                    String host = hosts.get(k);
                    int colon = host.lastIndexOf(':');
                    String name = host.substring(0, colon);
                    if (name.startsWith("[")) {
                        name = name.substring(1, name.length() - 1);
                    }
                    int port = Integer.parseInt(host.substring(colon + 1));
                    // A frozen server must leave the next one time to answer, as the client itself moves on (see ZkHosts).
                    int budget = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(
                            ServerList.turnDeadline(deadlineNanos, k, hosts.size()) - System.nanoTime()));
                    Socket plain = new Socket();
                    socket = plain;
                    if (closed) {
                        return;
                    }
                    try {
                        plain.connect(new InetSocketAddress(name, port), budget);
                    } catch (IOException unreachable) {
                        plain.close();
                        continue; // the client will try the next server too
                    }
                    SSLSocket secure = (SSLSocket) context.getSocketFactory().createSocket(plain, name, port, true);
                    socket = secure;
                    SSLParameters parameters = secure.getSSLParameters();
                    parameters.setEndpointIdentificationAlgorithm("HTTPS");
                    secure.setSSLParameters(parameters);
                    secure.setSoTimeout(budget);
                    try {
                        secure.startHandshake();
                    } catch (SSLException e) {
                        AuthenticationException refusal = refusal(endpoint, host, e);
                        refused.complete(refusal);
                        handshake.complete(refusal);
                        return;
                    } catch (SocketTimeoutException silent) {
                        secure.close();
                        continue; // accepted and never answered: nothing learned from this host, try the next
                    }
                    handshake.complete(null);
                    // A server refusing the client's certificate says so after a TLS 1.3 handshake: read
                    // (the server sends nothing before the client's connect request) until closed.
                    try {
                        secure.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
                        secure.getInputStream().read();
                    } catch (SSLException e) {
                        if (!closed) {
                            refused.complete(refusal(endpoint, host, e));
                        }
                    }
                    return;
                }
            } catch (IOException | RuntimeException e) {
                // nothing learned: the client's own connect decides
            } finally {
                handshake.complete(null);
                close();
            }
        }

        private AuthenticationException refusal(String endpoint, String host, SSLException e) {
            return new AuthenticationException(endpoint, "the TLS handshake with ZooKeeper at " + host + " (" + endpoint
                    + ") failed: " + e.getMessage() + " (is the server's certificate trusted by the trustStore, "
                    + settings + ", and issued for " + host.substring(0, host.lastIndexOf(':'))
                    + "? does the server require a client certificate, keyStore?)", e);
        }

        @Override
        public void close() {
            closed = true;
            Socket open = socket;
            if (open != null) {
                try {
                    open.close();
                } catch (IOException | RuntimeException ignored) {
                    // closing a probe
                }
            }
        }
    }
}
