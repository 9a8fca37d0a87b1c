package io.distlock.redlock.internal;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.redis.support.LockScripts;
import io.distlock.redis.support.LockSnapshot;
import io.distlock.redis.support.PendingReply;
import io.distlock.redis.support.PendingReply.ScriptCall;
import io.distlock.redis.support.RedisEndpoint;
import io.distlock.redis.support.RedisNode;
import io.distlock.redis.support.RedisScript;
import io.distlock.redis.support.Revocations;
import io.distlock.spi.Attempt;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;
import io.distlock.spi.Revoked;
import io.distlock.spi.Validity;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The Redlock {@link LockDriver}: every operation is one {@link FanOut} over N independent Redis
 * nodes, on the single-Redis key layout ({@link LockScripts}: its compare-and-extend script; a
 * compare-and-delete of its own, {@link #RELEASE}; acquiring is {@code SET NX PX GET} with the owner
 * record, {@link LockScripts#ACQUIRE_UNFENCED}), and
 * counts only with a quorum of {@code N/2 + 1}. Waiting, back-off with jitter, renewal scheduling
 * and the lease's validity are the engine's; this driver tries once.
 *
 * <p><b>Validity.</b> A grant counts only if a quorum of voting nodes took it <em>and</em>
 * {@code validity = ttl − elapsed − drift} is still positive, with the drift allowance of
 * {@link LockOptions#clockDrift} ({@code ttl × 0.01 + 2 ms} by default) — the same formula the
 * engine then uses for {@code remaining()}, from the same start. Every attempt that fails releases
 * on every node that may hold the owner token: a {@code SET} may have landed although its reply
 * was lost or came too late.
 *
 * <p>No fencing token: a quorum's counters are not monotonic once a node restarts empty (its
 * counter starts over while the others' do not), so none is offered.
 */
public final class RedlockDriver implements LockDriver {

    /**
     * Compare-and-delete on one node. KEYS: lock key, owner record. ARGV: owner token. Replies 1 if
     * the token held the lock and it was deleted (with its owner record), else 0 (also for a key of another type: {@code redis.pcall}
     * turns {@code GET}'s WRONGTYPE into a value that equals no token). The single-Redis
     * {@link LockScripts#RELEASE} also publishes on the lock's channel for its waiters; Redlock has
     * no release notification (waiters poll), so that {@code PUBLISH} would be work for nothing on
     * each of the N nodes, on every release.
     */
    static final RedisScript RELEASE = new RedisScript("redlock-release", String.join("\n",
            "if redis.pcall('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1], KEYS[2])",
            "  return 1",
            "end",
            "return 0"));

    /** Locks read per pipelined fan-out of {@link #holders}. */
    private static final int INSPECT_CHUNK = 512;

    private final RedlockSettings settings;
    private final LockOptions options;
    private final List<RedlockNode> nodes;
    private final List<RedisNode> servers;
    private final int quorum;
    private final long nodeTimeoutNanos;
    private final Revocations revocations;

    private RedlockDriver(RedlockSettings settings, LockOptions options, List<RedlockNode> nodes, Revocations revocations) {
        this.settings = settings;
        this.options = options;
        this.nodes = List.copyOf(nodes);
        this.servers = this.nodes.stream().map(n -> n.redis).toList();
        this.quorum = settings.quorum();
        this.nodeTimeoutNanos = settings.nodeTimeout().toNanos();
        this.revocations = revocations;
    }

    /**
     * Opens a connection pool per node and checks, in one fan-out of {@code INFO}, that a quorum
     * answers, that no two listed nodes are the same server (same {@code run_id}) and that none
     * is a replica.
     *
     * @param settings the parsed URI
     * @param options  the client's options (connect timeout for this check, drift)
     * @param context  the engine: the owner description grants record, and where revocations go
     * @return the connected driver
     * @throws BackendUnavailableException if fewer than a quorum of nodes answer within the connect timeout
     * @throws IllegalArgumentException    if two nodes are one server, or a node is a replica
     */
    public static RedlockDriver connect(RedlockSettings settings, LockOptions options, DriverContext context) {
        List<RedlockNode> nodes = new ArrayList<>();
        for (RedisEndpoint endpoint : settings.nodes()) {
            // Connecting is part of a fan-out too, so it gets the per-node bound as well.
            // A TLS handshake is part of connecting: bounded by the connect timeout, not the per-node one.
            nodes.add(new RedlockNode(RedisNode.openForFanOut(endpoint, settings.nodeTimeout(), settings.nodeTimeout(),
                    options.connectTimeout(), settings.poolSize()), settings.restartDelay()));
        }
        RedlockDriver driver = new RedlockDriver(settings, options, nodes, new Revocations(context));
        try {
            driver.check(System.nanoTime() + Math.max(options.connectTimeout().toNanos(), driver.nodeTimeoutNanos));
            return driver;
        } catch (RuntimeException e) {
            driver.close();
            throw e;
        }
    }

    private void check(long deadlineNanos) {
        // A node's first send connects (TCP, TLS handshake, AUTH): made one node after another on this
        // thread, a node that accepts and never finishes its TLS handshake took its whole bound before
        // the next node was tried (three such nodes: three connect timeouts, rule 5.9 over TLS). Each
        // connects on a short-lived thread of its own instead, and every reply is awaited within the deadline.
        List<PendingReply> pending = new ArrayList<>();
        for (RedlockNode node : nodes) {
            pending.add(node.redis.sendConnecting("connect", true));
        }
        List<FanOut.Answer> answers = new ArrayList<>();
        List<PendingReply.ServerInfo> infos = new ArrayList<>();
        List<RedlockNode> described = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            try {
                PendingReply.Replies replies = pending.get(i).await(deadlineNanos);
                nodes.get(i).learn(replies.serverInfo(), System.nanoTime());
                answers.add(FanOut.Answer.replied(nodes.get(i), replies, true));
                if (replies.serverInfo().isPresent()) {
                    infos.add(replies.serverInfo().get());
                    described.add(nodes.get(i));
                }
            } catch (BackendUnavailableException e) {
                answers.add(FanOut.Answer.failed(nodes.get(i), pending.get(i), e));
            }
        }
        long answered = answers.stream().filter(FanOut.Answer::answered).count();
        if (answered < quorum) {
            throw FanOut.tooFewNodesAtConnect(answers, quorum);
        }
        for (int i = 0; i < infos.size(); i++) {
            PendingReply.ServerInfo a = infos.get(i);
            if ("slave".equals(a.role())) {
                throw new IllegalArgumentException("redlock node " + described.get(i) + " is a replica (role:slave): Redlock needs"
                        + " independent primaries; a replica's copy of a lock is not a vote of its own");
            }
            for (int j = i + 1; j < infos.size(); j++) {
                if (a.runId().equals(infos.get(j).runId())) {
                    throw new IllegalArgumentException("redlock nodes " + described.get(i) + " and " + described.get(j)
                            + " are the same Redis server (run_id " + a.runId() + "): it would cast two votes");
                }
            }
        }
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        settings.checkLeaseTime(request.leaseTime());
        String name = request.name();
        long ttl = millis(request.leaseTime());
        long start = System.nanoTime();
        servers.forEach(revocations::listenOn); // subscribed, and the token listened for, while the acquire is on its way
        revocations.acquiring(name, request.ownerToken(), ttl);
        // SET NX PX GET and, when it took, the owner record (LockScripts.ACQUIRE_UNFENCED): no fence
        // counter to keep (Redlock offers none). GET (with NX, Redis 7.0+) tells who holds the key
        // when it is not set.
        List<FanOut.Answer> answers = FanOut.run(nodes, "acquire '" + name + "'", List.of(new ScriptCall(
                LockScripts.ACQUIRE_UNFENCED, List.of(LockScripts.lockKey(name), LockScripts.ownerKey(name)),
                List.of(request.ownerToken(), Long.toString(ttl), revocations.owner()))), start + nodeTimeoutNanos);
        int granted = 0;
        int busy = 0;
        int waiting = 0;
        int stale = 0;
        long retryAfterNanos = Long.MAX_VALUE;
        List<RedlockNode> mayHoldIt = new ArrayList<>();
        List<RedisNode> grantedOn = new ArrayList<>();
        RuntimeException refused = null;
        long now = System.nanoTime();
        for (FanOut.Answer answer : answers) {
            if (!answer.answered()) {
                if (answer.sent()) {
                    mayHoldIt.add(answer.node()); // the SET may have landed although no reply came in time
                }
                if (!(answer.failure() instanceof BackendUnavailableException) && refused == null) {
                    refused = answer.failure(); // credentials or ACL refused, or the client was closed
                }
                continue;
            }
            Object holder;
            try {
                holder = answer.replies().value(0);
            } catch (LockException e) {
                refused = refused == null ? e : refused; // a key of the wrong type: nothing was written there
                continue;
            }
            if (holder == null) {
                mayHoldIt.add(answer.node());
                if (answer.votes()) {
                    granted++;
                    grantedOn.add(answer.node().redis);
                } else {
                    waiting++;
                    retryAfterNanos = Math.min(retryAfterNanos, answer.node().untilVoting(now).toNanos());
                }
            } else if (request.ownerToken().equals(new String((byte[]) holder, StandardCharsets.UTF_8))) {
                // Ours from an earlier attempt of this request whose release did not get through: its
                // expiry is that attempt's, not this one's, so it is no vote; take it back.
                mayHoldIt.add(answer.node());
                stale++;
            } else {
                busy++; // another owner's token: nothing of ours is there
            }
        }
        // Validity = ttl − elapsed − drift: the lease counts only if some of it is left.
        long validityNanos = Validity.deadline(options, start, request.leaseTime()) - now;
        if (refused == null && granted >= quorum && validityNanos > 0) {
            revocations.granted(name, request.ownerToken(), ttl);
            // Every node that holds the lease, not just a quorum of them: a revoke that reaches only
            // one of them (the others silent) still publishes there, and the holder must hear it.
            revocations.awaitListening(grantedOn);
            return Attempt.granted(new Grant(request, OptionalLong.empty(), null));
        }
        releaseOn(mayHoldIt, name, request.ownerToken());
        revocations.ended(request.ownerToken());
        if (refused != null) {
            throw refused;
        }
        // Busy only when the answers decide it: even if every node that did not answer (or answered
        // with this request's own token) had granted it, no quorum would have. Otherwise the outcome
        // is unknown — an unreachable majority is not someone else holding the lock.
        int undecided = answers.size() - granted - busy - waiting;
        if (granted >= quorum) {
            // A quorum granted it, but so late that no validity was left: the nodes are too slow
            // to answer within the lease, which is no one else holding the lock.
            return Attempt.unknown(new BackendUnavailableException(FanOut.endpoints(answers), "redlock "
                    + FanOut.endpoints(answers) + ": a quorum granted '" + name + "' only after "
                    + Duration.ofNanos(now - start).toMillis() + " ms, leaving no validity of the "
                    + request.leaseTime().toMillis() + " ms lease; nothing is held", null));
        }
        if (granted + undecided >= quorum) {
            return Attempt.unknown(FanOut.tooFewNodes(answers, quorum, "acquire '" + name + "'"));
        }
        return retryAfterNanos == Long.MAX_VALUE ? Attempt.busy() : Attempt.busy(Duration.ofNanos(retryAfterNanos));
    }

    @Override
    public ExtendOutcome extend(Grant grant, Duration leaseTime) {
        return extendAll(List.of(new Renewal(grant, leaseTime))).get(0);
    }

    /**
     * Extends every lease on every node in one fan-out (one pipelined batch per node). A lease is
     * extended if a quorum of voting nodes extended it; lost only if so many nodes answered that
     * they no longer hold it that no quorum could have extended it; unknown otherwise (too few
     * answers either way — a renewal nobody answered is not a revocation). What a lost or unknown
     * lease may still hold on some nodes is the engine's cleanup's to remove. If so many nodes
     * refused the client (credentials, ACL) that no quorum is left, that refusal is thrown.
     */
    @Override
    public List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        if (renewals.isEmpty()) {
            return List.of();
        }
        List<ScriptCall> calls = new ArrayList<>(renewals.size());
        for (Renewal renewal : renewals) {
            settings.checkLeaseTime(renewal.leaseTime());
            calls.add(RedisNode.extendCall(renewal.grant().name(), renewal.grant().ownerToken(), millis(renewal.leaseTime())));
        }
        long start = System.nanoTime();
        String operation = renewals.size() == 1 ? "extend '" + renewals.get(0).grant().name() + "'"
                : "renew " + renewals.size() + " leases";
        List<FanOut.Answer> answers = FanOut.run(nodes, operation, calls, start + batchTimeoutNanos(calls.size()));
        if (FanOut.voting(answers) < quorum && !FanOut.quorumDown(answers, quorum)) {
            // Some nodes were only too slow. An extension may take one more per-node timeout (its
            // validity is counted from its start, so the time is not promised to anyone): ask them again.
            answers = retrySlow(answers, operation, calls);
        }
        BackendUnavailableException unanswered = null;
        List<ExtendOutcome> results = new ArrayList<>(renewals.size());
        for (int i = 0; i < renewals.size(); i++) {
            int extended = 0;
            int gone = 0;
            String revokedFor = null;
            List<RuntimeException> refusals = new ArrayList<>();
            for (FanOut.Answer answer : answers) {
                if (answer.answered() && answer.votes()) {
                    Object reply = answer.replies().values().get(i);
                    if (isRefusal(reply)) {
                        refusals.add((RuntimeException) reply); // NOPERM: a refusal, not a lock it no longer holds
                        continue;
                    }
                    ExtendOutcome onNode = RedisNode.extendOutcome(reply);
                    if (onNode.isExtended()) {
                        extended++;
                    } else {
                        gone++;
                        revokedFor = onNode.revocationReason().orElse(revokedFor); // a node that kept the marker
                    }
                }
            }
            throwIfRefusedByTooMany(answers, refusals);
            Renewal renewal = renewals.get(i);
            if (extended >= quorum) {
                revocations.extended(renewal.grant().ownerToken(), millis(renewal.leaseTime()));
                results.add(ExtendOutcome.extended());
            } else if (answers.size() - gone < quorum) {
                revocations.ended(renewal.grant().ownerToken());
                results.add(revokedFor != null ? ExtendOutcome.revoked(revokedFor) : ExtendOutcome.lost());
            } else {
                if (unanswered == null) {
                    unanswered = FanOut.tooFewNodes(answers, quorum, operation);
                }
                results.add(ExtendOutcome.unknown(unanswered));
            }
        }
        return results;
    }

    /**
     * Compare-and-delete on every node.
     *
     * @return true if a quorum of nodes still held the grant and deleted it
     * @throws BackendUnavailableException if fewer than a quorum of nodes answered: the lock may still
     *                                     be held by a quorum (the engine's cleanup retries)
     */
    @Override
    public boolean release(Grant grant) {
        revocations.ended(grant.ownerToken());
        List<FanOut.Answer> answers = release(nodes, grant.name(), grant.ownerToken());
        int deleted = 0;
        int answered = 0;
        List<RuntimeException> refusals = new ArrayList<>();
        for (FanOut.Answer answer : answers) {
            if (answer.answered()) {
                Object reply = answer.replies().values().get(0);
                if (isRefusal(reply)) {
                    refusals.add((RuntimeException) reply); // NOPERM: nothing was deleted there, and nothing told
                    continue;
                }
                answered++;
                if (Long.valueOf(1L).equals(reply)) {
                    deleted++;
                }
            }
        }
        throwIfRefusedByTooMany(answers, refusals);
        if (answered < quorum) {
            throw FanOut.tooFewNodes(answers, quorum, "release '" + grant.name() + "'");
        }
        return deleted >= quorum;
    }

    /** @return true if a call's reply is the server's refusal of this client (credentials, ACL) */
    private static boolean isRefusal(Object reply) {
        return reply instanceof AuthenticationException || reply instanceof AccessDeniedException;
    }

    /**
     * A node that refused this client — its credentials ({@link AuthenticationException}) or the
     * user's rights ({@link AccessDeniedException}) — gave a definite answer, not none: if so many
     * nodes refused that no quorum is left, the refusal is what happened, not an outage.
     *
     * @throws LockException the first refusal, the others suppressed in it
     */
    private void throwIfRefusedByTooMany(List<FanOut.Answer> answers) {
        throwIfRefusedByTooMany(answers, List.of());
    }

    /**
     * {@link #throwIfRefusedByTooMany(List)}, counting also the nodes that answered this call with a
     * refusal ({@code NOPERM} on the script's key).
     */
    private void throwIfRefusedByTooMany(List<FanOut.Answer> answers, List<RuntimeException> callRefusals) {
        List<RuntimeException> refusals = new ArrayList<>(callRefusals);
        for (FanOut.Answer answer : answers) {
            if (!answer.answered() && (answer.failure() instanceof AuthenticationException
                    || answer.failure() instanceof AccessDeniedException)) {
                refusals.add(answer.failure());
            }
        }
        if (!refusals.isEmpty() && answers.size() - refusals.size() < quorum) {
            RuntimeException first = refusals.get(0);
            refusals.subList(1, refusals.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    /**
     * Every release in one fan-out: one pipelined batch per node. A release is confirmed once a
     * quorum of nodes answered it (the lock can then be taken again; a key left on a slow minority
     * expires with its lease time).
     */
    @Override
    public List<Grant> releaseAll(List<Grant> grants) {
        if (grants.isEmpty()) {
            return List.of();
        }
        List<ScriptCall> calls = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            revocations.ended(grant.ownerToken());
            calls.add(releaseCall(grant.name(), grant.ownerToken()));
        }
        List<FanOut.Answer> answers = FanOut.run(nodes, "release " + grants.size() + " leases", calls,
                System.nanoTime() + batchTimeoutNanos(calls.size()));
        long answered = answers.stream().filter(FanOut.Answer::answered).count();
        return answered >= quorum ? List.of() : List.copyOf(grants);
    }

    /**
     * A {@code SET NX} that reaches a node after its request was abandoned is not refused there:
     * the engine repeats the abandon's compare-and-delete until the request's lease time has passed,
     * so a late {@code SET} holds its node's key for a few hundred milliseconds at most. (When this
     * was decided, acquiring was a plain {@code SET}, and a marker check would have cost a script on
     * every acquire, about 5 % on p50; since owner records the acquire is a script anyway, so checking
     * the abandon marker there would now cost one {@code EXISTS}: a change left to be measured.)
     */
    @Override
    public boolean lateWritesPossible() {
        return true;
    }

    /**
     * Every attempt that answered has already released what it may have left; after an unknown
     * outcome a {@code SET} may have landed without a reply: compare-and-delete on every node,
     * confirmed once a quorum answered.
     */
    @Override
    public void abandon(LockRequest request, boolean outcomeUnknown) {
        revocations.ended(request.ownerToken());
        if (outcomeUnknown) {
            List<FanOut.Answer> answers = release(nodes, request.name(), request.ownerToken());
            if (answers.stream().filter(FanOut.Answer::answered).count() < quorum) {
                throw FanOut.tooFewNodes(answers, quorum, "clean up an acquire of '" + request.name() + "'");
            }
        }
    }

    /**
     * One fan-out of the family's read ({@link LockSnapshot#calls}: a {@code MULTI} of {@code GET}s and a
     * {@code PTTL}) to every node; the majority's view ({@link MajorityView}), with each node's answer
     * in the detail where they disagree.
     */
    @Override
    public Optional<LockInfo> inspect(String name) {
        List<FanOut.Answer> answers = FanOut.run(nodes, "inspect '" + name + "'", LockSnapshot.calls(name),
                System.nanoTime() + nodeTimeoutNanos);
        MajorityView view = MajorityView.read(name, answers, 0, quorum);
        throwIfRefusedByTooMany(answers, view.refusals());
        return view.holder("inspect '" + name + "'");
    }

    /**
     * Every node's keyspace walked with {@code SCAN} ({@link RedisNode#scanLockNames}, keeping the first
     * {@code 2 × limit} names of each), then the names found read on every node in pipelined fan-outs,
     * in order, until {@code limit} are held by a majority. Costs N keyspace walks.
     */
    @Override
    public List<LockInfo> holders(String prefix, int limit) {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        int listed = 0;
        int wide = (int) Math.min(Integer.MAX_VALUE, 2L * limit);
        for (RedlockNode node : nodes) {
            try {
                names.addAll(node.redis.scanLockNames(prefix, wide));
                listed++;
            } catch (BackendUnavailableException e) {
                // counted below: a node that could not be listed
            }
        }
        if (listed < quorum) {
            throw new BackendUnavailableException(settings.toString(), "redlock " + settings + ": only " + listed
                    + " of " + nodes.size() + " Redis nodes could list the locks under '" + prefix + "' (quorum " + quorum + ")",
                    null);
        }
        List<LockInfo> holders = new ArrayList<>();
        List<String> ordered = new ArrayList<>(names);
        for (int from = 0; from < ordered.size() && holders.size() < limit; from += INSPECT_CHUNK) {
            List<String> chunk = ordered.subList(from, Math.min(ordered.size(), from + INSPECT_CHUNK));
            List<PendingReply.Call> calls = new ArrayList<>();
            chunk.forEach(name -> calls.addAll(LockSnapshot.calls(name)));
            List<FanOut.Answer> answers = FanOut.run(nodes, "inspect " + chunk.size() + " locks", calls,
                    System.nanoTime() + batchTimeoutNanos(calls.size()));
            for (int i = 0; i < chunk.size() && holders.size() < limit; i++) {
                MajorityView view = MajorityView.read(chunk.get(i), answers, i * LockSnapshot.calls(chunk.get(i)).size(), quorum);
                throwIfRefusedByTooMany(answers, view.refusals());
                view.holder("list the locks under '" + prefix + "'").ifPresent(holders::add);
            }
        }
        return holders;
    }

    /**
     * The revoke script on every node in one fan-out (no fence: Redlock has none). Revoked if a
     * majority revoked the same lease; "not held" if no lease can have been held by a majority (what a
     * minority held is deleted meanwhile, marker and notice included: no valid lease ends by that);
     * unknown otherwise.
     */
    @Override
    public Optional<Revoked> revoke(String name, String reason) {
        List<FanOut.Answer> answers = FanOut.run(nodes, "revoke '" + name + "'",
                List.of(RedisNode.revokeCall(name, reason, false)), System.nanoTime() + nodeTimeoutNanos);
        MajorityView view = MajorityView.revoked(name, answers, quorum);
        throwIfRefusedByTooMany(answers, view.refusals());
        return view.holder("revoke '" + name + "'").map(info -> new Revoked(info, view.token()));
    }

    @Override
    public void close() {
        revocations.close();
        for (RedlockNode node : nodes) {
            node.redis.close();
        }
    }

    @Override
    public String toString() {
        return "RedlockDriver[" + settings + "]";
    }

    private List<FanOut.Answer> retrySlow(List<FanOut.Answer> answers, String operation, List<ScriptCall> calls) {
        List<RedlockNode> slow = new ArrayList<>();
        for (FanOut.Answer answer : answers) {
            if (!answer.answered() && !answer.down()) {
                slow.add(answer.node());
            }
        }
        List<FanOut.Answer> again = FanOut.run(slow, operation, calls, System.nanoTime() + batchTimeoutNanos(calls.size()));
        List<FanOut.Answer> merged = new ArrayList<>(answers);
        for (FanOut.Answer answer : again) {
            for (int i = 0; i < merged.size(); i++) {
                if (merged.get(i).node() == answer.node()) {
                    merged.set(i, answer);
                }
            }
        }
        return merged;
    }

    /** Best effort: a node that does not answer keeps the key until its lease time ends. */
    private void releaseOn(List<RedlockNode> targets, String name, String ownerToken) {
        if (!targets.isEmpty()) {
            release(targets, name, ownerToken);
        }
    }

    private List<FanOut.Answer> release(List<RedlockNode> targets, String name, String ownerToken) {
        return FanOut.run(targets, "release '" + name + "'", List.of(releaseCall(name, ownerToken)),
                System.nanoTime() + nodeTimeoutNanos);
    }

    static ScriptCall releaseCall(String name, String ownerToken) {
        return new ScriptCall(RELEASE, List.of(LockScripts.lockKey(name), LockScripts.ownerKey(name)), List.of(ownerToken));
    }

    /** A renewal batch of thousands of leases takes longer than one call: allow a per-node timeout per 1000. */
    private long batchTimeoutNanos(int calls) {
        return nodeTimeoutNanos * (1 + calls / 1000);
    }

    /** Whole milliseconds, rounded up: a node holds the key at least as long as the lease counts on it. */
    static long millis(Duration leaseTime) {
        long millis = leaseTime.toMillis();
        return leaseTime.minusMillis(millis).isZero() ? Math.max(1, millis) : millis + 1;
    }
}
