package io.distlock.tair;

import io.distlock.Lease;
import io.distlock.spi.DriverContext;
import io.distlock.spi.Grant;

/** The engine's side of a driver for tests that drive {@code TairLockDriver} directly: it hears nothing. */
final class NoEngine implements DriverContext {

    @Override
    public void leaseLost(Grant grant, Lease.LossReason reason) {
    }

    @Override
    public void connectionSuspended() {
    }

    @Override
    public void connectionRestored() {
    }
}
