/**
 * A ShedLock {@code LockProvider} on any distlock backend: {@link io.distlock.shedlock.DistlockLockProvider}.
 * The backend itself is found by distlock's discovery from the URI's scheme: add its module
 * (for example {@code io.distlock.redis}) to the module path as well.
 */
module io.distlock.shedlock {
    requires transitive io.distlock;
    requires transitive net.javacrumbs.shedlock.core;

    exports io.distlock.shedlock;
}
