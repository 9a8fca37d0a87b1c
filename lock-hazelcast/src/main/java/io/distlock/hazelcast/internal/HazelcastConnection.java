package io.distlock.hazelcast.internal;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig;
import com.hazelcast.client.impl.clientside.DefaultClientConnectionManagerFactory;
import com.hazelcast.client.impl.clientside.HazelcastClientInstanceImpl;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.client.impl.connection.ClientConnection;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.cp.exception.CPGroupDestroyedException;
import com.hazelcast.cp.internal.datastructures.exception.WaitKeyCancelledException;
import com.hazelcast.cp.internal.session.SessionExpiredException;
import com.hazelcast.cp.lock.exception.LockOwnershipLostException;
import com.hazelcast.internal.serialization.Data;
import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;

/**
 * One Hazelcast client of one distlock client, and the way both drivers talk through it: Hazelcast's
 * client protocol messages ({@code FencedLock.TryLock}, {@code Map.Unlock}, ...) sent as they are,
 * each bounded by the operation timeout.
 *
 * <p>Why messages and not {@code FencedLock}/{@code IMap} proxies: both Hazelcast locks belong to the
 * <em>thread</em> that took them (and, on CP, to the client's CP session), while a distlock lease is
 * extended and released from any thread and a second lease of the same name from the same thread
 * must be refused (TCK 1.6). The proxies read the owner from the calling thread; the protocol
 * messages take it as an argument. So each request gets an owner id of its own (a thread id no
 * Hazelcast thread has) and every call of its lease names it, whichever thread makes the call.
 *
 * <p>The client reconnects for as long as it lives (Hazelcast would shut a client down once its
 * cluster connect timeout passes during an outage, leaving a driver that can never recover): the
 * connect timeout bounds only the first connection, which this class waits for itself.
 */
final class HazelcastConnection implements AutoCloseable {

    private static final Duration PROBE = Duration.ofMillis(300);

    private final HazelcastInstance client;
    private final HazelcastClientInstanceImpl internals;
    private final HazelcastEndpoint endpoint;
    private final long operationTimeoutMillis;

    private HazelcastConnection(HazelcastInstance client, HazelcastEndpoint endpoint, Duration operationTimeout) {
        this.client = client;
        this.internals = ((HazelcastClientProxy) client).client;
        this.endpoint = endpoint;
        this.operationTimeoutMillis = Math.max(1, operationTimeout.toMillis());
    }

    /**
     * Connects to the cluster and waits, within {@link LockOptions#connectTimeout()}, until a member
     * let the client in.
     *
     * @throws IllegalArgumentException    if credentials are given (Community has no client authentication)
     * @throws BackendUnavailableException if no member let the client in in time: the message names the
     *                                     members and says whether any answered at all (then the cluster
     *                                     name is the likely cause)
     */
    static HazelcastConnection open(HazelcastEndpoint endpoint, LockOptions options) {
        if (options.credentials().isPresent()) {
            throw new IllegalArgumentException("Hazelcast Community has no client authentication (an Enterprise feature;"
                    + " a Community member accepts any credentials): give no credentials for " + endpoint);
        }
        ClientConfig config = new ClientConfig();
        config.setClusterName(endpoint.clusterName());
        config.setInstanceName("distlock-" + UUID.randomUUID());
        config.getNetworkConfig().setAddresses(new ArrayList<>(endpoint.members()))
                .setSmartRouting(endpoint.smartRouting())
                .setConnectionTimeout(clampToInt(connectionAttemptMillis(options)));
        // A synchronous start: the client returns once it has the member list and the partition table
        // (calls made before, by an asynchronously started client, were seen to go unanswered).
        ClientConnectionStrategyConfig strategy = config.getConnectionStrategyConfig();
        strategy.setAsyncStart(false).setReconnectMode(ClientConnectionStrategyConfig.ReconnectMode.ON);
        // Keep reconnecting through any outage (a finite cluster connect timeout would shut the client
        // down for good once it passed during one); back off to a second at most. The first connection
        // is bounded by the connect timeout here, in open().
        strategy.getConnectionRetryConfig().setClusterConnectTimeoutMillis(-1).setInitialBackoffMillis(100)
                .setMaxBackoffMillis(1_000);
        // A member that stops answering (frozen, cut off) is given up after the heartbeat timeout, and
        // its calls retried on another: one operation timeout, not Hazelcast's default minute, in
        // which every call that lands on it would time out. It is also how long the client waits for
        // a member to answer its authentication, so at connect a member that accepts connections and
        // never answers costs that much before the next is tried: at most half the connect timeout,
        // which leaves the next member the other half (TCK rule 5.8). Within 1 s .. 60 s, with a
        // heartbeat every quarter of it (at most every second), so that an idle but live connection
        // is read from well within it.
        long heartbeatTimeout = Math.min(60_000, Math.max(1_000,
                Math.min(options.operationTimeout().toMillis(), options.connectTimeout().toMillis() / 2)));
        config.setProperty("hazelcast.client.heartbeat.interval", Long.toString(Math.min(1_000, heartbeatTimeout / 4)));
        config.setProperty("hazelcast.client.heartbeat.timeout", Long.toString(heartbeatTimeout));
        config.setProperty("hazelcast.client.invocation.timeout.seconds",
                Long.toString(Math.max(1, (options.operationTimeout().toMillis() + 999) / 1000)));
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.client.statistics.enabled", "false");
        HazelcastClientInstanceImpl client = newClient(config, endpoint);
        CompletableFuture<Void> started = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            try {
                client.start();
                started.complete(null);
            } catch (Throwable t) {
                started.completeExceptionally(t);
            }
        }, "distlock-hazelcast-connect");
        starter.setDaemon(true);
        starter.start();
        try {
            started.get(options.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            client.getLifecycleService().terminate();
            throw unreachable(endpoint, options.connectTimeout());
        } catch (InterruptedException e) {
            client.getLifecycleService().terminate();
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException(endpoint.toString(), "interrupted while connecting to " + endpoint, e);
        }
        return new HazelcastConnection(new HazelcastClientProxy(client), endpoint, options.operationTimeout());
    }

    /**
     * Makes the client as {@code HazelcastClient.newHazelcastClient} does, but with the
     * {@link NatAddressProvider} (Hazelcast's public way to start a client takes none) and outside
     * Hazelcast's static registry of named clients (each distlock client owns its own).
     */
    private static HazelcastClientInstanceImpl newClient(ClientConfig config, HazelcastEndpoint endpoint) {
        NatAddressProvider addresses;
        try {
            addresses = new NatAddressProvider(config.getNetworkConfig(), endpoint.natMap());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("a natMap host of " + endpoint + " does not resolve: " + e.getMessage(), e);
        }
        return new HazelcastClientInstanceImpl(config.getInstanceName(), config, null,
                new DefaultClientConnectionManagerFactory(), addresses);
    }

    private static BackendUnavailableException unreachable(HazelcastEndpoint endpoint, Duration timeout) {
        List<String> answering = new ArrayList<>();
        for (String member : endpoint.members()) {
            int colon = member.lastIndexOf(':');
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(member.substring(0, colon), Integer.parseInt(member.substring(colon + 1))),
                        (int) PROBE.toMillis());
                answering.add(member);
            } catch (IOException | RuntimeException e) {
                // not answering: what the message says
            }
        }
        String why = answering.isEmpty() ? "no member answered"
                : answering + " accepted a connection but did not let the client in: is the cluster name '"
                        + endpoint.clusterName() + "' right? (a member of another cluster refuses the client)";
        return new BackendUnavailableException(endpoint.toString(), "could not connect to the Hazelcast cluster at "
                + endpoint + " within " + timeout.toMillis() + " ms: " + why, null);
    }

    /**
     * How long one TCP connect to one member may take (its answer to the client's authentication is
     * bounded by the heartbeat timeout): the operation timeout, at least 1 s, and at most half the
     * connect timeout.
     * The client tries the listed members one after another, so a member that does not answer at
     * all (down behind a firewall that drops, or a frozen process whose kernel still accepts
     * connections) must cost one attempt, not the whole connect timeout: with the connect timeout
     * here, a cluster whose first listed member was such a host could not be connected to (TCK rule
     * 5.8). Half leaves the next member the other half.
     */
    private static long connectionAttemptMillis(LockOptions options) {
        return Math.min(options.connectTimeout().toMillis() / 2, Math.max(1_000, options.operationTimeout().toMillis()));
    }

    private static int clampToInt(long millis) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, millis));
    }

    /** @return the endpoint, for messages */
    HazelcastEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Tells the caller when the client loses its last connection to the cluster and when it has one
     * again (Hazelcast's {@code CLIENT_DISCONNECTED} and {@code CLIENT_CONNECTED}, run on Hazelcast's
     * thread: the callbacks must return at once). A client that lost its connection before this was
     * called is reported disconnected here, at once.
     *
     * @param disconnected run when the last connection is gone
     * @param connected    run when a connection is back
     */
    void onConnectionChange(Runnable disconnected, Runnable connected) {
        client.getLifecycleService().addLifecycleListener(event -> {
            if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_DISCONNECTED) {
                disconnected.run();
            } else if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
                connected.run();
            }
        });
        if (!connected()) {
            disconnected.run();
        }
    }

    /** @return whether the client has a connection to a member now */
    boolean connected() {
        return !internals.getConnectionManager().getActiveConnections().isEmpty();
    }

    /** @return the Hazelcast client's name, which members show as the owner of its CP sessions */
    String clientName() {
        return client.getName();
    }

    /**
     * Serializes a map key, as the map's partitioning and lock records see it.
     *
     * @param key the key
     * @return its serialized form
     */
    Data toData(Object key) {
        return internals.getSerializationService().toData(key);
    }

    /**
     * @param key a serialized key
     * @return the partition that owns it
     */
    int partitionOf(Data key) {
        return internals.getClientPartitionService().getPartitionId(key);
    }

    /**
     * @return the id of the cluster the client is connected to (its members' shared id, set by the
     *         master when the cluster started), if a connection is up
     */
    Optional<UUID> clusterId() {
        return internals.getConnectionManager().getActiveConnections().stream().map(ClientConnection::getClusterUuid)
                .filter(Objects::nonNull).findFirst();
    }

    /**
     * Sends a message, without waiting: to the owner of {@code partitionId}, or (-1) to any member
     * (a CP message: the member forwards it to its group's leader).
     *
     * @param request     the message
     * @param objectName  the name it is about, for Hazelcast's own diagnostics
     * @param partitionId the partition, or -1
     * @return the answer to come
     */
    CompletableFuture<ClientMessage> send(ClientMessage request, Object objectName, int partitionId) {
        ClientInvocation invocation = partitionId < 0 ? new ClientInvocation(internals, request, objectName)
                : new ClientInvocation(internals, request, objectName, partitionId);
        invocation.setInvocationTimeoutMillis(operationTimeoutMillis);
        return invocation.invoke();
    }

    /**
     * Waits for an answer until {@code deadlineNanos}.
     *
     * @param answer        what {@link #send} returned
     * @param deadlineNanos the deadline, on {@link System#nanoTime()}
     * @return the answer
     * @throws BackendUnavailableException if none came in time, or the connection failed
     * @throws RuntimeException            a definite refusal from the cluster, as Hazelcast raised it
     *                                     ({@link IllegalMonitorStateException} and the CP exceptions
     *                                     the drivers look for; see {@link #definite})
     * @throws IllegalStateException       if the client is shut down
     */
    ClientMessage await(CompletableFuture<ClientMessage> answer, long deadlineNanos) {
        try {
            return answer.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(false);
            throw new BackendUnavailableException(endpoint.toString(), "no answer from " + endpoint + " within "
                    + operationTimeoutMillis + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException(endpoint.toString(), "interrupted while waiting for " + endpoint, e);
        } catch (ExecutionException e) {
            throw translate(e.getCause() == null ? e : e.getCause());
        }
    }

    /**
     * Sends a message and waits for its answer, within the operation timeout.
     *
     * @param request     the message
     * @param objectName  the name it is about
     * @param partitionId the partition, or -1
     * @return the answer
     * @see #await
     */
    ClientMessage call(ClientMessage request, Object objectName, int partitionId) {
        return await(send(request, objectName, partitionId), deadline());
    }

    /**
     * Sends {@code count} requests with at most {@code window} of them unanswered, and hands each one's
     * answers on in the order they were sent, as soon as they are in: the next request goes out when
     * the oldest is done, not when a whole batch is. Many small requests (a renewal tick's) cost the
     * members' work on them and a round trip, not a round trip each — nor one per batch: waiting for
     * a batch's slowest answer before sending the next idled the members, and under load a tick of
     * 2,000 map extensions in batches of 300 took 560 ms of the 667 ms its leases had left.
     *
     * @param count   how many requests
     * @param window  how many may be unanswered at once
     * @param send    sends request {@code i}, returning what {@code receive} needs, or null for none sent
     * @param receive takes what request {@code i} was sent as
     * @param <S>     what a sent request is
     * @throws RuntimeException the first that {@code send} or {@code receive} threw: nothing more was
     *                          sent after it, and every request already sent was still received
     */
    static <S> void pipelined(int count, int window, IntFunction<S> send, ObjIntConsumer<S> receive) {
        record Sent<S>(int index, S sent) {
        }
        Deque<Sent<S>> unanswered = new ArrayDeque<>(Math.min(count, window));
        RuntimeException failure = null;
        for (int i = 0; i < count && failure == null; i++) {
            try {
                if (unanswered.size() == window) {
                    Sent<S> oldest = unanswered.removeFirst();
                    receive.accept(oldest.sent(), oldest.index());
                }
                S sent = send.apply(i);
                if (sent != null) {
                    unanswered.addLast(new Sent<>(i, sent));
                }
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        for (Sent<S> left : unanswered) {
            try {
                receive.accept(left.sent(), left.index());
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** @return the deadline of an operation started now */
    long deadline() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(operationTimeoutMillis);
    }

    private RuntimeException translate(Throwable failure) {
        if (definite(failure)) {
            return (RuntimeException) failure;
        }
        if (failure instanceof HazelcastInstanceNotActiveException) {
            return new IllegalStateException("the Hazelcast client of " + endpoint + " is shut down", failure);
        }
        return new BackendUnavailableException(endpoint.toString(), "no definite answer from " + endpoint + ": "
                + failure, failure);
    }

    /**
     * Whether a failure is the cluster's definite answer rather than "could not tell": an owner check
     * that failed, a CP session the group has closed, a wait cancelled, a group destroyed, an operation
     * the members do not support.
     *
     * @param failure what an answer failed with
     * @return true if it is an answer
     */
    static boolean definite(Throwable failure) {
        return failure instanceof IllegalMonitorStateException || failure instanceof SessionExpiredException
                || failure instanceof LockOwnershipLostException || failure instanceof WaitKeyCancelledException
                || failure instanceof CPGroupDestroyedException || failure instanceof UnsupportedOperationException;
    }

    /** Ends the client at once: never waits for a silent cluster (a graceful shutdown can take seconds). */
    @Override
    public void close() {
        client.getLifecycleService().terminate();
    }
}
