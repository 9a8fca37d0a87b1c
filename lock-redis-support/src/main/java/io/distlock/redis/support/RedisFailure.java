package io.distlock.redis.support;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockException;

import java.net.SocketTimeoutException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import javax.net.ssl.SSLHandshakeException;

import redis.clients.jedis.DefaultRedisCredentials;
import redis.clients.jedis.RedisCredentials;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * What a failure from Jedis means for a lock, and which of the contract's exceptions it becomes
 * ({@link #translate}): the one place in the Redis family that looks inside Jedis's exceptions. Everything is decided by type — the exception's own, its causes' and its
 * suppressed exceptions' (Jedis 8 keeps a connect timeout and a refused connect as a
 * <em>suppressed</em> exception of a {@link JedisConnectionException} whose cause is null) — never
 * by Jedis's wording, so that a driver upgrade that changes it breaks {@code RedisFailureTest}, not
 * the lock's behaviour. The only text read is a server error reply's first word ({@code LOADING},
 * {@code READONLY}, {@code NOPERM}, ...): the error code the Redis protocol puts there, which Jedis has
 * no type for — and, as one exception, the server's words for an ACL refusal inside a script, which
 * Redis 7.0 reports with the code {@code ERR}.
 */
public enum RedisFailure {

    /**
     * No answer in time: a connect or a read timed out. A request already written may still take
     * effect (late); the server may only be slow.
     */
    TIMEOUT(true),

    /**
     * The connection was refused, reset, or closed by the peer (end of stream): the server is down
     * or restarted. A request written before the connection broke may have taken effect.
     */
    CONNECTION_LOST(true),

    /** No pooled connection became free within the operation timeout: nothing was sent. */
    POOL_EXHAUSTED(true),

    /**
     * The server is up but not serving now: it runs a long script ({@code BUSY}), is loading its
     * data ({@code LOADING}), became a replica ({@code READONLY}, {@code MASTERDOWN}), or is a
     * primary with fewer good replicas than its {@code min-replicas-to-write} ({@code NOREPLICAS}).
     * The command was not run.
     */
    SERVER_UNAVAILABLE(true),

    /**
     * The server did not accept who the client is: a wrong password or unknown user
     * ({@code WRONGPASS}), or no credentials where it requires them ({@code NOAUTH}); or, on a TLS
     * endpoint, the handshake failed (the server's certificate is not trusted or names another host,
     * or the server refused the client's). Retrying cannot help.
     */
    AUTHENTICATION_REFUSED(false),

    /**
     * The server knows the user, and the user has no right to this command, key or channel
     * ({@code NOPERM}, an ACL refusal). Nothing was run.
     */
    ACCESS_DENIED(false),

    /** The credentials supplier of {@link io.distlock.LockOptions} failed: nothing was sent. */
    CREDENTIALS_UNAVAILABLE(false),

    /** The server lost a script ({@code NOSCRIPT}): send it again as {@code EVAL}. */
    NO_SCRIPT(false),

    /** Any other error the server answered ({@code WRONGTYPE}, a script error): a definite refusal. */
    SERVER_ERROR(false),

    /**
     * A Redis Cluster node does not serve the key's slot ({@code MOVED}, {@code ASK}): nothing was
     * run; the answer names the node that does ({@link RedisRedirect}).
     */
    REDIRECTED(false),

    /** This client's node or pool was closed. */
    CLOSED(false),

    /**
     * Nothing was sent: the node is unreachable for now (its last connect or reply failed) and is
     * being reconnected in the background ({@link RedisNode#openForFanOut}). Counts as down.
     */
    NOT_CONNECTED(true),

    /** Anything else Jedis throws (a reply it could not parse): no definite answer either. */
    UNEXPECTED(true);

    /** What a node that is being reconnected answers at once, instead of connecting within a caller's deadline. */
    static final class NotConnected extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotConnected(String message) {
            super(message, null, false, false); // no stack trace: it is an expected state, thrown often
        }
    }

    /**
     * The failure of a {@linkplain io.distlock.LockOptions#credentials() credentials supplier}
     * while Jedis opened a connection: a {@link JedisException} so that Jedis closes the socket it
     * opened, carrying the {@link LockException} that {@link #translate} throws.
     */
    static final class CredentialsUnavailable extends JedisException {
        private static final long serialVersionUID = 1L;

        CredentialsUnavailable(LockException cause) {
            super(cause.getMessage(), cause);
        }

        LockException lockException() {
            return (LockException) getCause();
        }
    }

    /**
     * The credentials a new connection authenticates with, read from {@code source} at each call
     * (that is, at each connect and reconnect): a rotated secret is used from the next connection on.
     *
     * @param source the endpoint's credentials ({@link RedisEndpoint#credentialsSupplier()})
     * @return the provider for Jedis's client configuration
     */
    static Supplier<RedisCredentials> credentialsProvider(Supplier<Optional<Credentials>> source) {
        return new Supplier<>() {
            @Override
            public RedisCredentials get() {
                Optional<Credentials> credentials;
                try {
                    credentials = source.get();
                } catch (LockException e) {
                    throw new CredentialsUnavailable(e);
                }
                if (credentials.isEmpty()) {
                    throw new CredentialsUnavailable(new LockException("the credentials supplier gave no credentials"));
                }
                return new DefaultRedisCredentials(credentials.get().username().orElse(null), credentials.get().password());
            }

            @Override
            public String toString() {
                return "RedisCredentialsProvider[***]";
            }
        };
    }

    /** The words of Redis 7's error for an ACL refusal inside a script ("... can't access ...", "... can't publish ..."). */
    private static final String SCRIPT_ACL_REFUSAL = "The user executing the script can't";

    /** The words of Redis's error for {@code AUTH <password>} when the default user has no password. */
    private static final String AUTH_WITHOUT_PASSWORD = "called without any password configured";

    private final boolean outcomeUnknown;

    RedisFailure(boolean outcomeUnknown) {
        this.outcomeUnknown = outcomeUnknown;
    }

    /**
     * @return true if the server gave no definite answer: the caller must report the outcome as
     *         unknown ({@link io.distlock.BackendUnavailableException}), never as a refusal
     */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }

    /**
     * @return true if the server is down for sure (the connection was refused, reset or closed on
     *         it), not merely slow: a timeout may pass with the load that caused it
     */
    public boolean down() {
        return this == CONNECTION_LOST || this == NOT_CONNECTED;
    }

    /**
     * Classifies {@code e}, looking through its causes and suppressed exceptions.
     *
     * @param e a failure from Jedis, its pool, or this package
     * @return what it means
     */
    public static RedisFailure of(Throwable e) {
        if (e instanceof NotConnected) {
            return NOT_CONNECTED;
        }
        if (e instanceof IllegalStateException) {
            return CLOSED; // our own checkOpen, or commons-pool's "Pool not open"
        }
        if (contains(e, CredentialsUnavailable.class)) {
            return CREDENTIALS_UNAVAILABLE;
        }
        if (contains(e, CertificateException.class) || (contains(e, SSLHandshakeException.class)
                && !contains(e, java.io.EOFException.class) && !contains(e, java.net.SocketException.class)
                && !contains(e, SocketTimeoutException.class))) {
            // Before TIMEOUT and CONNECTION_LOST: Jedis wraps it in a JedisConnectionException. A
            // handshake cut short by the peer going away (end of stream, reset) is a lost connection.
            return AUTHENTICATION_REFUSED;
        }
        if (contains(e, SocketTimeoutException.class)) {
            return TIMEOUT; // before CONNECTION_LOST: a timeout is wrapped in a JedisConnectionException too
        }
        if (contains(e, JedisConnectionException.class)) {
            return CONNECTION_LOST; // refused (suppressed ConnectException), reset, end of stream, broken
        }
        if (contains(e, NoSuchElementException.class)) {
            return POOL_EXHAUSTED; // commons-pool's "Timeout waiting for idle object"
        }
        JedisAccessControlException refused = find(e, JedisAccessControlException.class);
        if (refused != null) {
            return "NOPERM".equals(errorCode(refused)) ? ACCESS_DENIED : AUTHENTICATION_REFUSED;
        }
        if (contains(e, JedisBusyException.class)) {
            return SERVER_UNAVAILABLE;
        }
        if (contains(e, JedisNoScriptException.class)) {
            return NO_SCRIPT;
        }
        JedisDataException reply = find(e, JedisDataException.class);
        if (reply != null) {
            return switch (errorCode(reply)) {
                case "NOSCRIPT" -> NO_SCRIPT; // a pipelined reply Jedis did not type
                case "NOPERM" -> ACCESS_DENIED; // a script's redis.call refused by the ACL keeps the code (Redis 7)
                case "WRONGPASS", "NOAUTH" -> AUTHENTICATION_REFUSED;
                // Redis 7.0 reports an ACL refusal of a call inside a script (a key or channel the script
                // names itself) as a script error with code ERR; the server's own words are all there is.
                // So is AUTH with a password to a server whose default user has none ("ERR AUTH <password>
                // called without any password configured for the default user"): credentials refused.
                case "ERR" -> String.valueOf(reply.getMessage()).contains(SCRIPT_ACL_REFUSAL) ? ACCESS_DENIED
                        : String.valueOf(reply.getMessage()).contains(AUTH_WITHOUT_PASSWORD) ? AUTHENTICATION_REFUSED
                        : SERVER_ERROR;
                // TRYAGAIN: a cluster slot is half migrated and the call's keys are split between the
                // two nodes; CLUSTERDOWN: the cluster has an uncovered slot or lost its majority.
                case "LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN", "NOREPLICAS", "CLUSTERDOWN" -> SERVER_UNAVAILABLE;
                case "MOVED", "ASK" -> REDIRECTED;
                default -> SERVER_ERROR;
            };
        }
        return UNEXPECTED;
    }

    /** The first word of a server error reply: its error code, as the Redis protocol defines it. */
    private static String errorCode(JedisDataException reply) {
        String message = String.valueOf(reply.getMessage());
        int space = message.indexOf(' ');
        return space < 0 ? message : message.substring(0, space);
    }

    private static boolean contains(Throwable e, Class<? extends Throwable> type) {
        return find(e, type) != null;
    }

    /** Depth-first through causes and suppressed exceptions, each visited once (they can form cycles). */
    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> todo = new ArrayDeque<>();
        todo.push(e);
        while (!todo.isEmpty()) {
            Throwable t = todo.pop();
            if (!seen.add(t)) {
                continue;
            }
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            Throwable[] suppressed = t.getSuppressed();
            for (int i = suppressed.length - 1; i >= 0; i--) {
                todo.push(suppressed[i]);
            }
            if (t.getCause() != null) {
                todo.push(t.getCause());
            }
        }
        return null;
    }

    /**
     * Maps a failure to the contract's exceptions, by its kind: no definite answer is a
     * {@link BackendUnavailableException}; refused credentials or a failed TLS handshake an
     * {@link AuthenticationException}; an ACL refusal ({@code NOPERM}) an
     * {@link AccessDeniedException} naming the user and the operation; any other refusal by the
     * server a {@link LockException}; a closed node an {@link IllegalStateException}. Names the endpoint, never the password (a failure
     * whose message shows it is not kept as the cause).
     *
     * @param e                the failure
     * @param endpoint         the server it came from
     * @param operation        what was being done, for the message (no secrets)
     * @param connectTimeout   the node's connect timeout, for the message
     * @param operationTimeout the node's operation timeout, for the message
     * @return the exception to throw
     */
    static RuntimeException translate(RuntimeException e, RedisEndpoint endpoint, String operation, Duration connectTimeout,
                                      Duration operationTimeout) {
        Throwable cause = mentionsPassword(e, endpoint) ? null : e;
        String detail = endpoint.redact(describe(e));
        RedisFailure kind = of(e);
        if (kind == AUTHENTICATION_REFUSED && (contains(e, SSLHandshakeException.class) || contains(e, CertificateException.class))
                && find(e, JedisAccessControlException.class) == null) {
            // Retrying will not help: a certificate is not trusted, not for this host, or missing.
            return new AuthenticationException(endpoint.endpoint(), "Redis at " + endpoint + " failed the TLS handshake ("
                    + operation + "): its certificate is not trusted by the trustStore (or the JVM's default trust) or"
                    + " does not name host " + endpoint.host() + ", or it wants a client certificate (keyStore) it did"
                    + " not get: " + detail, cause);
        }
        return switch (kind) {
            case TIMEOUT, CONNECTION_LOST, UNEXPECTED -> new BackendUnavailableException(endpoint.endpoint(), "Redis at "
                    + endpoint + " did not answer (" + operation + "; connect timeout " + connectTimeout.toMillis()
                    + " ms, operation timeout " + operationTimeout.toMillis() + " ms): " + detail, cause);
            case NOT_CONNECTED -> new BackendUnavailableException(endpoint.endpoint(), e.getMessage() + " (" + operation + ")",
                    null);
            case POOL_EXHAUSTED -> new BackendUnavailableException(endpoint.endpoint(), "no connection to Redis at "
                    + endpoint + " became free within " + operationTimeout.toMillis() + " ms (" + operation
                    + "; raise the URI option poolSize)", cause);
            case SERVER_UNAVAILABLE -> new BackendUnavailableException(endpoint.endpoint(), "Redis at " + endpoint
                    + " is not serving now (" + operation + "): " + detail, cause);
            case AUTHENTICATION_REFUSED -> !endpoint.hasCredentials()
                    ? new AuthenticationException(endpoint.endpoint(), "Redis at " + endpoint + " requires a password ("
                    + operation + "); put it in the URI (redis://[user]:password@" + endpoint
                    + ") or in LockOptions.credentials: " + detail, cause)
                    : new AuthenticationException(endpoint.endpoint(), "Redis at " + endpoint + " refused the credentials"
                    + userPart(endpoint) + " (" + operation + "): " + detail, cause);
            case ACCESS_DENIED -> new AccessDeniedException(endpoint.endpoint(), "Redis at " + endpoint + " denied "
                    + (endpoint.user() != null ? "user '" + endpoint.user() + "'" : "the default user") + " the right to "
                    + operation + " (an ACL refusal; the user needs the keys distlock:*, the channels distlock:* and the"
                    + " commands the backend sends, see its README): " + detail, cause);
            case CREDENTIALS_UNAVAILABLE -> e instanceof CredentialsUnavailable c ? c.lockException()
                    : find(e, CredentialsUnavailable.class).lockException();
            case CLOSED -> new IllegalStateException("the Redis connection to " + endpoint + " is closed (" + operation + ")",
                    cause);
            case NO_SCRIPT, SERVER_ERROR -> new LockException("Redis at " + endpoint + " failed to " + operation + ": "
                    + detail, cause);
            case REDIRECTED -> RedisRedirect.parse(String.valueOf(find(e, JedisDataException.class).getMessage()), endpoint,
                    "Redis at " + endpoint + " is a Redis Cluster node that does not serve the key's slot (" + operation
                    + "): " + detail + "; a cluster is reached with a redis-cluster:// URI", cause)
                    .map(RuntimeException.class::cast)
                    .orElseGet(() -> new LockException("Redis at " + endpoint + " failed to " + operation + ": " + detail, cause));
        };
    }

    private static String userPart(RedisEndpoint endpoint) {
        return endpoint.user() != null ? " of user '" + endpoint.user() + "'" : " (password only, user default)";
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    private static String describe(Throwable e) {
        Throwable root = rootCause(e);
        if (root == e && e.getSuppressed().length > 0) {
            root = e.getSuppressed()[0]; // Jedis keeps "Connection refused" per address tried here
        }
        String message = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        if (root != e && root.getMessage() != null && !message.contains(root.getMessage())) {
            message += " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return message;
    }

    private static boolean mentionsPassword(Throwable e, RedisEndpoint endpoint) {
        if (endpoint.password() == null) {
            return false;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(endpoint.password())) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
