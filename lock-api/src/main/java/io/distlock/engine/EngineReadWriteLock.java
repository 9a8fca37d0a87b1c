package io.distlock.engine;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;

/**
 * The engine's {@link DistributedReadWriteLock}: two {@link EngineLock}s on one name, one asking the
 * driver for {@link io.distlock.spi.Hold#READ} holds and one for {@link io.distlock.spi.Hold#WRITE}.
 * Waiting, validity, renewal and cleanup are a lock's; what may be granted beside what is the
 * driver's (and the server's) to decide.
 */
final class EngineReadWriteLock implements DistributedReadWriteLock {

    private final String name;
    private final EngineLock read;
    private final EngineLock write;

    EngineReadWriteLock(String name, EngineLock read, EngineLock write) {
        this.name = name;
        this.read = read;
        this.write = write;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + name + "]";
    }
}
