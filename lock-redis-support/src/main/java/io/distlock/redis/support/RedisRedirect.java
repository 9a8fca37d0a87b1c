package io.distlock.redis.support;

import io.distlock.LockException;

import java.util.Optional;

/**
 * A Redis Cluster node's answer that it does not serve a key's slot, so the command was not run:
 * {@code MOVED <slot> <host:port>} (the slot belongs to that node now: the client's slot map is
 * stale) or {@code ASK <slot> <host:port>} (the slot is being migrated there and this key has
 * already gone: send that one command there, after {@code ASKING}). Nothing was written, so a
 * cluster client follows it within the operation's deadline; a client of one server
 * ({@code redis://}) that meets it was pointed at a cluster node, which its message says.
 */
public final class RedisRedirect extends LockException {

    private static final long serialVersionUID = 1L;

    private final boolean ask;
    private final int slot;
    private final String host;
    private final int port;

    RedisRedirect(String message, boolean ask, int slot, String host, int port, Throwable cause) {
        super(message, cause);
        this.ask = ask;
        this.slot = slot;
        this.host = host;
        this.port = port;
    }

    /**
     * Reads a {@code MOVED} or {@code ASK} error reply.
     *
     * @param reply       the error reply's text ({@code MOVED 3999 127.0.0.1:6381})
     * @param sender      the node that answered: its host stands in for an empty one ({@code MOVED 3999 :6381})
     * @return the redirect's parts: ask, slot, host, port; empty if the text is not a redirect
     */
    static Optional<RedisRedirect> parse(String reply, RedisEndpoint sender, String message, Throwable cause) {
        String[] words = reply.trim().split(" ");
        if (words.length != 3 || !(words[0].equals("MOVED") || words[0].equals("ASK"))) {
            return Optional.empty();
        }
        int colon = words[2].lastIndexOf(':');
        if (colon < 0) {
            return Optional.empty();
        }
        try {
            int slot = Integer.parseInt(words[1]);
            int port = Integer.parseInt(words[2].substring(colon + 1));
            String host = words[2].substring(0, colon);
            if (host.isEmpty() || host.equals("?")) {
                host = sender.host(); // "unknown endpoint": the same host as the node that answered
            }
            return Optional.of(new RedisRedirect(message, words[0].equals("ASK"), slot, host, port, cause));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** @return true for {@code ASK} (one command, after {@code ASKING}); false for {@code MOVED} */
    public boolean ask() {
        return ask;
    }

    /** @return the hash slot, 0..16383 */
    public int slot() {
        return slot;
    }

    /** @return the host of the node that serves it */
    public String host() {
        return host;
    }

    /** @return that node's port */
    public int port() {
        return port;
    }

    /** @return {@code host:port} of the node that serves it */
    public String target() {
        return host + ":" + port;
    }
}
