package io.distlock.rediswait.internal;

import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.WaitConfirmedDriver;

import io.distlock.LockOptions;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A {@code redis-wait://} URI, parsed and checked before any I/O. Two forms:
 *
 * <ul>
 *   <li>a fixed primary: {@code redis-wait://[user:password@]host:port[/db][?replicas=N&waitTimeout=ms...]};</li>
 *   <li>a primary found through Sentinel:
 *       {@code redis-wait://[user:password@]sentinel:port[,sentinel:port...][/db]?master=<name>[&replicas=N...]}.
 *       With {@code master} the hosts are Sentinels (reached without credentials, no database, over
 *       TLS like the data nodes with {@code tls=true});
 *       the user info and database are the data nodes'.</li>
 * </ul>
 *
 * <p>Options: {@code replicas} (how many replicas must acknowledge, 1..{@value WaitConfirmedDriver#MAX_REPLICAS},
 * default {@value #DEFAULT_REPLICAS}), {@code waitTimeout} (ms {@code WAIT} may block,
 * 1..{@value WaitConfirmedDriver#MAX_WAIT_TIMEOUT_MILLIS}, default {@value WaitConfirmedDriver#DEFAULT_WAIT_TIMEOUT_MILLIS}),
 * {@code master}, {@code poolSize} (1..64, default 8), {@code clientName}. Every message shows the
 * URI without its password.
 */
public final class RedisWaitSettings {

    /** The query options this backend understands. */
    public static final Set<String> OPTIONS = Set.of("replicas", "waitTimeout", "master", "poolSize", "clientName");

    /** One replica's acknowledgement: the least that makes a primary's crash survivable at all. */
    static final int DEFAULT_REPLICAS = 1;

    private final String shown;
    private final RedisEndpoint primary;
    private final List<RedisEndpoint> sentinels;
    private final String master;
    private final int replicas;
    private final Duration waitTimeout;
    private final int poolSize;

    private RedisWaitSettings(String shown, RedisEndpoint primary, List<RedisEndpoint> sentinels, String master,
                              int replicas, Duration waitTimeout, int poolSize) {
        this.shown = shown;
        this.primary = primary;
        this.sentinels = sentinels;
        this.master = master;
        this.replicas = replicas;
        this.waitTimeout = waitTimeout;
        this.poolSize = poolSize;
    }

    /**
     * @param uri a {@code redis-wait://} URI (its scheme is not checked: the caller was chosen by it)
     * @return the settings
     * @throws IllegalArgumentException if the URI is malformed, an option is unknown, malformed or out
     *                                  of range, or it lists several hosts without {@code master};
     *                                  the message never shows the password
     */
    public static RedisWaitSettings parse(URI uri) {
        return parse(uri, LockOptions.defaults());
    }

    /**
     * @param uri     a {@code redis-wait://} URI (its scheme is not checked: the caller was chosen by it)
     * @param options the client's options: their credentials, if the URI has none, are the data nodes'
     * @return the settings
     * @throws IllegalArgumentException if the URI is malformed, an option is unknown, malformed or out
     *                                  of range, it lists several hosts without {@code master}, or the
     *                                  URI and the options both carry credentials; the message never
     *                                  shows the password
     */
    public static RedisWaitSettings parse(URI uri, LockOptions options) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        String shown = RedisEndpoint.redacted(uri);
        String authority = uri.getRawAuthority();
        List<RedisEndpoint> hosts = authority != null && authority.substring(authority.lastIndexOf('@') + 1).contains(",")
                ? RedisEndpoint.parseNodes(uri, OPTIONS)
                : List.of(RedisEndpoint.parse(uri, OPTIONS));
        RedisEndpoint first = hosts.get(0).withCredentials(options);
        int replicas = first.intOption("replicas", DEFAULT_REPLICAS, 1, WaitConfirmedDriver.MAX_REPLICAS);
        int waitTimeoutMillis = first.intOption("waitTimeout", WaitConfirmedDriver.DEFAULT_WAIT_TIMEOUT_MILLIS, 1,
                WaitConfirmedDriver.MAX_WAIT_TIMEOUT_MILLIS);
        int poolSize = first.intOption("poolSize", 8, 1, 64);
        String master = first.option("master");
        if (master == null) {
            if (hosts.size() > 1) {
                throw new IllegalArgumentException("redis-wait URI '" + shown + "' lists " + hosts.size() + " hosts without"
                        + " ?master=<name>: only Sentinels come in a list (name the master they monitor); a fixed"
                        + " primary is one host:port");
            }
            return new RedisWaitSettings(shown, first, List.of(), null, replicas, Duration.ofMillis(waitTimeoutMillis),
                    poolSize);
        }
        if (master.isBlank()) {
            throw new IllegalArgumentException("redis-wait URI '" + shown + "' has an empty master name; expected"
                    + " ?master=<the name the Sentinels monitor the primary under>");
        }
        List<RedisEndpoint> sentinels = new ArrayList<>();
        for (RedisEndpoint host : hosts) {
            // The user info and database are the data nodes'; a Sentinel is asked without either,
            // over TLS if the data nodes are (the same trust and key stores).
            RedisEndpoint sentinel = host.withoutCredentials();
            if (sentinels.stream().anyMatch(s -> s.endpoint().equals(sentinel.endpoint()))) {
                throw new IllegalArgumentException("redis-wait URI '" + shown + "' lists Sentinel " + sentinel + " twice");
            }
            sentinels.add(sentinel);
        }
        return new RedisWaitSettings(shown, first, List.copyOf(sentinels), master, replicas,
                Duration.ofMillis(waitTimeoutMillis), poolSize);
    }

    /** @return true for the Sentinel form ({@code master} given) */
    public boolean viaSentinel() {
        return master != null;
    }

    /**
     * @return for the fixed form, the primary; for the Sentinel form, the data nodes' credentials,
     *         database and options at the first Sentinel's address (see {@link RedisEndpoint#withAddress})
     */
    public RedisEndpoint dataNode() {
        return primary;
    }

    /** @return the Sentinels, without credentials (with the TLS settings); empty for the fixed form */
    public List<RedisEndpoint> sentinels() {
        return sentinels;
    }

    /** @return the master name the Sentinels monitor, or null for the fixed form */
    public String master() {
        return master;
    }

    /** @return how many replicas must acknowledge a grant or an extension */
    public int replicas() {
        return replicas;
    }

    /** @return how long {@code WAIT} may block for their acknowledgements */
    public Duration waitTimeout() {
        return waitTimeout;
    }

    /** @return connections per data node */
    public int poolSize() {
        return poolSize;
    }

    /** @return the URI without its password */
    @Override
    public String toString() {
        return shown;
    }
}
