package io.distlock.tck;

/**
 * One client's path to one node of the backend, with the faults a network can have. The rules of
 * group 4 that cut a client off ({@link ClientPartition}) act on these. A TCP implementation is
 * {@code FaultProxy} of lock-tck-fixtures: a proxy per client and node.
 *
 * <p>All methods are thread-safe and return at once.
 */
public interface ClientLink {

    /**
     * Drops the link: every open connection is reset, and new ones are refused, until
     * {@link #heal()}. Nothing held back on the link is delivered later: a reset connection loses
     * it. (What a cable pull or a crashed middlebox looks like to the client.)
     */
    void drop();

    /**
     * A partition that holds bytes: connections are accepted, nothing gets through either way, and
     * what was sent is delivered when the link heals — late. (What a frozen server, or a partition
     * that heals before TCP gives up, looks like to the client.)
     */
    void blackhole();

    /**
     * Lets requests through but holds every reply back until {@link #heal()} (or a
     * {@link #drop()}, which loses them): the server acts, the client hears nothing.
     */
    void holdReplies();

    /** Ends every fault: held bytes flow again, new connections are accepted. */
    void heal();

    /**
     * @return true if bytes are held on the link right now (a request sent into a blackhole, or a
     *         reply held back): a request is in flight
     */
    boolean inFlight();

    /**
     * @return how many requests and connection attempts the client has sent on this link so far,
     *         refused ones included: a rule waits for it to grow to know that the client has tried
     *         to reach the server again (its cleanup, a reconnect) while it was cut off
     */
    long requestsSent();
}
