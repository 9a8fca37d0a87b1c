package io.distlock.cli.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The protected resource: a ledger that takes a write only with a fencing token higher than the
 * last one it accepted, like {@code UPDATE ledger SET report=?, last_token=? WHERE last_token < ?}.
 * This check, not the lock alone, is what stops a stale holder.
 */
final class FencedStore {

    private long lastToken = -1;
    private String lastWriter = "nobody";
    private final List<String> log = new ArrayList<>();

    /** @return true if the write was accepted */
    synchronized boolean write(String writer, long token, String what) {
        if (token <= lastToken) {
            log.add("REJECTED " + writer + " (token " + token + " <= " + lastToken + " from " + lastWriter + "): " + what);
            return false;
        }
        lastToken = token;
        lastWriter = writer;
        log.add("accepted " + writer + " (token " + token + "): " + what);
        return true;
    }

    synchronized List<String> log() {
        return List.copyOf(log);
    }
}
