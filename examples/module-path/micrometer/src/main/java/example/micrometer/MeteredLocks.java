package example.micrometer;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.micrometer.MicrometerLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;

/**
 * lock-micrometer's README on the module path: a client whose lock events go to a Micrometer
 * registry. Run as {@code java --module-path ... -m example.micrometer/example.micrometer.MeteredLocks <uri>};
 * takes and releases one lock, prints the two timers that recorded it and exits 0.
 */
public final class MeteredLocks {

    private MeteredLocks() {
    }

    public static void main(String[] args) throws InterruptedException {
        MeterRegistry meterRegistry = new SimpleMeterRegistry();
        LockOptions options = LockOptions.builder().listener(MicrometerLockListener.of(meterRegistry)).build();
        try (LockClient client = Locks.connect(args[0], options);
             Lease lease = client.lock("metered").acquire(Duration.ofSeconds(30))) {
            System.out.println("micrometer: holding " + lease.lockName());
        }
        System.out.println("micrometer: distlock.acquire{outcome=acquired} count="
                + meterRegistry.get("distlock.acquire").tag("outcome", "acquired").timer().count()
                + ", distlock.held{outcome=released} count="
                + meterRegistry.get("distlock.held").tag("outcome", "released").timer().count());
    }
}
