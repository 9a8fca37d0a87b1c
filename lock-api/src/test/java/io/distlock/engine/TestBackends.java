package io.distlock.engine;

import io.distlock.BackendDescriptor;
import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * Providers for discovery tests only: they are found by ServiceLoader, and their connect fails the
 * way an unreachable server does. Lock behaviour is verified against real backends and the TCK's
 * reference backend, never here.
 */
final class TestBackends {
    private TestBackends() {
    }

    /** Scheme {@code alpha}. */
    public static final class Alpha implements LockBackend {
        @Override
        public BackendDescriptor descriptor() {
            return new BackendDescriptor("alpha", Guarantee.EFFICIENCY, EnumSet.of(Feature.LEASE_EXTENSION));
        }

        @Override
        public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
            throw new BackendUnavailableException(uri.getHost() + ":" + uri.getPort(),
                    "alpha server " + uri.getHost() + ":" + uri.getPort() + " is unreachable", null);
        }
    }

    /** A second provider that also claims {@code alpha}. */
    public static final class AlphaTwin implements LockBackend {
        @Override
        public BackendDescriptor descriptor() {
            return new BackendDescriptor("alpha", Guarantee.EFFICIENCY, EnumSet.noneOf(Feature.class));
        }

        @Override
        public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
            throw new UnsupportedOperationException("never connected");
        }
    }

    /** A provider whose constructor fails, as one with a missing dependency would. */
    public static final class Broken implements LockBackend {
        public Broken() {
            throw new IllegalStateException("driver jar missing");
        }

        @Override
        public BackendDescriptor descriptor() {
            throw new AssertionError();
        }

        @Override
        public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
            throw new AssertionError();
        }
    }
}
