package io.distlock.bench;

import io.distlock.Feature;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Uncontended acquire+release of a read-write lock's read side, or of one permit of a semaphore,
 * through the public API ({@code tryAcquire(10 s)} once, then {@code release()}), one client, one
 * name: the lock rows' loop ({@link DistlockUncontended}) on the primitives of issue 25. The fencing
 * token is not read: neither peer (Redisson, Curator) gives one. Each step's median goes into the
 * notes ({@link TwoStepScenario}).
 *
 * <p>A row exists only where its backend declares the feature ({@link #connect}): lock-bench runs
 * against backends that do not have these primitives yet, and says which rows it left out.
 */
final class DistlockHoldUncontended extends TwoStepScenario {

    /** The semaphore rows' permit count, distlock's and the peers' alike. */
    static final int PERMITS = 3;

    private static final Duration LEASE = Duration.ofSeconds(10);

    /** What a row acquires. */
    enum Hold {
        /** {@code readWriteLock(name).readLock()}. */
        READ(Feature.READ_WRITE),
        /** {@code semaphore(name, PERMITS)}: one permit. */
        PERMIT(Feature.SEMAPHORE);

        private final Feature feature;

        Hold(Feature feature) {
            this.feature = feature;
        }

        Function<Duration, Optional<Lease>> on(LockClient client, String name) {
            return this == READ ? client.readWriteLock(name).readLock()::tryAcquire : client.semaphore(name, PERMITS)::tryAcquire;
        }
    }

    private final LockClient client;
    private final String what;
    private final Function<Duration, Optional<Lease>> tryAcquire;

    private DistlockHoldUncontended(String label, LockClient client, String what, Function<Duration, Optional<Lease>> tryAcquire) {
        super(label, client.backend().scheme().startsWith("redis"), "tryAcquire", "release");
        this.client = client;
        this.what = what;
        this.tryAcquire = tryAcquire;
    }

    /**
     * Connects a client of its own and makes the row, if the backend declares the hold's feature.
     *
     * @param label      the row's label
     * @param name       the read-write lock's or the semaphore's name
     * @param absent     told, when the backend does not declare the feature, which rows are left out and why
     * @param peerLabels the labels of the rows measured beside this one (its peers), left out with it
     * @return the row; empty, its client closed, when the backend does not declare the feature
     */
    static Optional<DistlockHoldUncontended> connect(Hold hold, String label, String uri, String name, Consumer<String> absent,
                                                     String... peerLabels) {
        LockClient client = Locks.connect(uri);
        if (!client.backend().has(hold.feature)) {
            String scheme = client.backend().scheme();
            client.close();
            absent.accept(scheme + ":// does not declare " + hold.feature + ": left out "
                    + String.join("; ", Stream.concat(Stream.of(label), Stream.of(peerLabels)).toList()));
            return Optional.empty();
        }
        String what = hold == Hold.READ ? "read lock " + name : "semaphore " + name + " (" + PERMITS + " permits)";
        return Optional.of(new DistlockHoldUncontended(label, client, what, hold.on(client, name)));
    }

    @Override
    Object first() {
        return tryAcquire.apply(LEASE).orElseThrow(() -> new IllegalStateException(what + " was busy"));
    }

    @Override
    void second(Object lease) {
        ((Lease) lease).release();
    }

    @Override
    public void close() {
        client.close();
    }
}
