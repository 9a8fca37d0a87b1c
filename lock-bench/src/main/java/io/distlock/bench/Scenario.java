package io.distlock.bench;

/**
 * One row of the bench table. The harness interleaves scenarios: it gives each one short slices
 * in turn, round after round, so that whatever else the machine does (a build, a GC, another
 * helper's test) falls on every scenario alike instead of on whichever happened to run then.
 */
interface Scenario extends AutoCloseable {

    /** @return the row's label */
    String name();

    /**
     * Runs the scenario for about {@code nanos}.
     *
     * @param nanos  how long the slice lasts
     * @param record false during warm-up: run, but keep nothing
     * @throws Exception if an operation failed; the bench stops (a failing row is no result)
     */
    void runSlice(long nanos, boolean record) throws Exception;

    /** @return what the recorded slices since the last {@link #reset()} measured */
    Measurement result();

    /**
     * @return false for a row whose servers are not Redis (ZooKeeper): the harness then leaves out
     *         the server columns, which would only show the idle Redis servers
     */
    default boolean onRedis() {
        return true;
    }

    /**
     * @return how many operations the server served during the recorded slices since the last
     *         {@link #reset()}: {@link #result()}'s count, unless the row does work it does not time
     *         (a contended row's last grants, after its slice's end), so that server counters read
     *         around the slices divide by every operation that made them move
     */
    default long served() {
        return result().count();
    }

    /** Forgets what was recorded, for the next run. */
    void reset();

    @Override
    void close();
}
