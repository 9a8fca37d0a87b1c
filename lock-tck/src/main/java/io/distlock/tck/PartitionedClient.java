package io.distlock.tck;

import io.distlock.LockClient;

import java.util.List;
import java.util.Objects;

/**
 * A client whose every connection to the backend goes through links of its own, one per node,
 * so that a rule can cut this client off without touching any other. Opened by
 * {@link ClientPartition#open()}; closing it closes the client and the links.
 */
public final class PartitionedClient implements AutoCloseable {

    private final LockClient client;
    private final List<ClientLink> links;
    private final AutoCloseable resources;

    /**
     * @param client    the client, connected through {@code links}
     * @param links     one link per node of the backend, in a fixed order (a single-node backend has one)
     * @param resources what to close after the client (the proxies), or null
     */
    public PartitionedClient(LockClient client, List<? extends ClientLink> links, AutoCloseable resources) {
        this.client = Objects.requireNonNull(client, "client");
        this.links = List.copyOf(links);
        if (this.links.isEmpty()) {
            throw new IllegalArgumentException("a partitioned client needs at least one link");
        }
        this.resources = resources;
    }

    /** @return the client */
    public LockClient client() {
        return client;
    }

    /** @return its links, one per node */
    public List<ClientLink> links() {
        return links;
    }

    /** Drops every link (see {@link ClientLink#drop()}). */
    public void dropAll() {
        links.forEach(ClientLink::drop);
    }

    /** Blackholes every link (see {@link ClientLink#blackhole()}). */
    public void blackholeAll() {
        links.forEach(ClientLink::blackhole);
    }

    /** Holds every reply back (see {@link ClientLink#holdReplies()}). */
    public void holdAllReplies() {
        links.forEach(ClientLink::holdReplies);
    }

    /** Heals every link. */
    public void healAll() {
        links.forEach(ClientLink::heal);
    }

    /** @return true if a request or a reply is held on some link */
    public boolean inFlight() {
        return links.stream().anyMatch(ClientLink::inFlight);
    }

    /** @return the requests and connection attempts sent on all links so far (see {@link ClientLink#requestsSent()}) */
    public long requestsSent() {
        return links.stream().mapToLong(ClientLink::requestsSent).sum();
    }

    /** Heals the links, closes the client, then the links' resources. Never throws. */
    @Override
    public void close() {
        healAll();
        try {
            client.close();
        } catch (RuntimeException ignored) {
            // best effort
        }
        if (resources != null) {
            try {
                resources.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }
}
