package io.distlock.tck.memory;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.PartitionedClient;
import io.distlock.tck.ServerRestart;

import java.util.List;
import java.util.Optional;

/** The TCK's whitebox hooks for one in-memory server, as the real backends' verifications supply them. */
final class MemoryHooks {

    private final String scheme;
    private final String serverName;
    private final Bug bug;

    MemoryHooks(String scheme, String serverName, Bug bug) {
        this.scheme = scheme;
        this.serverName = serverName;
        this.bug = bug;
    }

    private MemoryServer server() {
        return MemoryServer.named(scheme, serverName, bug);
    }

    /** Clients each on a {@link MemoryLink} of their own. */
    ClientPartition partition() {
        return () -> {
            MemoryLink link = MemoryLink.create();
            try {
                LockClient client = Locks.connect(scheme + "://" + serverName + "?link=" + link.id());
                return new PartitionedClient(client, List.of(link), link::remove);
            } catch (RuntimeException e) {
                link.remove();
                throw e;
            }
        };
    }

    LockProbe probe() {
        return name -> Optional.ofNullable(server().heldFor(name));
    }

    ServerRestart restart() {
        return () -> server().restart();
    }

    /**
     * @param tellHolder true for a session expiry (the holder's driver hears of it), false for a
     *                   key deleted on the server (the holder learns only when it next asks)
     */
    LeaseRevocation revocation(boolean tellHolder) {
        return (holder, lockName) -> server().revoke(lockName, tellHolder);
    }
}
