package io.distlock.redlock.internal;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.LockSnapshot;
import io.distlock.redis.support.RedisNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A lock as a Redlock majority shows it: each node's answer to the family's read
 * ({@link LockSnapshot}) or to the revoke script, put together. A lease is shown (or counted as
 * revoked) only if a quorum of nodes holds the same owner token; then its owner and grant time are
 * that lease's owner record's (the earliest node's time), and its remaining time what a quorum
 * still holds it for (the quorum-th longest {@code PTTL}). Where the nodes do not all agree, the
 * detail lists each node's answer — never a token, which is the lease's secret. Nobody holds the
 * lock if no lease can be on a quorum, counting the nodes that did not answer as holding anything;
 * otherwise the answer is unknown.
 */
final class MajorityView {

    /** One node's answer. */
    private record NodeAnswer(String node, LockSnapshot snapshot, String failure) {
    }

    private final String name;
    private final int quorum;
    private final List<NodeAnswer> answers;
    private final List<RuntimeException> refusals;
    private final List<FanOut.Answer> fanOut;

    private MajorityView(String name, int quorum, List<NodeAnswer> answers, List<RuntimeException> refusals,
                         List<FanOut.Answer> fanOut) {
        this.name = name;
        this.quorum = quorum;
        this.answers = answers;
        this.refusals = refusals;
        this.fanOut = fanOut;
    }

    /**
     * @param name    the lock name
     * @param answers every node's answer to a fan-out carrying {@link LockSnapshot#calls} for the name
     * @param offset  where the name's calls start among each node's replies
     * @param quorum  the quorum
     * @return the view
     */
    static MajorityView read(String name, List<FanOut.Answer> answers, int offset, int quorum) {
        List<NodeAnswer> nodes = new ArrayList<>();
        List<RuntimeException> refusals = new ArrayList<>();
        for (FanOut.Answer answer : answers) {
            if (!answer.answered()) {
                nodes.add(new NodeAnswer(answer.node().toString(), null, "no answer"));
                continue;
            }
            try {
                nodes.add(new NodeAnswer(answer.node().toString(),
                        LockSnapshot.parse(name, answer.replies(), offset, answer.node().redis.endpoint()), null));
            } catch (AccessDeniedException | AuthenticationException e) {
                refusals.add(e);
                nodes.add(new NodeAnswer(answer.node().toString(), null, "refused"));
            } catch (LockException e) {
                nodes.add(new NodeAnswer(answer.node().toString(), null, "error: " + e.getMessage()));
            }
        }
        return new MajorityView(name, quorum, nodes, refusals, answers);
    }

    /**
     * @param name    the lock name
     * @param answers every node's answer to a fan-out of the revoke script
     * @param quorum  the quorum
     * @return what a majority revoked
     */
    static MajorityView revoked(String name, List<FanOut.Answer> answers, int quorum) {
        List<NodeAnswer> nodes = new ArrayList<>();
        List<RuntimeException> refusals = new ArrayList<>();
        for (FanOut.Answer answer : answers) {
            if (!answer.answered()) {
                nodes.add(new NodeAnswer(answer.node().toString(), null, "no answer"));
                continue;
            }
            Object reply = answer.replies().values().get(0);
            if (reply instanceof AccessDeniedException || reply instanceof AuthenticationException) {
                refusals.add((RuntimeException) reply);
                nodes.add(new NodeAnswer(answer.node().toString(), null, "refused"));
            } else if (reply instanceof LockException e) {
                nodes.add(new NodeAnswer(answer.node().toString(), null, "error: " + e.getMessage()));
            } else {
                RedisNode.Revocation revocation = RedisNode.revocation(name, reply);
                nodes.add(new NodeAnswer(answer.node().toString(), revocation == null
                        ? new LockSnapshot(name, null, -2, null, java.util.OptionalLong.empty(), false) : revocation.snapshot(), null));
            }
        }
        return new MajorityView(name, quorum, nodes, refusals, answers);
    }

    /** @return the nodes' refusals of this client (credentials, ACL) */
    List<RuntimeException> refusals() {
        return refusals;
    }

    /** @return the owner token a quorum holds (the revoked lease's), or null */
    String token() {
        Map<String, List<LockSnapshot>> held = byToken();
        return held.entrySet().stream().filter(e -> e.getValue().size() >= quorum).map(Map.Entry::getKey).findFirst().orElse(null);
    }

    /**
     * @param operation what was being done, for the message of an unknown answer
     * @return the lease a quorum holds; empty if no lease can be on a quorum
     * @throws io.distlock.BackendUnavailableException if the answers do not decide it
     */
    Optional<LockInfo> holder(String operation) {
        Map<String, List<LockSnapshot>> held = byToken();
        String token = token();
        if (token == null) {
            long unanswered = answers.stream().filter(a -> a.snapshot() == null).count();
            boolean possible = unanswered >= quorum || held.values().stream().anyMatch(nodes -> nodes.size() + unanswered >= quorum);
            if (possible) {
                throw FanOut.tooFewNodes(fanOut, quorum, operation + " (the nodes that answered do not decide it: "
                        + describeNodes(null) + ")");
            }
            return Optional.empty();
        }
        List<LockSnapshot> nodes = held.get(token);
        LockSnapshot first = nodes.stream().filter(n -> n.record() != null).findFirst().orElse(nodes.get(0));
        LockInfo.Builder info = LockInfo.builder(name);
        if (first.record() != null) {
            info.owner(first.record().owner());
            nodes.stream().filter(n -> n.record() != null && n.record().acquiredAt() != null)
                    .map(n -> n.record().acquiredAt()).min(Comparator.naturalOrder())
                    .ifPresent(at -> info.acquiredAt(at, LockInfo.Clock.SERVER));
        }
        List<Long> pttls = nodes.stream().map(LockSnapshot::pttlMillis).sorted(Comparator.reverseOrder()).toList();
        long majority = pttls.get(quorum - 1);
        if (majority >= 0) {
            info.remaining(Duration.ofMillis(majority));
        }
        boolean unanimous = nodes.size() == answers.size();
        info.detail(LockScripts.lockKey(name) + (unanimous ? "" : " on " + nodes.size() + " of " + answers.size()
                + " nodes: " + describeNodes(token)));
        return Optional.of(info.build());
    }

    private Map<String, List<LockSnapshot>> byToken() {
        Map<String, List<LockSnapshot>> held = new LinkedHashMap<>();
        for (NodeAnswer answer : answers) {
            if (answer.snapshot() != null && answer.snapshot().held()) {
                held.computeIfAbsent(answer.snapshot().ownerToken(), t -> new ArrayList<>()).add(answer.snapshot());
            }
        }
        return held;
    }

    /** Each node's answer, in words: held by this lease (time left), by another (its owner), free, not a lock, none. */
    private String describeNodes(String token) {
        List<String> parts = new ArrayList<>();
        for (NodeAnswer answer : answers) {
            LockSnapshot s = answer.snapshot();
            String what;
            if (s == null) {
                what = answer.failure();
            } else if (s.wrongType()) {
                what = "not a distlock lock";
            } else if (!s.held()) {
                what = "free";
            } else if (s.ownerToken().equals(token)) {
                what = "held" + (s.pttlMillis() >= 0 ? String.format(Locale.ROOT, ", %.1f s left", s.pttlMillis() / 1000.0) : "");
            } else {
                what = "held by " + (token == null ? "a lease" : "another lease")
                        + (s.record() != null ? " of '" + s.record().owner() + "'" : "");
            }
            parts.add(answer.node() + " " + what);
        }
        return String.join("; ", parts);
    }

    @Override
    public String toString() {
        return "MajorityView['" + name + "', " + describeNodes(token()) + "]";
    }
}
