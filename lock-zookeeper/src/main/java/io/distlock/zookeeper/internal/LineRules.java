package io.distlock.zookeeper.internal;

import io.distlock.spi.Hold;

import java.util.ArrayList;
import java.util.List;

/**
 * Who is let in, read off a line of request nodes in sequence order (the one listing an attempt
 * made), and what a request that is not let in watches: the policy of every primitive of this
 * backend, apart from the driver's mechanism (Curator's {@code LockInternalsDriver} split, where a
 * read lock is the same loop with another predicate).
 *
 * <ul>
 *   <li><b>Lock, write lock</b>: granted iff first. Watches its immediate predecessor: only that
 *       node's deletion can make it first or bring a new predecessor.</li>
 *   <li><b>Read lock</b>: granted iff no write node is ahead of it — so a waiting writer's node holds
 *       back every reader that came after it (write preference), and readers ahead of it keep their
 *       holds. Watches the closest write node ahead: a deletion of an earlier one leaves that one in
 *       its way, and a reader ahead going changes nothing for it.</li>
 *   <li><b>Permit</b> of a semaphore of {@code n}: granted iff fewer than {@code n} nodes are ahead.
 *       Watches the {@code n} nodes right ahead of it (a window). Any deletion among them may let it
 *       in or move it up; a deletion further ahead moves the whole window up by one place with it, so
 *       the window keeps the same nodes and the request, then still {@code n} or more places back, is
 *       still not let in. Watching only the node {@code n} places ahead would miss a deletion between
 *       it and the request, which may be the one that lets it in (with {@code n = 2} and the line
 *       {@code A B C}: {@code B} goes, {@code C} may go in, and {@code A} is still there). A
 *       deletion so wakes at most {@code n} waiters (those at most {@code n} places behind it), of
 *       which at most one is let in; an arrival, a renewal or a grant wakes nobody.</li>
 *   <li>A permit request whose line has a node <em>ahead</em> with another permit count is refused:
 *       the line's order decides whose count stands. A node behind with another count refuses
 *       itself when it looks (it sees ours ahead), so it is not counted against ours either way: two
 *       nodes of different counts are never both granted, as the later one's listing shows the
 *       earlier one for as long as it lives.</li>
 * </ul>
 */
final class LineRules {

    private LineRules() {
    }

    /**
     * What one look at the line decided for a request.
     *
     * @param granted        the request is let in
     * @param watch          when not: the nodes (names in the line) whose deletion may let it in
     * @param storedPermits  when positive: the permit count of a node ahead that differs from the
     *                       request's (the request is refused)
     */
    record Verdict(boolean granted, List<String> watch, int storedPermits) {

        static final Verdict GRANTED = new Verdict(true, List.of(), 0);

        static Verdict waitFor(List<String> nodes) {
            return new Verdict(false, List.copyOf(nodes), 0);
        }

        static Verdict mismatch(int stored) {
            return new Verdict(false, List.of(), stored);
        }

        boolean refused() {
            return storedPermits > 0;
        }
    }

    /**
     * Whether the node at {@code place} holds, judged as its own request would judge it (the hold is
     * read off its name, {@link ZkPaths#holdOf}): what an inspector or a revoke tells a hold from a
     * waiter by, in the same listing.
     *
     * <p>Once a node holds by these rules it keeps holding for as long as it lives: nodes join a line
     * only behind the last, so the nodes ahead of it can only go, and none of the rules takes a hold
     * back when a node ahead goes. So the holds of a line are a prefix of it (a waiter is never ahead
     * of a hold), and a node that held in a listing still holds when a later request deletes it.
     * It may hold before its own client knows it: a waiter let in by a deletion holds from that
     * deletion on, and its client learns it at its next look (the lock's first node is its holder
     * in the same way).
     *
     * @param queue the line, first in line first ({@link ZkPaths#queue(List, Hold)})
     * @param place the index of the node in {@code queue}
     * @return true if it holds, false if it waits (or is refused: another count ahead of a permit)
     */
    static boolean holds(List<String> queue, int place) {
        return judge(ZkPaths.holdOf(queue.get(place)), queue, place).granted();
    }

    /**
     * Every node of {@code queue} that holds, as {@link #holds} judges each — in one pass along the
     * line, keeping what the rules look at ahead of each node (a writer seen, whether every count so
     * far is the first's), where judging each node on its own would cost a walk back along the line
     * per node: quadratic in a semaphore of thousands of permits.
     *
     * @param queue the line, first in line first
     * @return the nodes that hold, first in line first (a prefix of the line, as {@link #holds} says)
     */
    static List<String> holding(List<String> queue) {
        List<String> held = new ArrayList<>();
        boolean writerAhead = false;
        boolean oneCountAhead = true; // every node ahead has the first node's count
        int firstCount = 0;
        for (int place = 0; place < queue.size(); place++) {
            String node = queue.get(place);
            Hold hold = ZkPaths.holdOf(node);
            boolean holds;
            switch (hold.kind()) {
                case READ:
                    holds = !writerAhead;
                    break;
                case PERMIT:
                    holds = place < hold.permits() && (place == 0 || oneCountAhead && firstCount == hold.permits());
                    break;
                default:
                    holds = place == 0;
                    break;
            }
            if (holds) {
                held.add(node);
            }
            writerAhead |= ZkPaths.isWrite(node);
            if (place == 0) {
                firstCount = hold.permits();
            } else {
                oneCountAhead &= hold.permits() == firstCount;
            }
        }
        return held;
    }

    /**
     * @param hold  what the request asks for
     * @param queue the line of its primitive, first in line first ({@link ZkPaths#queue(List, Hold)})
     * @param place the index of the request's own node in {@code queue} (not negative)
     * @return the verdict
     */
    static Verdict judge(Hold hold, List<String> queue, int place) {
        switch (hold.kind()) {
            case READ:
                for (int i = place - 1; i >= 0; i--) {
                    if (ZkPaths.isWrite(queue.get(i))) {
                        return Verdict.waitFor(List.of(queue.get(i)));
                    }
                }
                return Verdict.GRANTED;
            case PERMIT:
                for (int i = 0; i < place; i++) {
                    int count = ZkPaths.permitsOf(queue.get(i));
                    if (count != hold.permits()) {
                        return Verdict.mismatch(count);
                    }
                }
                return place < hold.permits() ? Verdict.GRANTED : Verdict.waitFor(queue.subList(place - hold.permits(), place));
            default: // the lock, and a read-write lock's write side
                return place == 0 ? Verdict.GRANTED : Verdict.waitFor(List.of(queue.get(place - 1)));
        }
    }
}
