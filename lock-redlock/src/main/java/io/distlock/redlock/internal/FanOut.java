package io.distlock.redlock.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.RedisFailure;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One operation sent to every node at once, from the calling thread: no thread per call, no
 * hand-off to an executor. First the calls are written and flushed to every node's connection,
 * then the replies are read in turn, each bounded by the same deadline (the send time plus the
 * per-node timeout). The nodes work concurrently, so the whole costs about one round trip plus N
 * reply parses, and a hung node costs at most the per-node timeout, never a lease.
 */
final class FanOut {

    /**
     * What one node answered.
     *
     * @param node    the node
     * @param replies its replies, or null if it failed
     * @param failure why it gave no replies (unreachable, too slow, refused), or null
     * @param kind    what the failure was, by type ({@link RedisFailure}), or null if it answered
     * @param sent    whether the calls may have reached the node (false: nothing was sent, as to a node
     *                being reconnected, so nothing of them can be there)
     * @param votes   whether its replies count towards a quorum (see {@link RedlockNode} on restarts)
     */
    record Answer(RedlockNode node, PendingReply.Replies replies, RuntimeException failure, RedisFailure kind, boolean sent,
                  boolean votes) {
        static Answer replied(RedlockNode node, PendingReply.Replies replies, boolean votes) {
            return new Answer(node, replies, null, null, true, votes);
        }

        static Answer failed(RedlockNode node, PendingReply pending, RuntimeException failure) {
            return new Answer(node, null, failure, pending.failure().orElse(RedisFailure.UNEXPECTED),
                    pending.mayHaveReachedServer(), false);
        }

        boolean answered() {
            return failure == null;
        }

        /**
         * @return true if the node is down for sure — the connection was refused, reset or closed on
         *         it — not merely slow to answer or short of pooled connections (a timeout may pass
         *         with the load that caused it)
         */
        boolean down() {
            return kind != null && kind.down();
        }
    }

    private FanOut() {
    }

    static List<Answer> run(List<RedlockNode> nodes, String operation, List<? extends PendingReply.Call> calls,
                            long deadlineNanos) {
        PendingReply.Batch batch = PendingReply.Batch.of(calls); // encoded once for all nodes
        PendingReply[] pending = new PendingReply[nodes.size()];
        for (int i = 0; i < pending.length; i++) {
            pending[i] = nodes.get(i).send(operation, batch);
        }
        List<Answer> answers = new ArrayList<>(nodes.size());
        for (int i = 0; i < pending.length; i++) {
            RedlockNode node = nodes.get(i);
            try {
                PendingReply.Replies replies = pending[i].await(deadlineNanos);
                long now = System.nanoTime();
                node.learn(replies.serverInfo(), now);
                answers.add(Answer.replied(node, replies, node.votes(now)));
            } catch (RuntimeException e) {
                answers.add(Answer.failed(node, pending[i], e));
            }
        }
        return answers;
    }

    /** @return true if so many nodes are down for sure that no quorum can answer */
    static boolean quorumDown(List<Answer> answers, int quorum) {
        return answers.stream().filter(Answer::down).count() > answers.size() - quorum;
    }

    /** @return how many nodes answered and vote */
    static int voting(List<Answer> answers) {
        return (int) answers.stream().filter(a -> a.answered() && a.votes()).count();
    }

    /** @return every node's {@code host:port}, comma-separated */
    static String endpoints(List<Answer> answers) {
        return answers.stream().map(a -> a.node().toString()).collect(Collectors.joining(","));
    }

    /**
     * @return the failure to report when too few nodes answered for a quorum: names every node
     *         that did not, with why
     */
    static BackendUnavailableException tooFewNodes(List<Answer> answers, int quorum, String operation) {
        return tooFew(answers, operation + " (quorum " + quorum + "), so its outcome is unknown");
    }

    /** As {@link #tooFewNodes}, for the check at connect, which changes nothing on the nodes. */
    static BackendUnavailableException tooFewNodesAtConnect(List<Answer> answers, int quorum) {
        return tooFew(answers, "on connect (quorum " + quorum + ")");
    }

    private static BackendUnavailableException tooFew(List<Answer> answers, String what) {
        String endpoints = endpoints(answers);
        String missing = answers.stream().filter(a -> !a.answered())
                .map(a -> a.node() + " (" + a.failure().getMessage() + ")")
                .collect(Collectors.joining("; "));
        long answered = answers.stream().filter(Answer::answered).count();
        BackendUnavailableException e = new BackendUnavailableException(endpoints, "redlock " + endpoints + ": only "
                + answered + " of " + answers.size() + " Redis nodes answered " + what + "; not answering: " + missing, null);
        answers.stream().filter(a -> !a.answered()).forEach(a -> e.addSuppressed(a.failure()));
        return e;
    }
}
