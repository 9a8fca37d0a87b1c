/**
 * Micrometer metrics for distlock: {@link io.distlock.micrometer.MicrometerLockListener}, set on a
 * client's {@code LockOptions}, records its lock events in a {@code MeterRegistry}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.micrometer {
    requires transitive io.distlock;
    requires transitive micrometer.core;

    exports io.distlock.micrometer;
}
