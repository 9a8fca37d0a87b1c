package io.distlock.cli;

import io.distlock.LockClient;
import io.distlock.LockInfo;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.Optional;

/**
 * Which primitive of a name {@code inspect} and {@code revoke} act on: the lock (the default), or with
 * {@code --semaphore} or {@code --read-write} the semaphore or read-write lock of that name, whose holds
 * are shown one per row and revoked one at a time by hold id. A name's three primitives are independent
 * objects on the server.
 */
final class Primitive {

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Choice choice;

    static final class Choice {
        @Option(names = "--semaphore", description = "The semaphore of that name: one row per permit held.")
        boolean semaphore;

        @Option(names = "--read-write", description = "The read-write lock of that name: one row per reader or writer.")
        boolean readWrite;
    }

    /** @return true for a semaphore's or a read-write lock's holds, false for the lock */
    boolean holds() {
        return choice != null;
    }

    /** @return "semaphore 'x'", "read-write lock 'x'" or "'x'" */
    String describe(String name) {
        return !holds() ? "'" + name + "'" : (choice.semaphore ? "semaphore '" : "read-write lock '") + name + "'";
    }

    /**
     * @return the holds of the name's semaphore or read-write lock (the handle's permit count plays no
     *         part in what is shown: each permit carries the count its server stores)
     */
    List<LockInfo> holders(LockClient client, String name) {
        return choice.semaphore ? client.semaphore(name, 1).holders() : client.readWriteLock(name).holders();
    }

    /** @return the hold revoked, or empty if no such hold is held */
    Optional<LockInfo> revoke(LockClient client, String name, String holdId, String reason) {
        return choice.semaphore ? client.semaphore(name, 1).revoke(holdId, reason) : client.readWriteLock(name).revoke(holdId, reason);
    }
}
