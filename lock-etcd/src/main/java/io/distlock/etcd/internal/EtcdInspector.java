package io.distlock.etcd.internal;

import io.distlock.AccessDeniedException;
import io.distlock.BackendUnavailableException;
import io.distlock.Feature;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.spi.Revoked;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * An operator's calls on the locks under a prefix: who holds a lock ({@link #inspect},
 * {@link #holders}) and taking one back ({@link #revoke}), the same for one hold of a read-write
 * lock or a semaphore, and the reads of revocation records a revoked holder's client makes
 * ({@link #reasons}).
 *
 * <p>A lock's holder is the key with the lowest create revision under its directory: one read-only
 * transaction reads it and counts the line, in one round trip. What it shows comes from the key: its
 * value (owner description, and the holder's clock when it was written, {@link EtcdValues}), its
 * create revision (the fencing token), its lease (the holder's session).
 *
 * <p>A revoke is one transaction: if the holder's key still has the create revision read, delete it
 * and put the record {@code <prefix>/revoked/<owner token>} with the reason, bound to a lease of this
 * client's that nobody keeps alive ({@value #RECORD_TTL_SECONDS} s): the server removes the record
 * by itself. A key's create revision is never used twice, so the transaction deletes that holder or
 * nothing.
 *
 * <p>The holds of a read-write lock or a semaphore ({@link #holds}, {@link #revokeHold}) are the keys
 * of its line that the line's rule lets in; a hold's id is its key's create revision, and its revoke
 * is the same transaction on that one key, guarded by that revision, with the same record: the
 * holder's client learns it by the same watch and the same renewal read.
 */
final class EtcdInspector {

    /** How long a records lease lives: a record lives from half of it to all of it. */
    static final long RECORD_TTL_SECONDS = 600;
    /** How often a revoke reads the line again when its holder went meanwhile. */
    private static final int ROUNDS = 5;
    /** Keys per page of {@link #holders}. */
    private static final int PAGE = 1000;
    /** The ids of hold revokes ({@link #revokeHold}): a resent revoke knows its own record by it. */
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private final EtcdSession session;
    private final String prefix;
    private final String owner;
    /** The lease records are bound to, and when (nanoTime) it is half spent: then a new one is granted. */
    private long recordsLease;
    private long recordsLeaseRenewAt;

    EtcdInspector(EtcdSession session, String prefix, String owner) {
        this.session = session;
        this.prefix = prefix;
        this.owner = owner;
    }

    /** A line's first key, as read with the line's length, and the revision it was read at. */
    private record Holder(String name, KeyValue kv, long inLine, long revision) {
        LockInfo info() {
            byte[] value = kv.getValue().getBytes();
            LockInfo.Builder b = LockInfo.builder(name)
                    .owner(EtcdValues.field(value, "owner"))
                    .fencingToken(kv.getCreateRevision())
                    .waiters((int) Math.max(0, inLine - 1))
                    .detail("key " + kv.getKey().toString(StandardCharsets.UTF_8) + ", session lease 0x" + Long.toHexString(kv.getLease()));
            acquiredAt(b, value);
            return b.build();
        }

        String ownerToken() {
            return EtcdValues.ownerToken(kv.getValue().getBytes());
        }
    }

    Optional<LockInfo> inspect(String name) {
        return read(name).map(Holder::info);
    }

    /** One read-only transaction: the line's first key (by create revision) and how many keys are in line. */
    private Optional<Holder> read(String name) {
        ByteSequence dir = EtcdSession.bytes(EtcdKeys.lockDir(prefix, name));
        GetOption first = GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();
        GetOption count = GetOption.builder().isPrefix(true).withCountOnly(true).build();
        TxnResponse answer = session.call(() -> session.kv().txn().Then(Op.get(dir, first), Op.get(dir, count)).commit(),
                "read the holder of '" + name + "'");
        List<KeyValue> head = answer.getGetResponses().get(0).getKvs();
        if (head.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Holder(name, head.get(0), answer.getGetResponses().get(1).getCount(), answer.getHeader().getRevision()));
    }

    /**
     * Reads every request key under {@code <prefix>/locks/<encoded prefix>} (in pages of
     * {@value #PAGE}, all at the revision of the first), groups them by lock, and returns the first
     * {@code limit} by name: the encoded keys are not in name order, so the whole range is read.
     */
    List<LockInfo> holders(String namePrefix, int limit) {
        String start = EtcdKeys.locks(prefix) + EtcdKeys.encode(namePrefix);
        ByteSequence end = ByteSequence.from(EtcdKeys.prefixEnd(start.getBytes(StandardCharsets.UTF_8)));
        Map<String, List<KeyValue>> lines = new LinkedHashMap<>(); // directory segment → its keys
        ByteSequence from = EtcdSession.bytes(start);
        long revision = 0;
        while (true) {
            ByteSequence key = from;
            long at = revision;
            GetOption page = GetOption.builder().withRange(end).withLimit(PAGE).withRevision(at).build();
            GetResponse answer = session.call(() -> session.kv().get(key, page), "list the locks held under '" + namePrefix + "'");
            if (revision == 0) {
                revision = answer.getHeader().getRevision();
            }
            for (KeyValue kv : answer.getKvs()) {
                String rest = kv.getKey().toString(StandardCharsets.UTF_8).substring(EtcdKeys.locks(prefix).length());
                int slash = rest.indexOf('/');
                if (slash > 0) {
                    lines.computeIfAbsent(rest.substring(0, slash), s -> new ArrayList<>()).add(kv);
                }
            }
            if (!answer.isMore() || answer.getKvs().isEmpty()) {
                break;
            }
            byte[] last = answer.getKvs().get(answer.getKvs().size() - 1).getKey().getBytes();
            byte[] next = Arrays.copyOf(last, last.length + 1); // the key right after the last one
            from = ByteSequence.from(next);
        }
        Map<String, Holder> byName = new TreeMap<>();
        for (Map.Entry<String, List<KeyValue>> line : lines.entrySet()) {
            String name = EtcdKeys.nameOf(line.getKey());
            if (name == null || !name.startsWith(namePrefix)) {
                continue;
            }
            KeyValue first = line.getValue().get(0);
            for (KeyValue kv : line.getValue()) {
                if (kv.getCreateRevision() < first.getCreateRevision()) {
                    first = kv;
                }
            }
            byName.put(name, new Holder(name, first, line.getValue().size(), revision));
        }
        List<LockInfo> found = new ArrayList<>(Math.min(limit, byName.size()));
        for (Holder holder : byName.values()) {
            if (found.size() == limit) {
                break;
            }
            found.add(holder.info());
        }
        return found;
    }

    /**
     * Revokes the lease of the holder of {@code name}: one transaction deletes its key if it still has
     * the create revision read, and puts the record. If the holder went first (released, or revoked by
     * someone else) the line is read again: the revoke takes whoever holds the lock now, or finds it
     * free. A transaction whose first copy may have landed unanswered finds its record in its
     * {@code Else} branch, so a resent revoke never takes the next holder too.
     */
    Optional<Revoked> revoke(String name, String reason) {
        byte[] value = EtcdValues.record(reason, owner);
        for (int round = 0; round < ROUNDS; round++) {
            Optional<Holder> read = read(name);
            if (read.isEmpty()) {
                return Optional.empty();
            }
            Holder holder = read.get();
            String token = holder.ownerToken();
            ByteSequence key = holder.kv().getKey();
            ByteSequence record = EtcdSession.bytes(EtcdKeys.record(prefix, token));
            long lease = recordsLease();
            TxnResponse answer;
            try {
                answer = session.call(() -> session.kv().txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(holder.kv().getCreateRevision())))
                        .Then(Op.delete(key, DeleteOption.DEFAULT), Op.put(record, ByteSequence.from(value),
                                PutOption.builder().withLeaseId(lease).build()))
                        .Else(Op.get(record, GetOption.builder().withCountOnly(true).build()))
                        .commit(), "revoke '" + name + "'");
            } catch (EtcdSession.SessionGone e) {
                // The records lease is gone (revoked by someone, or this client was paused past it).
                forgetRecordsLease(lease);
                continue;
            } catch (AccessDeniedException e) {
                throw new AccessDeniedException(session.endpointNames(), "etcd at " + session.endpoint() + " refused to revoke '"
                        + name + "' for " + session.who() + ": permission denied; an operator needs readwrite on "
                        + EtcdKeys.locks(prefix) + " and write on " + EtcdKeys.revokedDir(prefix)
                        + " (see the lock-etcd README, 'Inspection and revocation')", null);
            }
            if (answer.isSucceeded() || answer.getGetResponses().get(0).getCount() > 0) {
                return Optional.of(new Revoked(holder.info(), token));
            }
            // The holder's key went before the transaction: read the line again.
        }
        throw new BackendUnavailableException(session.endpointNames(), "the holder of '" + name + "' changed " + ROUNDS
                + " times while etcd at " + session.endpoint() + " was asked to revoke it; ask again", null);
    }

    // ---- the holds of read-write locks and semaphores ---------------------------------------------

    /**
     * A read-write lock's or a semaphore's line as one read saw it: the keys that hold (oldest first)
     * and how many wait behind them.
     */
    private record Shared(List<LockInfo.Kind> kinds, List<KeyValue> held, List<Integer> permits, int waiting) {
    }

    /**
     * Every hold of the read-write lock or the semaphore {@code name}: one read-only transaction
     * (one round trip) reads its line by create revision, and the holds are the keys the line's
     * rule lets in ({@link EtcdSharedLines}) — the keys ahead of a key only ever go, so a key that
     * the rule lets in holds until it is deleted, even before its client has looked.
     *
     * @return one per reader, writer or permit, oldest grant first; its hold id is the key's create
     *         revision (as its fencing token), never the owner token its value carries
     */
    List<LockInfo> holds(String name, Feature primitive) {
        Shared line = readShared(name, primitive);
        List<LockInfo> holds = new ArrayList<>(line.held().size());
        for (int i = 0; i < line.held().size(); i++) {
            holds.add(holdInfo(name, line, i));
        }
        return holds;
    }

    /**
     * The line's keys by create revision (at most {@link LockClient#MAX_PERMITS} of a semaphore: no
     * count lets more in) and their number, in one read-only transaction; then who holds:
     * <ul>
     *   <li>read-write lock: the first key if it is a writer's, else every reader's key before the
     *       first writer's;</li>
     *   <li>semaphore: the first keys of the first key's permit count, at most that many, up to the
     *       first key of another count (a key behind one of another count is refused, never let in).</li>
     * </ul>
     */
    private Shared readShared(String name, Feature primitive) {
        boolean semaphore = primitive == Feature.SEMAPHORE;
        String dirText = semaphore ? EtcdKeys.semaphoreDir(prefix, name) : EtcdKeys.readWriteDir(prefix, name);
        ByteSequence dir = EtcdSession.bytes(dirText);
        GetOption.Builder line = GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND);
        if (semaphore) {
            line.withLimit(LockClient.MAX_PERMITS);
        }
        GetOption count = GetOption.builder().isPrefix(true).withCountOnly(true).build();
        String what = "read the holds of the " + (semaphore ? "semaphore '" : "read-write lock '") + name + "'";
        TxnResponse answer = session.call(() -> session.kv().txn().Then(Op.get(dir, line.build()), Op.get(dir, count)).commit(), what);
        List<KeyValue> keys = answer.getGetResponses().get(0).getKvs();
        long inLine = answer.getGetResponses().get(1).getCount();
        List<LockInfo.Kind> kinds = new ArrayList<>();
        List<KeyValue> held = new ArrayList<>();
        List<Integer> permits = new ArrayList<>();
        String readDir = EtcdKeys.readWriteDir(prefix, name) + "read/";
        String writeDir = EtcdKeys.writeDir(prefix, name);
        int stored = -1;
        for (KeyValue kv : keys) {
            String key = kv.getKey().toString(StandardCharsets.UTF_8);
            if (semaphore) {
                int asked = EtcdKeys.permitsOf(dirText, key);
                if (stored == -1) {
                    stored = asked;
                }
                if (asked <= 0 || asked != stored || held.size() == stored) {
                    break;
                }
                kinds.add(LockInfo.Kind.PERMIT);
                permits.add(asked);
            } else if (key.startsWith(writeDir)) {
                if (held.isEmpty()) {
                    kinds.add(LockInfo.Kind.WRITE); // first in line: the writer holds, alone
                    permits.add(0);
                    held.add(kv);
                }
                break;
            } else if (key.startsWith(readDir)) {
                kinds.add(LockInfo.Kind.READ);
                permits.add(0);
            } else {
                break; // no key this backend writes: nothing behind it is shown as held
            }
            held.add(kv);
        }
        return new Shared(kinds, held, permits, (int) Math.max(0, inLine - held.size()));
    }

    /** What the {@code i}th hold of {@code line} shows: never its owner token. */
    private static LockInfo holdInfo(String name, Shared line, int i) {
        KeyValue kv = line.held().get(i);
        byte[] value = kv.getValue().getBytes();
        long revision = kv.getCreateRevision();
        LockInfo.Builder b = LockInfo.builder(name)
                .hold(line.kinds().get(i), Long.toString(revision))
                .owner(EtcdValues.field(value, "owner"))
                .fencingToken(revision)
                .waiters(line.waiting())
                .detail("key " + kv.getKey().toString(StandardCharsets.UTF_8) + ", create revision " + revision
                        + ", session lease 0x" + Long.toHexString(kv.getLease()));
        if (line.kinds().get(i) == LockInfo.Kind.PERMIT) {
            b.permits(line.permits().get(i));
        }
        acquiredAt(b, value);
        return b.build();
    }

    /**
     * Takes one hold of a read-write lock or a semaphore back: reads the line (as {@link #holds}),
     * finds the hold whose key has the create revision {@code holdId}, and in one transaction, if
     * that key still has that create revision, deletes it and puts the record
     * {@code <prefix>/revoked/<owner token>}, as {@link #revoke} does for a lock: the holder's
     * client learns it by its watch on the records, or at its next renewal. A release (or another
     * revoke) that came first makes the transaction's {@code If} fail: nothing changed, and this
     * answers "not held". A create revision is never used twice, so the transaction deletes that
     * hold or nothing. The record carries a random id of this revoke, so that a copy of this
     * transaction resent past a member that did not answer tells its own landed first copy (the
     * record is ours: revoked) from another operator's revoke of the same hold (not ours: empty).
     *
     * @return what was revoked, or empty if {@code holdId} is no create revision, or no key of the
     *         line that holds has it
     */
    Optional<Revoked> revokeHold(String name, Feature primitive, String holdId, String reason) {
        long revision = revisionOf(holdId);
        if (revision <= 0) {
            return Optional.empty();
        }
        Shared line = readShared(name, primitive);
        int found = -1;
        for (int i = 0; i < line.held().size(); i++) {
            if (line.held().get(i).getCreateRevision() == revision) {
                found = i;
            }
        }
        if (found < 0) {
            return Optional.empty();
        }
        KeyValue kv = line.held().get(found);
        String token = EtcdValues.ownerToken(kv.getValue().getBytes());
        ByteSequence key = kv.getKey();
        ByteSequence record = EtcdSession.bytes(EtcdKeys.record(prefix, token));
        ByteSequence value = ByteSequence.from(EtcdValues.record(reason, owner, Long.toHexString(RANDOM.nextLong())));
        String what = "revoke the " + (primitive == Feature.SEMAPHORE ? "semaphore '" : "read-write lock '") + name
                + "'s hold " + holdId;
        for (int round = 0; round < 2; round++) {
            long lease = recordsLease();
            TxnResponse answer;
            try {
                answer = session.call(() -> session.kv().txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                        .Then(Op.delete(key, DeleteOption.DEFAULT), Op.put(record, value, PutOption.builder().withLeaseId(lease).build()))
                        .Else(Op.get(record, GetOption.DEFAULT))
                        .commit(), what);
            } catch (EtcdSession.SessionGone e) {
                // The records lease is gone (revoked by someone, or this client was paused past it):
                // nothing was written; once more with a new one.
                forgetRecordsLease(lease);
                continue;
            } catch (AccessDeniedException e) {
                String dir = primitive == Feature.SEMAPHORE ? prefix + "/semaphores/" : prefix + "/rwlocks/";
                throw new AccessDeniedException(session.endpointNames(), "etcd at " + session.endpoint() + " refused to " + what
                        + " for " + session.who() + ": permission denied; an operator needs readwrite on " + dir
                        + " and write on " + EtcdKeys.revokedDir(prefix)
                        + " (see the lock-etcd README, 'Inspection and revocation')", null);
            }
            List<KeyValue> kept = answer.isSucceeded() ? List.of() : answer.getGetResponses().get(0).getKvs();
            if (answer.isSucceeded() || (!kept.isEmpty() && kept.get(0).getValue().equals(value))) {
                return Optional.of(new Revoked(holdInfo(name, line, found), token));
            }
            return Optional.empty(); // released, ended or revoked by another before the transaction
        }
        throw new BackendUnavailableException(session.endpointNames(), "etcd at " + session.endpoint()
                + " twice refused the lease of the revocation record while asked to " + what + "; ask again", null);
    }

    /** @return the create revision a hold id names, or 0 if it is not one as {@link #holds} writes it (a positive decimal) */
    private static long revisionOf(String holdId) {
        if (holdId.isEmpty() || holdId.length() > 19 || holdId.charAt(0) == '0'
                || !holdId.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return 0;
        }
        try {
            return Long.parseLong(holdId);
        } catch (NumberFormatException e) {
            return 0; // above Long.MAX_VALUE
        }
    }

    /** Sets the holder's clock when it wrote the key, if the value keeps one distlock wrote. */
    private static void acquiredAt(LockInfo.Builder b, byte[] value) {
        String at = EtcdValues.field(value, "at");
        if (at != null) {
            try {
                b.acquiredAt(Instant.ofEpochMilli(Long.parseLong(at)), LockInfo.Clock.HOLDER);
            } catch (NumberFormatException e) {
                // not a time distlock wrote: shown as unknown
            }
        }
    }

    /** @return a lease for records with at least half its life left, granted if need be */
    private synchronized long recordsLease() {
        if (recordsLease == 0 || System.nanoTime() - recordsLeaseRenewAt > 0) {
            long granted = session.call(() -> session.leases().grant(RECORD_TTL_SECONDS), "grant a lease for revocation records").getID();
            recordsLease = granted;
            recordsLeaseRenewAt = System.nanoTime() + Duration.ofSeconds(RECORD_TTL_SECONDS / 2).toNanos();
        }
        return recordsLease;
    }

    private synchronized void forgetRecordsLease(long lease) {
        if (recordsLease == lease) {
            recordsLease = 0;
        }
    }

    /**
     * Reads the records of {@code ownerTokens}, in read-only transactions of at most 100 reads (etcd
     * refuses more than 128 operations in one), all sent at once.
     *
     * @return per owner token, in order, the reason its record keeps, or null where there is none
     */
    CompletableFuture<List<String>> reasons(List<String> ownerTokens) {
        List<CompletableFuture<List<String>>> parts = new ArrayList<>();
        for (int from = 0; from < ownerTokens.size(); from += 100) {
            List<String> part = ownerTokens.subList(from, Math.min(ownerTokens.size(), from + 100));
            Op[] gets = new Op[part.size()];
            for (int i = 0; i < gets.length; i++) {
                gets[i] = Op.get(EtcdSession.bytes(EtcdKeys.record(prefix, part.get(i))), GetOption.DEFAULT);
            }
            parts.add(session.kv().txn().Then(gets).commit().thenApply(answer -> {
                List<String> reasons = new ArrayList<>(gets.length);
                for (GetResponse get : answer.getGetResponses()) {
                    reasons.add(get.getKvs().isEmpty() ? null : reason(get.getKvs().get(0).getValue().getBytes()));
                }
                return reasons;
            }));
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0])).thenApply(done -> {
            List<String> reasons = new ArrayList<>(ownerTokens.size());
            parts.forEach(part -> reasons.addAll(part.join()));
            return reasons;
        });
    }

    /** @return the reason a record keeps */
    static String reason(byte[] record) {
        String reason = EtcdValues.field(record, "reason");
        return reason != null ? reason : "(no reason kept)";
    }
}
