package io.distlock.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * An in-memory protected resource that checks fencing tokens, the way a database guards a row
 * with {@code UPDATE ... WHERE last_token < ?}.
 *
 * <p>The rule: a write carrying token {@code t} is accepted if {@code t} is greater than the
 * highest token accepted so far, or equal to it <em>and</em> from the same writer (one holder may
 * write several times under one lease). Every other write is rejected and counted. Writers are
 * identified by a string the caller chooses: use one per lease, not one per client, since one
 * client holds many leases over time.
 *
 * <p>A write without a token (the backend has no {@link io.distlock.Feature#FENCING_TOKENS}) cannot
 * be checked: it is accepted and counted as unfenced. That is exactly the weakness of an
 * efficiency lock that rule 4.1 reports.
 *
 * <p>Thread-safe; writes are judged one at a time.
 */
public final class FencedResource {

    private long highestToken = Long.MIN_VALUE;
    private String lastWriter;
    private int accepted;
    private int unfenced;
    private final List<String> rejections = new ArrayList<>();

    /** An empty resource that has seen no token. */
    public FencedResource() {
    }

    /**
     * Judges and, if accepted, applies a write.
     *
     * @param writer who writes (one id per lease)
     * @param token  the writer's fencing token, or empty if the backend has none
     * @return true if accepted
     */
    public synchronized boolean write(String writer, OptionalLong token) {
        Objects.requireNonNull(writer, "writer");
        Objects.requireNonNull(token, "token");
        if (token.isEmpty()) {
            accepted++;
            unfenced++;
            return true;
        }
        long t = token.getAsLong();
        boolean ok = lastWriter == null || t > highestToken || (t == highestToken && writer.equals(lastWriter));
        if (ok) {
            highestToken = t;
            lastWriter = writer;
            accepted++;
        } else {
            rejections.add(writer + " with token " + t + " (highest seen " + highestToken + " from " + lastWriter + ")");
        }
        return ok;
    }

    /** @return the highest token accepted so far, or empty if none */
    public synchronized OptionalLong highestToken() {
        return lastWriter == null ? OptionalLong.empty() : OptionalLong.of(highestToken);
    }

    /** @return how many writes were accepted, unfenced ones included */
    public synchronized int accepted() {
        return accepted;
    }

    /** @return how many writes without a token were accepted unchecked */
    public synchronized int unfenced() {
        return unfenced;
    }

    /** @return how many writes were rejected */
    public synchronized int rejected() {
        return rejections.size();
    }

    /** @return a description of each rejected write, in order */
    public synchronized List<String> rejections() {
        return List.copyOf(rejections);
    }

    @Override
    public synchronized String toString() {
        return "FencedResource[highestToken=" + highestToken() + ", accepted=" + accepted + ", unfenced=" + unfenced
                + ", rejected=" + rejections.size() + "]";
    }
}
