package io.distlock.tair.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server-side connections on which a write may still be waiting to run: a write whose reply
 * was given up (held in the network, in a proxy, in the server's unread input) can land later —
 * after its request was abandoned, or after a newer extension. Without a script, an acquire cannot
 * check a marker; instead the driver kills such a connection on the server ({@code CLIENT KILL ID})
 * before its next command, and the server then runs nothing more that arrived on it.
 *
 * <p>Two kinds are kept: connections that are <em>sending</em> a write for an owner token right
 * now (an abandon that races an attempt still on its way — an interrupted acquire — must kill its
 * connection too), and <em>suspects</em>, whose reply was given up. Thread-safe; one per driver.
 */
final class StrayWrites {

    /**
     * A connection as the server knows it: its client id and the peer address it sees (after a
     * server restart ids start again from 1: the address keeps a kill from hitting someone else's
     * connection that got the same id).
     *
     * @param id      {@code CLIENT INFO}'s {@code id}
     * @param address {@code CLIENT INFO}'s {@code addr}
     */
    record ClientRef(long id, String address) {
    }

    /**
     * Per owner token, the connection an attempt of that request is being sent on: the engine runs
     * one attempt of a request at a time, so one entry (a map of sets cost every acquire an
     * allocation it does not need).
     */
    private final Map<String, ClientRef> sending = new ConcurrentHashMap<>();
    private final Set<ClientRef> suspects = ConcurrentHashMap.newKeySet();

    /** A write of {@code ownerToken} is about to go out on {@code client}. */
    void sending(String ownerToken, ClientRef client) {
        sending.put(ownerToken, client);
    }

    /**
     * The write of {@code ownerToken} (null: of no request in particular, an extension) on
     * {@code client} is settled.
     *
     * @param answered false if its reply was given up (a timeout, a broken connection): whatever of
     *                 it is still on its way must be stopped before the next command
     */
    void settled(String ownerToken, ClientRef client, boolean answered) {
        if (ownerToken != null) {
            sending.remove(ownerToken, client);
        }
        if (!answered) {
            suspects.add(client);
        }
    }

    /**
     * @param ownerToken the token an abandon is about, or null
     * @return the connections to kill before the next command: every suspect, and the one sending
     *         for {@code ownerToken} now
     */
    List<ClientRef> toKill(String ownerToken) {
        List<ClientRef> kill = new ArrayList<>(suspects);
        ClientRef inFlight = ownerToken == null ? null : sending.get(ownerToken);
        if (inFlight != null && !kill.contains(inFlight)) {
            kill.add(inFlight);
        }
        return kill;
    }

    /** The server has killed these connections, or told that they are gone. */
    void killed(List<ClientRef> clients) {
        clients.forEach(suspects::remove);
    }

    /** @return true if no suspect is waiting to be killed (the cheap check before every command) */
    boolean noSuspects() {
        return suspects.isEmpty();
    }

    /**
     * @param ownerToken the token an abandon or a release is about
     * @return true if nothing is to be killed for it: no suspect, and nothing sending for the token
     *         (the cheap check, without the list {@link #toKill} builds)
     */
    boolean nothingToKill(String ownerToken) {
        return suspects.isEmpty() && !sending.containsKey(ownerToken);
    }
}
