package io.distlock.engine;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.Feature;
import io.distlock.LockInfo;

import java.util.List;
import java.util.Optional;

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
    private final Inspection inspection;

    EngineReadWriteLock(String name, EngineLock read, EngineLock write, Inspection inspection) {
        this.name = name;
        this.read = read;
        this.write = write;
        this.inspection = inspection;
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
    public List<LockInfo> holders() {
        return inspection.holds(name, Feature.READ_WRITE);
    }

    @Override
    public Optional<LockInfo> revoke(String holdId, String reason) {
        return inspection.revokeHold(name, Feature.READ_WRITE, holdId, reason);
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + name + "]";
    }
}
