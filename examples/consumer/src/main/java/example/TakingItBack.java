package example;

import io.distlock.LockClient;
import io.distlock.LockInfo;

import java.util.Optional;

/**
 * The README's third example: an operator's side of a stuck job. Who holds its lock, and taking it
 * back so that the holder — paused, not dead — cannot write after the next holder: the server ends
 * its lease and moves the fence (on a backend with fencing tokens), and the holder's client learns
 * it ({@code lost()} completes with {@code REVOKED}).
 */
public final class TakingItBack {

    private TakingItBack() {
    }

    /**
     * @param ops a client whose principal may revoke (each backend's README gives the rights)
     * @return the holder revoked, or empty if nobody held the lock
     */
    public static Optional<LockInfo> takeBack(LockClient ops, String name, String reason) {
        ops.inspect(name).ifPresent(holder ->                       // owner, token, since when, time left
                System.out.println("revoking " + holder + ": " + reason));
        return ops.revoke(name, reason);                            // ends its lease, moves the fence
    }
}
