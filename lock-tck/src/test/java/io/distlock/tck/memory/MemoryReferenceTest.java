package io.distlock.tck.memory;

import java.util.List;

/**
 * The reference backend must pass every rule that applies (those needing QUORUM are skipped: it has
 * one node). Its revocation drops the holder's grant without telling it, as a deleted key does. Its
 * server requires credentials and offers group 6's hook (see {@code MemoryBackend}).
 */
class MemoryReferenceTest extends MemoryVerification {

    MemoryReferenceTest() {
        super("memory", "secure-reference", false);
    }

    @Override
    protected List<String> malformedUris() {
        return List.of(
                "memory://tck:" + SECRET + "@",
                "memory://tck:" + SECRET + "@reference/some/path",
                "memory://tck:" + SECRET + "@reference?mode=fast",
                "memory://tck:" + SECRET + "@reference:6379",
                "memory:tck:" + SECRET);
    }

}
