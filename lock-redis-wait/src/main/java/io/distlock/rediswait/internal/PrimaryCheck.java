package io.distlock.rediswait.internal;

import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.PendingReply.CommandCall;
import io.distlock.redis.support.RedisNode;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a data node says it is: its {@code ROLE} and, from {@code INFO replication}, how many
 * replicas are connected to it — asked in one pipelined round trip, before a node is used as the
 * primary.
 *
 * @param role              {@code master}, {@code slave} or {@code sentinel}
 * @param connectedReplicas {@code connected_slaves}, or -1 if the server did not say
 */
record PrimaryCheck(String role, int connectedReplicas) {

    private static final List<CommandCall> CALLS = List.of(new CommandCall("ROLE", List.of()),
            new CommandCall("INFO", List.of("replication")));

    /**
     * @param node          the node
     * @param deadlineNanos when to stop waiting for the answer ({@link System#nanoTime()})
     * @return its role and connected replicas
     * @throws io.distlock.BackendUnavailableException if it does not answer in time
     * @throws io.distlock.LockException                if it refuses (credentials, ACL)
     */
    static PrimaryCheck ask(RedisNode node, long deadlineNanos) {
        PendingReply.Replies replies = node.send("check its role and replicas", false, CALLS).await(deadlineNanos);
        String role = text(((List<?>) replies.value(0)).get(0));
        int connected = -1;
        for (String line : text(replies.value(1)).split("\r?\n")) {
            if (line.startsWith("connected_slaves:")) {
                connected = Integer.parseInt(line.substring("connected_slaves:".length()).strip());
            }
        }
        return new PrimaryCheck(role, connected);
    }

    boolean isPrimary() {
        return "master".equals(role);
    }

    static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
    }
}
