package io.distlock.bench;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.LockOptions;
import io.distlock.spi.DriverContext;
import io.distlock.spi.LockBackend;
import io.distlock.spi.LockDriver;

import java.net.URI;
import java.util.EnumSet;

/**
 * {@code bench-etcd://host:port[/prefix][?sessionTtl=s]}: the installed {@code etcd://} backend,
 * unchanged, with its renewal ticks counted ({@link #TICKS}) for the etcd scale row. The backend is
 * found by its scheme at run time, as {@link Peers} finds it, so lock-bench still compiles without
 * lock-etcd; without it, connecting fails and the etcd rows are not run (see {@link Peers#etcd}).
 */
public final class CountingEtcdBackend implements LockBackend {

    /** Every renewal tick of every {@code bench-etcd://} client in this JVM. */
    static final TickLog TICKS = new TickLog();

    static final String SCHEME = "bench-etcd";

    /** For {@link java.util.ServiceLoader}; cheap, no I/O. */
    public CountingEtcdBackend() {
    }

    /** Describes itself as etcd does, under its own scheme; without lock-etcd, as a backend of no features. */
    @Override
    public BackendDescriptor descriptor() {
        BackendDescriptor etcd;
        try {
            etcd = EtcdPeers.etcdBackend().descriptor();
        } catch (IllegalStateException notInstalled) {
            return new BackendDescriptor(SCHEME, Guarantee.EFFICIENCY, EnumSet.noneOf(Feature.class));
        }
        return new BackendDescriptor(SCHEME, etcd.guarantee(), etcd.features());
    }

    @Override
    public LockDriver connect(URI uri, LockOptions options, DriverContext context) {
        URI asEtcd = URI.create("etcd" + uri.toString().substring(SCHEME.length()));
        return TICKS.counting(EtcdPeers.etcdBackend().connect(asEtcd, options, context));
    }
}
