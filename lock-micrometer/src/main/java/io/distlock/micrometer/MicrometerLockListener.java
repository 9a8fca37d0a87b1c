package io.distlock.micrometer;

import io.distlock.LockEvent;
import io.distlock.LockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Records a client's lock events ({@link LockListener}) in a Micrometer {@link MeterRegistry}:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>type</th><th>tags</th><th>what it measures</th></tr>
 *   <tr><td>{@code distlock.acquire}</td><td>timer</td><td>{@code backend}, {@code outcome} =
 *       {@code acquired | busy | timed_out | unavailable | interrupted | refused}</td><td>how long each acquire took,
 *       waiting included, by how it ended</td></tr>
 *   <tr><td>{@code distlock.held}</td><td>timer</td><td>{@code backend}, {@code outcome} = {@code released | lost},
 *       {@code reason} = {@code none | expired | not_held | revoked | backend_lost}</td><td>how long each lease was held</td></tr>
 *   <tr><td>{@code distlock.revocations}</td><td>counter</td><td>{@code backend}, {@code side} =
 *       {@code holder | operator}</td><td>locks taken back ({@code LockClient.revoke}): on the client whose lease
 *       was revoked, and on the client that revoked it</td></tr>
 *   <tr><td>{@code distlock.extensions}</td><td>counter</td><td>{@code backend}, {@code outcome} =
 *       {@code extended | unknown}</td><td>renewals and extends, confirmed or with no definite answer</td></tr>
 *   <tr><td>{@code distlock.leases.held}</td><td>gauge</td><td>{@code backend}</td><td>leases held now</td></tr>
 * </table>
 *
 * <p><b>Lock names are not tags by default</b>: they are unbounded in number (one per order, per
 * tenant...), and every distinct tag value is a time series. Pass a function that maps a name to
 * a small set of values ({@link Builder#lockNameTag}) to add a {@code lock} tag to every meter;
 * it must never return null.
 *
 * <pre>{@code
 * LockOptions options = LockOptions.builder().listener(MicrometerLockListener.of(registry)).build();
 * LockClient client = Locks.connect("redis://localhost:6379", options);
 * }</pre>
 *
 * <p>Thread-safe; meters are registered on first use and kept for the life of the listener. One
 * listener may serve several clients.
 */
public final class MicrometerLockListener implements LockListener {

    /** The acquire timer's name. */
    public static final String ACQUIRE = "distlock.acquire";
    /** The hold-time timer's name. */
    public static final String HELD = "distlock.held";
    /** The extension counter's name. */
    public static final String EXTENSIONS = "distlock.extensions";
    /** The revocation counter's name. */
    public static final String REVOCATIONS = "distlock.revocations";
    /** The held-leases gauge's name. */
    public static final String LEASES_HELD = "distlock.leases.held";

    private final MeterRegistry registry;
    private final Function<String, String> lockNameTag;
    private final Tags commonTags;
    /** Meters by (meter, backend, outcome, reason, lock tag): a lookup per event, no registration. */
    private final ConcurrentHashMap<Key, Object> meters = new ConcurrentHashMap<>();
    /** Held-lease counts by (backend, lock tag), strongly referenced here as a gauge needs. */
    private final ConcurrentHashMap<Key, AtomicLong> held = new ConcurrentHashMap<>();

    private record Key(String meter, String backend, String outcome, String reason, String lock) {
    }

    private MicrometerLockListener(Builder builder) {
        this.registry = builder.registry;
        this.lockNameTag = builder.lockNameTag;
        this.commonTags = builder.tags;
    }

    /**
     * @param registry where the meters go
     * @return a listener with no lock-name tag and no extra tags
     * @throws NullPointerException if {@code registry} is null
     */
    public static MicrometerLockListener of(MeterRegistry registry) {
        return builder(registry).build();
    }

    /**
     * @param registry where the meters go
     * @return a builder for a listener with a lock-name tag or extra tags
     * @throws NullPointerException if {@code registry} is null
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    @Override
    public void onEvent(LockEvent event) {
        String backend = event.backend();
        String lock = lockTag(event.lockName());
        switch (event.type()) {
            case ACQUIRED -> {
                timer(ACQUIRE, backend, "acquired", null, lock).record(event.duration());
                gauge(backend, lock).incrementAndGet();
            }
            case BUSY, TIMED_OUT, UNAVAILABLE, INTERRUPTED, REFUSED ->
                    timer(ACQUIRE, backend, event.type().name().toLowerCase(Locale.ROOT), null, lock).record(event.duration());
            case RELEASED -> {
                timer(HELD, backend, "released", "none", lock).record(event.duration());
                gauge(backend, lock).decrementAndGet();
            }
            case LOST -> {
                String reason = event.lossReason().map(r -> r.name().toLowerCase(Locale.ROOT)).orElse("none");
                timer(HELD, backend, "lost", reason, lock).record(event.duration());
                gauge(backend, lock).decrementAndGet();
            }
            case REVOKED -> {
                boolean holder = event.lossReason().isPresent();
                if (holder) {
                    timer(HELD, backend, "lost", "revoked", lock).record(event.duration());
                    gauge(backend, lock).decrementAndGet();
                }
                revocations(backend, holder ? "holder" : "operator", lock).increment();
            }
            case EXTENDED -> counter(backend, "extended", lock).increment();
            case RENEWAL_FAILED -> counter(backend, "unknown", lock).increment();
        }
    }

    private String lockTag(String lockName) {
        if (lockNameTag == null) {
            return null;
        }
        return Objects.requireNonNull(lockNameTag.apply(lockName), "the lock-name tag function returned null");
    }

    private Tags tags(String backend, String outcome, String reason, String lock) {
        Tags tags = commonTags.and("backend", backend);
        if (outcome != null) {
            tags = tags.and("outcome", outcome);
        }
        if (reason != null) {
            tags = tags.and("reason", reason);
        }
        return lock == null ? tags : tags.and("lock", lock);
    }

    private Timer timer(String name, String backend, String outcome, String reason, String lock) {
        return (Timer) meters.computeIfAbsent(new Key(name, backend, outcome, reason, lock), k -> Timer.builder(name)
                .description(name.equals(ACQUIRE) ? "How long acquires took, waiting included, by outcome"
                        : "How long leases were held, by how they ended")
                .tags(tags(backend, outcome, reason, lock))
                .register(registry));
    }

    private Counter counter(String backend, String outcome, String lock) {
        return (Counter) meters.computeIfAbsent(new Key(EXTENSIONS, backend, outcome, null, lock), k -> Counter.builder(EXTENSIONS)
                .description("Lease extensions and renewals: confirmed, or with no definite answer")
                .tags(tags(backend, outcome, null, lock))
                .register(registry));
    }

    private Counter revocations(String backend, String side, String lock) {
        return (Counter) meters.computeIfAbsent(new Key(REVOCATIONS, backend, side, null, lock), k -> Counter.builder(REVOCATIONS)
                .description("Locks taken back by an operator: on the evicted holder's client and on the operator's")
                .tags(tags(backend, null, null, lock).and("side", side))
                .register(registry));
    }

    private AtomicLong gauge(String backend, String lock) {
        return held.computeIfAbsent(new Key(LEASES_HELD, backend, null, null, lock), k -> {
            AtomicLong count = new AtomicLong();
            Gauge.builder(LEASES_HELD, count, AtomicLong::get)
                    .description("Leases held now")
                    .tags(tags(backend, null, null, lock))
                    .register(registry);
            return count;
        });
    }

    @Override
    public String toString() {
        return "MicrometerLockListener[" + registry.getClass().getSimpleName()
                + (lockNameTag != null ? ", lock tag" : "") + "]";
    }

    /** Builds a {@link MicrometerLockListener}. */
    public static final class Builder {
        private final MeterRegistry registry;
        private Function<String, String> lockNameTag;
        private Tags tags = Tags.empty();

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * Adds a {@code lock} tag to every meter, its value mapped from the lock name. Keep the set of
         * values small (a prefix, a job type): each one is a time series per meter and outcome.
         *
         * @param function maps a lock name to a tag value; must not return null
         * @return this builder
         * @throws NullPointerException if {@code function} is null
         */
        public Builder lockNameTag(Function<String, String> function) {
            this.lockNameTag = Objects.requireNonNull(function, "function");
            return this;
        }

        /**
         * Adds tags to every meter (an application or region name, say).
         *
         * @param extra the tags
         * @return this builder
         * @throws NullPointerException if {@code extra} is null
         */
        public Builder tags(Iterable<Tag> extra) {
            this.tags = tags.and(Objects.requireNonNull(extra, "extra"));
            return this;
        }

        /** @return the listener */
        public MicrometerLockListener build() {
            return new MicrometerLockListener(this);
        }
    }
}
