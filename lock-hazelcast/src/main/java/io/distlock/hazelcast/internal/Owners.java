package io.distlock.hazelcast.internal;

import java.util.Deque;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The owner id each request of a client stands for on the cluster. A Hazelcast lock belongs to a
 * (client or CP session, thread id) pair; distlock gives every request a thread id of its own, so
 * that two requests of one client — from one thread or not — are two owners (a second acquire of a
 * held name is refused, not re-entered: TCK 1.6), and any thread can extend or release a lease.
 * The ids are this client's own sequence: the Hazelcast client is private to one distlock client,
 * so no Hazelcast thread of it takes locks with an id that could collide.
 *
 * <p><b>Ids are reused</b> once a request is forgotten with every attempt answered. A CP lock keeps,
 * per owner (session, thread id), the ids of its calls, to answer a repeated call as the first was
 * answered; it drops an owner's entries at that owner's next release, or when the session closes.
 * An id used once and never again would leave one entry per acquire for the life of the session
 * (a leak on the CP group, and a release that scans them all: it made every cycle slower). An owner
 * with an unanswered call keeps its id: a late copy of that call must never find a new request
 * holding under it (it would re-enter a re-entrant lock).
 */
final class Owners {

    /** One request's owner: its thread id, and the CP invocation id its acquire attempts repeat. */
    static final class Owner {
        final long threadId;
        /** The CP session an attempt of this request used last ({@code -1}: none). */
        volatile long session = -1;
        /**
         * Kept across attempts until one is answered: an attempt whose answer was lost is repeated
         * with the same invocation id, which the CP group recognises (a repeat of a lock that landed
         * returns the same fence, never a second hold of a re-entrant lock).
         */
        volatile UUID invocation = UUID.randomUUID();
        /**
         * An attempt or an extension of this request had no answer: a copy of it may still land, so
         * its holds are counted by asking the server, and the owner is kept for the engine's repeated
         * removals after the lease ends.
         */
        volatile boolean uncertain;

        Owner(long threadId) {
            this.threadId = threadId;
        }

        /** An attempt was answered: the next one is a new invocation. */
        void answered() {
            invocation = UUID.randomUUID();
        }
    }

    private final AtomicLong nextThreadId = new AtomicLong(1);
    /** Ids of forgotten owners whose every call was answered, latest first (so that few ids are in use). */
    private final Deque<Long> free = new ConcurrentLinkedDeque<>();
    private final Map<String, Owner> byToken = new ConcurrentHashMap<>();

    /**
     * @param ownerToken a request's owner token
     * @return its owner, made on first use
     */
    Owner of(String ownerToken) {
        return byToken.computeIfAbsent(ownerToken, token -> {
            Long reused = free.pollFirst();
            return new Owner(reused != null ? reused : nextThreadId.getAndIncrement());
        });
    }

    /**
     * @param ownerToken a request's owner token
     * @return its owner, or null if no attempt of it was made (or it was forgotten)
     */
    Owner find(String ownerToken) {
        return byToken.get(ownerToken);
    }

    /**
     * Forgets a request whose hold is confirmed gone.
     *
     * @param ownerToken its owner token
     */
    void forget(String ownerToken) {
        Owner owner = byToken.remove(ownerToken);
        if (owner != null && !owner.uncertain) {
            free.addFirst(owner.threadId);
        }
    }
}
