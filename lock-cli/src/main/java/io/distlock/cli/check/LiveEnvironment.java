package io.distlock.cli.check;

import io.distlock.tck.TestEnvironment;

import java.time.Duration;
import java.util.Optional;

/**
 * The TCK's timing for a live audit: the TCK's own leases and waits (scaled by the timeout factor for a
 * distant or slow deployment), with contention runs bounded by time and by the number of clients the
 * operator allows — the load an audit puts on a production server is the operator's choice.
 */
final class LiveEnvironment extends TestEnvironment {

    /** Rounds are not the bound of a live run: its duration is. */
    private static final int ROUNDS_WITHOUT_BOUND = 1_000_000;

    private final int clients;
    private final Duration duration;

    LiveEnvironment(double timeoutFactor, int clients, Duration duration) {
        super(timeoutFactor);
        this.clients = clients;
        this.duration = duration;
    }

    @Override
    public int contentionClients() {
        return clients;
    }

    @Override
    public int contentionRounds() {
        return ROUNDS_WITHOUT_BOUND;
    }

    @Override
    public Optional<Duration> contentionDuration() {
        return Optional.of(duration);
    }

    @Override
    public Duration contentionTimeout() {
        return duration.plus(super.contentionTimeout());
    }
}
