package io.distlock.etcd.internal;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.Backoff;
import io.distlock.spi.DriverContext;
import io.distlock.spi.TlsSettings;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.NoSuchLeaseException;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import javax.net.ssl.SSLException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One client's connection to an etcd cluster and its <b>session</b>: one etcd lease, kept alive by
 * this class, to which every key the client writes is bound (what etcd's own
 * {@code concurrency.Session} does). If the process dies, the lease expires after its TTL and the
 * server deletes every key bound to it.
 *
 * <p>Keep-alive: every third of the granted TTL, one {@code LeaseKeepAlive} exchange, on a thread of
 * its own. Each answer tells the engine the session was heard ({@link DriverContext#sessionConfirmed},
 * named by its lease id: no lease bound to it is valid past the send time of its last answered
 * keep-alive plus the TTL; a put bound to the lease proves nothing of the kind, as it does not
 * refresh the TTL).
 * A keep-alive without an answer suspends the client's leases ({@link Listener#suspended()}) until one
 * is answered again ({@link Listener#restored()}); an answer that the lease is gone (the server let it
 * expire, or an operator revoked it) loses the session ({@link Listener#lost(long)}) and a new lease
 * is granted for the client's next requests.
 *
 * <p>Every remote call is bounded by the operation timeout and translated here: no answer in time, or
 * a transport failure, is {@link BackendUnavailableException} (the outcome is unknown); a refused
 * identity or TLS handshake is {@link AuthenticationException}, a refused permission
 * {@link AccessDeniedException}, any other refusal (a bad request) {@link LockException}. Messages
 * name the endpoints and the user, never the password.
 *
 * <p>Credentials are read when the jetcd client is built: at the connect, and again when the
 * server refuses them on a live session ({@link #reauthenticate}), so a supplier's rotated password
 * is picked up without losing the session.
 */
final class EtcdSession implements AutoCloseable {

    /** What the session tells the driver. Called on the session's own thread. */
    interface Listener {
        /** A keep-alive went unanswered: the session may or may not live on. */
        void suspended();

        /** A keep-alive was answered after a suspension: the same lease lives on. */
        void restored();

        /** A keep-alive was answered (every third of the session TTL). */
        void heard();

        /**
         * The server answered that the lease is gone: every key bound to it is gone too.
         *
         * @param leaseId the lost lease
         */
        void lost(long leaseId);
    }

    /**
     * The longest {@link #close()} waits for the session lease's revoke: an answer from a member that
     * answers at all comes in milliseconds, and it leaves room in the second {@code close()} may take
     * beyond its batch's operation timeout for closing the channel.
     */
    static final Duration REVOKE_ON_CLOSE_WAIT = Duration.ofMillis(500);

    /** How the message of a failed TLS handshake starts (new credentials cannot help it). */
    private static final String TLS_HANDSHAKE = "the TLS handshake";

    /** Between resends of a call whose transport failed: such a failure comes back at once. */
    private static final Backoff RESEND = Backoff.fixed(Duration.ofMillis(50));

    /** The largest answer accepted: 256 MiB, a session of about five million keys of 50 bytes. */
    static final int MAX_ANSWER_BYTES = 256 * 1024 * 1024;

    private final EtcdEndpoint endpoint;
    /** The user this client authenticates as, if any: messages name it. */
    private volatile String user;
    /** The password, only to mask it should the server or a library ever echo it; never shown. */
    private volatile String password;
    /** Where the credentials come from: read at the connect and again at each rebuild of the jetcd client. */
    private final Supplier<Optional<Credentials>> credentials;
    private final LockOptions options;
    /** The jetcd client and its parts; replaced as a whole when the credentials changed ({@link #reauthenticate}). */
    private volatile Connection connection;
    private final Duration operationTimeout;
    /** How long one attempt of a call waits before it is sent again (to another member, round-robin). */
    private final Duration attemptTimeout;
    private final Duration requestedTtl;
    private final DriverContext context;
    private final Listener listener;
    private final ScheduledExecutorService keeper;
    private final Object sessionLock = new Object();
    /** The session lease, or 0 while there is none (lost and not yet granted again). */
    private volatile long leaseId;
    private volatile Duration grantedTtl;
    private volatile boolean suspended;
    private volatile boolean closed;
    /** Set once the connect succeeded: from then on a refused identity makes the client read its credentials again. */
    private volatile boolean opened;
    /**
     * Completed when closing starts: a call in flight then stops waiting for its answer at once.
     * jetcd does not fail a call whose channel is shut down until the attempt's own timeout, so
     * without this a thread in an acquire would learn of the close only up to an attempt later.
     */
    private final CompletableFuture<Object> closing = new CompletableFuture<>();

    /** One jetcd client and the parts of it this backend uses. */
    private record Connection(Client client, KV kv, Lease leases, Watch watches) {
        Connection(Client client) {
            this(client, client.getKVClient(), client.getLeaseClient(), client.getWatchClient());
        }
    }

    private EtcdSession(EtcdEndpoint endpoint, Supplier<Optional<Credentials>> credentials, LockOptions options,
                        DriverContext context, Listener listener) {
        this.endpoint = endpoint;
        this.credentials = credentials;
        this.options = options;
        this.operationTimeout = options.operationTimeout();
        // A quarter of the operation timeout, at least 500 ms: room for a slow member's round trip
        // and an fsync, and for three more attempts (a cluster of up to five members with two hung).
        Duration quarter = operationTimeout.dividedBy(4);
        this.attemptTimeout = quarter.compareTo(Duration.ofMillis(500)) >= 0 ? quarter
                : operationTimeout.compareTo(Duration.ofMillis(500)) < 0 ? operationTimeout : Duration.ofMillis(500);
        this.requestedTtl = endpoint.sessionTtl();
        this.context = context;
        this.listener = listener;
        this.connection = connect(credentials.get());
        this.keeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-etcd-session");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Builds a jetcd client that logs in with {@code given}; remembers the user and password for messages. */
    private Connection connect(Optional<Credentials> given) {
        String scheme = endpoint.tls().isPresent() ? "https://" : "http://";
        ClientBuilder builder = Client.builder()
                .endpoints(endpoint.hosts().stream().map(host -> scheme + host).toArray(String[]::new))
                .connectTimeout(options.connectTimeout())
                // jetcd retries a call that failed for want of a connection; never past our own bound.
                .retryMaxDuration(options.operationTimeout())
                .keepaliveTime(Duration.ofSeconds(10))
                .keepaliveTimeout(options.operationTimeout())
                // One LeaseTimeToLive answer lists every key of the session (a renewal tick's single
                // call): gRPC's default 4 MiB limit would end renewals near 80,000 leases.
                .maxInboundMessageSize(MAX_ANSWER_BYTES);
        if (given.isPresent()) {
            char[] secret = given.get().password();
            String name = given.get().username().orElseThrow();
            String pass = new String(secret);
            java.util.Arrays.fill(secret, '\0');
            builder.user(bytes(name)).password(bytes(pass));
            this.password = pass;
            this.user = name;
        } else {
            this.password = null;
            this.user = null;
        }
        endpoint.tls().ifPresent(tls -> tls(builder, tls));
        return new Connection(builder.build());
    }

    /**
     * The server refused this client's identity on a live session: most likely the password was
     * changed (etcd then drops the user's tokens, and jetcd's new login with the old password
     * fails). Reads the credentials again and, if they differ from the ones in use, replaces the
     * jetcd client with one that logs in with them. The session lease is the server's and lives on
     * (a keep-alive needs no permission); calls in flight on the old client are sent again on the
     * new one, and watches broken by its close make their waiters look again.
     *
     * @return true if the client was replaced
     */
    private synchronized boolean reauthenticate() {
        Optional<Credentials> fresh = credentials.get();
        String freshUser = fresh.flatMap(Credentials::username).orElse(null);
        char[] freshPassword = fresh.map(Credentials::password).orElse(null);
        try {
            boolean same = java.util.Objects.equals(freshUser, user) && (freshPassword == null ? password == null
                    : password != null && java.util.Arrays.equals(freshPassword, password.toCharArray()));
            if (same || closed) {
                return false;
            }
        } finally {
            if (freshPassword != null) {
                java.util.Arrays.fill(freshPassword, '\0');
            }
        }
        Connection old = connection;
        connection = connect(fresh);
        old.client().close();
        return true;
    }

    /**
     * TLS to every member with the settings' trust and key managers, through gRPC's Netty TLS
     * defaults (ALPN h2). gRPC verifies the server's host name against its certificate; nothing here
     * turns that off.
     */
    private void tls(ClientBuilder builder, TlsSettings tls) {
        try {
            builder.sslContext(ssl -> {
                ssl.trustManager(tls.trustManagers());
                tls.keyManagers().ifPresent(ssl::keyManager);
            });
        } catch (SSLException e) {
            throw new IllegalArgumentException("cannot build the TLS context for " + endpoint + " from " + tls + ": "
                    + e.getClass().getSimpleName());
        }
    }

    /**
     * Connects: grants the session lease within the connect timeout, checks that the server did not
     * raise its TTL (a TTL below the server's minimum), checks that this client may read and write
     * under its prefix, and starts the keep-alive.
     *
     * @param credentials where the user and password come from (none: no authentication); read now and again
     *                    when the server refuses them on a live session
     * @throws BackendUnavailableException if no member answers within the connect timeout
     * @throws IllegalArgumentException    if {@code sessionTtl} is below the server's minimum lease TTL
     * @throws AuthenticationException     if the server refuses the credentials, or the TLS handshake fails
     * @throws AccessDeniedException       if the user may not read and write under the prefix
     */
    static EtcdSession open(EtcdEndpoint endpoint, Supplier<Optional<Credentials>> credentials, LockOptions options,
                            DriverContext context, Listener listener) {
        EtcdSession session = new EtcdSession(endpoint, credentials, options, context, listener);
        try {
            long start = System.nanoTime();
            if (endpoint.tls().isPresent()) {
                Optional<TlsCheck.Refusal> refused = TlsCheck.firstRefusal(endpoint.hosts(), endpoint.tls().get(),
                        options.connectTimeout());
                if (refused.isPresent()) {
                    throw session.handshakeFailed(refused.get(), "connect");
                }
            }
            // What the TLS check left of the connect timeout (all of it but a few ms, unless no member answered it).
            Duration left = options.connectTimeout().minusNanos(System.nanoTime() - start);
            if (left.isNegative() || left.isZero()) {
                throw new BackendUnavailableException(session.endpointNames(), "no member of etcd at " + endpoint
                        + " finished a TLS handshake within the connect timeout of " + options.connectTimeout().toMillis() + " ms", null);
            }
            long sent = System.nanoTime();
            LeaseGrantResponse granted = session.call(() -> session.leases().grant(session.requestedTtl.toSeconds()), null,
                    left, "grant the client's session lease");
            if (granted.getTTL() > session.requestedTtl.toSeconds()) {
                session.leases().revoke(granted.getID());
                throw new IllegalArgumentException("sessionTtl=" + session.requestedTtl.toSeconds() + " s is below the"
                        + " minimum lease TTL of " + endpoint + " (" + granted.getTTL() + " s: 1.5 election timeouts,"
                        + " rounded up); ask for " + granted.getTTL() + " s or more");
            }
            session.grantedTtl = Duration.ofSeconds(granted.getTTL());
            context.sessionConfirmed(granted.getID(), sent, session.grantedTtl); // before any key is bound to it
            session.leaseId = granted.getID();
            session.checkAccess(options.connectTimeout());
            session.keeper.schedule(session::keepAlive, session.keepAlivePeriod().toNanos(), TimeUnit.NANOSECONDS);
            session.opened = true;
            return session;
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    /**
     * Reads and deletes a key under the prefix that no lock ever uses, in one transaction: etcd
     * checks the permission of every operation of a transaction, so a user who may not read or
     * write here is refused now, not at the first acquire. A user who may only read there connects:
     * an inspector ({@code LockClient.inspect}, {@code holders}); its first acquire is refused.
     */
    private void checkAccess(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        ByteSequence probe = bytes(EtcdKeys.probe(endpoint.prefix()));
        try {
            call(() -> kv().txn().Then(Op.get(probe, GetOption.DEFAULT), Op.delete(probe, DeleteOption.DEFAULT)).commit(), null,
                    timeout, "check read and write access under " + endpoint.prefix());
        } catch (AccessDeniedException writeRefused) {
            try {
                call(() -> kv().get(probe, GetOption.builder().withCountOnly(true).build()), null,
                        Duration.ofNanos(Math.max(1, deadline - System.nanoTime())), "check read access under " + endpoint.prefix());
            } catch (AccessDeniedException readRefused) {
                throw writeRefused;
            }
        }
    }

    private Duration keepAlivePeriod() {
        Duration ttl = grantedTtl == null ? requestedTtl : grantedTtl;
        return ttl.dividedBy(3);
    }

    /** One keep-alive exchange, then the next one scheduled; never throws. */
    private void keepAlive() {
        if (closed) {
            return;
        }
        try {
            long id = leaseId;
            if (id == 0) {
                renew();
            } else {
                long sent = System.nanoTime();
                LeaseKeepAliveResponse answer;
                try {
                    // Two attempts (round-robin: two members) before the leases are suspended: one
                    // hung member must not make every lease flicker invalid, two unanswered ones say
                    // this client cannot tell any more.
                    Duration twoAttempts = attemptTimeout.multipliedBy(2);
                    answer = call(() -> leases().keepAliveOnce(id), null,
                            twoAttempts.compareTo(operationTimeout) < 0 ? twoAttempts : operationTimeout, "keep the client's session alive");
                } catch (SessionGone e) {
                    answer = null;
                }
                if (answer == null || answer.getTTL() <= 0) {
                    sessionLost(id);
                } else {
                    context.sessionConfirmed(id, sent, grantedTtl);
                    if (suspended) {
                        suspended = false;
                        listener.restored();
                    }
                    listener.heard();
                }
            }
        } catch (RuntimeException e) {
            if (!suspended && !closed) {
                suspended = true;
                listener.suspended();
            }
            if (e instanceof AuthenticationException && !e.getMessage().startsWith(TLS_HANDSHAKE)) {
                try {
                    reauthenticate(); // the next tick (in 200 ms) tries with the new credentials, if they changed
                } catch (RuntimeException again) {
                    // the supplier failed, or the new client could not be built: the next refusal tries again
                }
            }
        } finally {
            if (!closed) {
                keeper.schedule(this::keepAlive, suspended ? Math.min(keepAlivePeriod().toMillis(), 200) : keepAlivePeriod().toMillis(),
                        TimeUnit.MILLISECONDS);
            }
        }
    }

    /** The server said the lease is gone: the driver loses what it held, and the next requests get a new lease. */
    void sessionLost(long id) {
        synchronized (sessionLock) {
            if (leaseId != id || id == 0) {
                return;
            }
            leaseId = 0;
        }
        listener.lost(id);
        keeper.execute(() -> {
            try {
                renew();
            } catch (RuntimeException e) {
                // the next keep-alive tick tries again
            }
        });
    }

    /**
     * Grants a new session lease if there is none. Once granted, a suspension ends: every lease of
     * the old session was reported lost before, so nothing the client still holds can have been
     * given to someone else.
     */
    private void renew() {
        synchronized (sessionLock) {
            if (leaseId != 0 || closed) {
                return;
            }
            long sent = System.nanoTime();
            LeaseGrantResponse granted = call(() -> leases().grant(requestedTtl.toSeconds()), "grant a new session lease");
            grantedTtl = Duration.ofSeconds(granted.getTTL());
            context.sessionConfirmed(granted.getID(), sent, grantedTtl); // before any key is bound to it
            leaseId = granted.getID();
        }
        if (suspended) {
            suspended = false;
            listener.restored();
        }
    }

    /**
     * @return the session lease to bind new keys to
     * @throws BackendUnavailableException if the session was lost and no new lease could be granted yet
     */
    long leaseId() {
        long id = leaseId;
        if (id == 0) {
            renew();
            id = leaseId;
        }
        return id;
    }

    /** @return the session lease, or 0 while there is none (never waits for a new one) */
    long leaseIdIfAny() {
        return leaseId;
    }

    /** @return true unless a keep-alive went unanswered and none has been answered since */
    boolean connected() {
        return !suspended && leaseId != 0;
    }

    KV kv() {
        return connection.kv();
    }

    Lease leases() {
        return connection.leases();
    }

    Watch watches() {
        return connection.watches();
    }

    EtcdEndpoint endpoint() {
        return endpoint;
    }

    Duration operationTimeout() {
        return operationTimeout;
    }

    /** Signals that the server answered that a lease is gone (a keep-alive, a put bound to it). */
    static final class SessionGone extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SessionGone(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Makes a call within the operation timeout; see {@link #call(Supplier, CompletableFuture, Duration, String, Runnable)}.
     */
    <T> T call(Supplier<CompletableFuture<T>> send, String what) {
        return call(send, null, operationTimeout, what);
    }

    /**
     * Makes a call within the operation timeout, telling {@code onResend} each time it is sent again
     * (an earlier attempt may still be applied later by the member that did not answer).
     */
    <T> T call(Supplier<CompletableFuture<T>> send, Runnable onResend, String what) {
        return call(send, null, operationTimeout, what, onResend);
    }

    /** As {@link #call(Supplier, CompletableFuture, Duration, String, Runnable)}, for a call whose repeats are harmless. */
    <T> T call(Supplier<CompletableFuture<T>> send, CompletableFuture<T> first, Duration budget, String what) {
        return call(send, first, budget, what, () -> { });
    }

    /**
     * Makes a call, sending it again when an attempt gets no answer within {@link #attemptTimeout}
     * or fails in transport, until {@code budget} has passed. jetcd spreads calls over the members
     * round-robin and keeps sending to one that hangs (partitioned, frozen: its connection does
     * not break), so a call that met such a member is sent again, and the next attempt goes to
     * another one. Only for calls that are safe to repeat: every call of this backend is (a
     * transaction guarded by a compare, a read, a delete, a keep-alive). An attempt that got no
     * answer may still be applied later, when its member wakes up: a caller to whom that matters
     * (an acquire, whose late write could bring a released key back) learns of it through
     * {@code onResend}.
     *
     * @param send   sends the call once
     * @param first  the first attempt, already sent, or null to send it here
     * @param budget how long the call may take in all
     * @param what   what is being done, for messages (no secrets)
     * @param onResend told before each attempt after the first
     * @throws BackendUnavailableException if no attempt was answered in time
     * @throws SessionGone                 if the server answered that a lease is gone
     * @throws LockException               if the server refused the call
     */
    <T> T call(Supplier<CompletableFuture<T>> send, CompletableFuture<T> first, Duration budget, String what,
               Runnable onResend) {
        long deadline = System.nanoTime() + budget.toNanos();
        Connection sentOn = connection;
        CompletableFuture<T> attempt = first != null ? first : send.get();
        boolean interrupted = false;
        boolean reauthenticated = false;
        int resends = 0;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                long wait = Math.min(Math.max(0, left), attemptTimeout.toNanos());
                RuntimeException failure;
                try {
                    CompletableFuture.anyOf(attempt, closing).get(wait, TimeUnit.NANOSECONDS);
                    if (!attempt.isDone()) {
                        attempt.cancel(true);
                        throw new BackendUnavailableException(endpointNames(), "the client for etcd at " + endpoint
                                + " was closed while it was waiting to " + what, null);
                    }
                    return attempt.get();
                } catch (InterruptedException e) {
                    // Not ours to act on: the engine decides what an interrupt means.
                    interrupted = true;
                    continue;
                } catch (TimeoutException e) {
                    attempt.cancel(true);
                    failure = new BackendUnavailableException(endpointNames(), "etcd at " + endpoint + " did not answer within "
                            + budget.toMillis() + " ms when asked to " + what, null);
                } catch (ExecutionException | CompletionException e) {
                    failure = translate(e.getCause() == null ? e : e.getCause(), what);
                    if (failure instanceof AuthenticationException && opened && !reauthenticated
                            && !failure.getMessage().startsWith(TLS_HANDSHAKE)) {
                        // Refused before it was applied: if the credentials changed (or another
                        // call already replaced the client), send it again once on a client that
                        // logs in with the new ones.
                        reauthenticated = true;
                        if (reauthenticate() || connection != sentOn) {
                            sentOn = connection;
                            attempt = send.get();
                            continue;
                        }
                    }
                    if (!(failure instanceof BackendUnavailableException)) {
                        throw failure;
                    }
                    if (deadline - System.nanoTime() > 0) {
                        pause(RESEND.delayNanos(++resends)); // a transport failure comes back at once: do not spin
                    }
                }
                if (closed || deadline - System.nanoTime() <= 0) {
                    throw failure;
                }
                onResend.run();
                sentOn = connection;
                attempt = send.get();
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void pause(long nanos) {
        long until = System.nanoTime() + nanos;
        boolean interrupted = false;
        while (System.nanoTime() - until < 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(until - System.nanoTime());
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The contract's exception for a failed call. */
    RuntimeException translate(Throwable failure, String what) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (closed) {
            return new IllegalStateException("the etcd client for " + endpoint + " was closed (" + what + ")", cause);
        }
        if (cause instanceof NoSuchLeaseException) {
            return new SessionGone("etcd at " + endpoint + ": the session lease is gone (" + what + ")", cause);
        }
        // Refusals of identity or rights are built without the cause: a library's text could carry
        // more than this class knows to mask.
        Status.Code code = statusCode(cause);
        String message = messages(cause);
        if (code == Status.Code.NOT_FOUND && message.contains("lease not found")) {
            return new SessionGone("etcd at " + endpoint + ": the session lease is gone (" + what + ")", cause);
        }
        Throwable handshake = tlsFailure(cause);
        if (handshake != null) {
            return handshakeFailed(new TlsCheck.Refusal(endpointNames(), handshake), what);
        }
        if (code == Status.Code.PERMISSION_DENIED) {
            return new AccessDeniedException(endpointNames(), "etcd at " + endpoint + " refused to " + what + " for "
                    + who() + ": permission denied; grant " + (user == null ? "the user" : "user '" + user + "'")
                    + " a role with readwrite on the keys under " + endpoint.prefix() + "/ (see the lock-etcd README)", null);
        }
        if (authenticationRefused(code, message)) {
            return new AuthenticationException(endpointNames(), "etcd at " + endpoint + " refused to " + what + ": "
                    + (user == null ? "authentication is required and no credentials were given"
                    : message.contains("authentication is not enabled")
                    ? "the cluster has authentication off, and the client gave credentials for user '" + user
                    + "': remove them, or enable auth on the cluster"
                    : "authentication failed for user '" + user + "' (wrong password, or no such user)")
                    + " [" + scrub(firstLine(message)) + "]", null);
        }
        if (code == Status.Code.INVALID_ARGUMENT || code == Status.Code.FAILED_PRECONDITION
                || code == Status.Code.OUT_OF_RANGE || code == Status.Code.RESOURCE_EXHAUSTED) {
            return new LockException("etcd at " + endpoint + " refused to " + what + ": " + scrub(message), cause);
        }
        // UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, UNKNOWN, a broken stream: no definite answer.
        return new BackendUnavailableException(endpointNames(), "etcd at " + endpoint + " could not " + what + ": "
                + scrub(message), cause);
    }

    /**
     * etcd's refusals of an identity: a wrong password or unknown user ("authentication failed,
     * invalid user ID or password", INVALID_ARGUMENT, which jetcd's call credentials turn into
     * UNAUTHENTICATED), no user where auth is on ("user name is empty"), a token the server no longer
     * takes after jetcd failed to get a new one. jetcd retries UNAUTHENTICATED itself only within
     * its retry budget; what reaches this class is final.
     */
    private static boolean authenticationRefused(Status.Code code, String message) {
        return code == Status.Code.UNAUTHENTICATED || message.contains("authentication failed")
                || message.contains("invalid user ID or password") || message.contains("user name is empty")
                || message.contains("invalid auth token") || message.contains("user name not found");
    }

    /** @return the user for messages: {@code user 'name'}, or {@code a client without credentials} */
    String who() {
        return user == null ? "a client without credentials" : "user '" + user + "'";
    }

    /** @return the first TLS failure in the chain (a refused certificate, a failed handshake), or null */
    private static Throwable tlsFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException || t instanceof CertificateException
                    || t.getClass().getName().equals("io.netty.handler.ssl.NotSslRecordException")) {
                return t;
            }
            for (Throwable suppressed : t.getSuppressed()) {
                Throwable found = tlsFailure(suppressed);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /** @return the exception for a failed TLS handshake with {@code refusal.host()} */
    AuthenticationException handshakeFailed(TlsCheck.Refusal refusal, String what) {
        return new AuthenticationException(endpointNames(), TLS_HANDSHAKE + " with etcd member " + refusal.host() + " of "
                + endpoint + " failed, so the client could not " + what + ": " + tlsReason(refusal.failure()) + " ("
                + endpoint.tls().map(Object::toString).orElse("TLS") + ")", null);
    }

    /** What went wrong in the handshake, in words: the JDK's messages say it well and carry no secret. */
    private String tlsReason(Throwable handshake) {
        String text = String.valueOf(handshake.getMessage());
        String reason;
        if (text.contains("PKIX") || text.contains("unable to find valid certification path")) {
            reason = "the server's certificate is not trusted (not signed by a CA in the trust store)";
        } else if (text.contains("No subject alternative") || text.contains("No name matching")) {
            reason = "the server's certificate does not name the host the client connected to";
        } else if (text.contains("certificate_required") || text.contains("bad_certificate")) {
            reason = "the server requires a client certificate (keyStore) it trusts";
        } else if (handshake.getClass().getName().endsWith("NotSslRecordException")
                || text.contains("Unsupported or unrecognized SSL message") || text.contains("plaintext connection")) {
            reason = "the server does not speak TLS on this port";
        } else if (text.contains("answers the HTTP/2 preface in plaintext")) {
            reason = "the server does not speak TLS on this port (it answers in plaintext)";
        } else {
            reason = "the handshake was refused";
        }
        return reason + ": " + scrub(firstLine(text));
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    /** The messages of the chain, joined: gRPC puts etcd's own text in the cause of jetcd's wrapper. */
    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 8; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (all.length() > 0) {
                all.append(" / ");
            }
            all.append(t.getMessage());
        }
        return all.toString();
    }

    private String scrub(String message) {
        String shown = message;
        if (password != null) {
            shown = shown.replace(password, "***");
        }
        return shown;
    }

    private static Status.Code statusCode(Throwable cause) {
        if (cause instanceof StatusRuntimeException) {
            return ((StatusRuntimeException) cause).getStatus().getCode();
        }
        if (cause instanceof EtcdException) {
            ErrorCode code = ((EtcdException) cause).getErrorCode();
            try {
                return Status.Code.valueOf(code.name());
            } catch (IllegalArgumentException e) {
                return Status.Code.UNKNOWN;
            }
        }
        if (cause != null && cause.getCause() != null && cause.getCause() != cause) {
            return statusCode(cause.getCause());
        }
        return Status.Code.UNKNOWN;
    }

    /** @return the members as {@link BackendUnavailableException#endpoint()} names them */
    String endpointNames() {
        return String.join(",", endpoint.hosts());
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /**
     * Stops the keep-alive, revokes the session lease (its keys go with it) at best effort, and closes
     * the connection. The revoke waits at most {@link #REVOKE_ON_CLOSE_WAIT}: the engine's closing
     * batch has already had its operation timeout, and {@code LockClient.close()} promises no more than
     * a second on top of it for closing connections. A revoke that gets no answer by then changes
     * nothing: the lease expires by its TTL, and its keys with it.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closing.complete(null);
        long id = leaseId;
        keeper.shutdownNow();
        if (id != 0) {
            try {
                long wait = Math.min(operationTimeout.toMillis(), REVOKE_ON_CLOSE_WAIT.toMillis());
                leases().revoke(id).get(wait, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                // the lease expires on its own after its TTL
            }
        }
        closed = true;
        connection.client().close();
    }
}
