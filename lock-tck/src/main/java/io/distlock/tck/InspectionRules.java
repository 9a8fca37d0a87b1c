package io.distlock.tck;

import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Group 8 of {@code lock-tck/SPEC.md}: who holds a lock ({@link LockClient#inspect},
 * {@link LockClient#holders}) and taking it back ({@link LockClient#revoke}) without a double grant.
 * Its rights rule is 6.5, run with the security group. A rule group of {@link LockVerification}
 * (see {@link RuleGroup}).
 */
interface InspectionRules extends RuleGroup {

    /**
     * Rule 8.1: inspect shows the holder while held — an owner description that tells two clients
     * apart, its fencing token, a grant time and what the server has left — and nothing shortly
     * after a release, nor after the lease ran out.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("8.1 inspect shows the holder while held, and nothing after release or expiry")
    default void required_8_1_inspectShowsTheHolder() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.INSPECTION);
        BackendDescriptor backend = rig.backend();
        LockClient a = rig.client();
        LockClient b = rig.client();
        LockClient inspector = rig.client();
        assertTrue(inspector.inspect(rig.name).isEmpty(), rig.msg("inspect showed a holder of a lock nobody ever took"));

        Instant before = Instant.now();
        Lease leaseA = rig.acquireNow(a, rig.env.longLease());
        Instant after = Instant.now();
        LockInfo shownA = shown(rig, inspector, rig.name, "A holds it");
        assertEquals(rig.name, shownA.name(), rig.msg("inspect named another lock: " + shownA));
        assertTrue(shownA.owner().filter(o -> !o.isBlank()).isPresent(), rig.msg("inspect showed no owner description"
                + " for a lease this version's client took: " + shownA));
        if (backend.has(Feature.FENCING_TOKENS)) {
            assertEquals(leaseA.fencingToken(), shownA.fencingToken(), rig.msg("inspect showed another fencing token than"
                    + " the holder's: " + shownA));
        }
        Duration slack = rig.env.defaultTimeout(); // the server's clock against this JVM's, on one machine
        shownA.acquiredAt().ifPresent(at -> assertTrue(!at.isBefore(before.minus(slack)) && !at.isAfter(after.plus(slack)),
                rig.msg("inspect showed A acquired at " + at + ", not between " + before + " and " + after + " (± "
                        + TestEnvironment.millis(slack) + ")")));
        shownA.remaining().ifPresent(left -> assertTrue(!left.isNegative() && left.compareTo(rig.env.longLease()) <= 0,
                rig.msg("inspect showed " + TestEnvironment.millis(left) + " left of a lease of "
                        + TestEnvironment.millis(rig.env.longLease()))));
        leaseA.release();
        awaitNotShown(rig, inspector, rig.name, "A released it");

        Lease leaseB = rig.acquireNow(b, rig.env.longLease());
        LockInfo shownB = shown(rig, inspector, rig.name, "B holds it");
        assertFalse(shownA.owner().equals(shownB.owner()), rig.msg("two clients' leases showed the same owner description '"
                + shownB.owner().orElse("") + "': an operator cannot tell them apart"));
        leaseB.release();
        awaitNotShown(rig, inspector, rig.name, "B released it");

        rig.acquireNow(a, rig.env.shortLease()); // neither renewed nor released: it runs out
        shown(rig, inspector, rig.name, "A holds it again");
        rig.env.awaitUntil(rig.msg("waiting for inspect to show nothing after A's lease of "
                        + TestEnvironment.millis(rig.env.shortLease()) + " ran out"),
                rig.env.shortLease().plus(rig.env.defaultTimeout()), () -> inspector.inspect(rig.name).isEmpty());
        rig.notes.add("shown while held: " + shownA);
    }

    /**
     * Rule 8.2: {@code holders(prefix, limit)} lists exactly the held locks under the prefix, by
     * name, and no more than the limit.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("8.2 holders lists exactly the held locks under a prefix, within the limit")
    default void required_8_2_holdersListsThePrefix() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.INSPECTION);
        LockClient a = rig.client();
        LockClient inspector = rig.client();
        String prefix = rig.name + "/";
        List<String> held = List.of(prefix + "a", prefix + "b", prefix + "c");
        for (String name : held) {
            rig.acquireNow(a, name, rig.env.longLease());
        }
        rig.acquireNow(a, prefix + "d", rig.env.longLease()).release();
        rig.acquireNow(a, "x" + rig.name + "/e", rig.env.longLease()); // another prefix
        rig.acquireNow(a, rig.name + "-f", rig.env.longLease()); // shares the name, not the prefix

        List<String> listed = names(inspector.holders(prefix, 100));
        assertEquals(held, listed, rig.msg("holders('" + prefix + "', 100) listed " + listed + ", not the three held under it"));
        List<String> limited = names(inspector.holders(prefix, 2));
        assertEquals(held.subList(0, 2), limited, rig.msg("holders('" + prefix + "', 2) listed " + limited
                + ": not the first two by name"));
        assertTrue(inspector.holders(prefix, 100).stream().allMatch(info -> info.owner().isPresent()),
                rig.msg("a listed holder showed no owner description"));
        rig.notes.add("listed " + listed.size() + " of the 6 names taken (one released, two under other prefixes)");
    }

    /**
     * Rule 8.3: a revoke ends the holder's lease on the server: the holder — not renewing, so it
     * learns only by its backend's notification — sees {@code lost()} complete with REVOKED within
     * the bound, turns invalid and cannot extend; a waiter acquires with a higher token; the evicted
     * holder's late write is rejected by a fenced resource.
     *
     * @throws InterruptedException if interrupted
     */
    @Test
    @DisplayName("8.3 a revoked holder learns it, the fence moves, and its late write is rejected")
    default void required_8_3_revokeEvictsAndFences() throws InterruptedException {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.REVOCATION);
        BackendDescriptor backend = rig.backend();
        FencedResource resource = new FencedResource();
        LockClient a = rig.client();
        LockClient operator = rig.client();
        Lease leaseA = rig.acquireNow(a, rig.env.longLease()); // not renewed: A learns only by the backend's notification
        CompletableFuture<Lease.LossReason> lostA = leaseA.lost().toCompletableFuture();
        assertTrue(resource.write("A", leaseA.fencingToken()), rig.msg("an empty resource rejected A's first write"));
        LockClient b = rig.client();
        Rig.Waiter<Lease> waiterB = rig.start("B", () -> rig.track(b.lock(rig.name).tryAcquire(rig.env.longLease(),
                rig.env.defaultTimeout())).orElseThrow(() -> new AssertionError(rig.msg("B did not acquire within "
                + TestEnvironment.millis(rig.env.defaultTimeout()) + " of the revoke of A's lease"))));
        rig.awaitBlocked(waiterB);

        long start = System.nanoTime();
        Optional<LockInfo> revoked = operator.revoke(rig.name, "tck 8.3: the holder is stuck");

        assertTrue(revoked.isPresent(), rig.msg("revoke of a held lock answered 'not held'"));
        if (backend.has(Feature.FENCING_TOKENS)) {
            assertEquals(leaseA.fencingToken(), revoked.get().fencingToken(), rig.msg("revoke named another token than the"
                    + " holder's: " + revoked.get()));
        }
        Lease.LossReason reason;
        try {
            reason = lostA.get(revocationNotice(rig).toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(rig.msg("A still believes its lease valid " + TestEnvironment.millis(revocationNotice(rig))
                    + " after it was revoked (isValid() " + leaseA.isValid() + "): its lost() did not complete"), e);
        } catch (ExecutionException e) {
            throw new AssertionError(rig.msg("A's lost() completed exceptionally: " + e.getCause()), e.getCause());
        }
        Duration learnt = TestEnvironment.since(start);
        assertEquals(Lease.LossReason.REVOKED, reason, rig.msg("A's lost() completed with " + reason + ", not REVOKED"));
        assertFalse(leaseA.isValid(), rig.msg("A's lease is valid after lost() completed with REVOKED"));
        assertTrue(leaseA.remaining().isZero(), rig.msg("A's revoked lease still promises " + leaseA.remaining()));
        if (backend.has(Feature.LEASE_EXTENSION)) {
            assertFalse(leaseA.extend(rig.env.longLease()), rig.msg("A's extend returned true after its lease was revoked"));
        }
        Lease leaseB = rig.outcome(waiterB, rig.env.defaultTimeout().plus(rig.env.tolerance()));
        Duration handOff = TestEnvironment.since(start);
        OptionalLong tokenB = leaseB.fencingToken();
        if (backend.has(Feature.FENCING_TOKENS)) {
            long a0 = rig.token(leaseA);
            long b0 = rig.token(leaseB);
            assertTrue(b0 > a0, rig.msg("B's fencing token " + b0 + " is not above the revoked holder's " + a0
                    + ": the revoke did not move the fence"));
        }
        assertTrue(resource.write("B", tokenB), rig.msg("the resource rejected the write of B, the valid holder (token "
                + tokenB + ", resource " + resource + ")"));
        boolean staleAccepted = resource.write("A", leaseA.fencingToken());
        rig.notes.add("revoke to lost() (REVOKED) " + TestEnvironment.millis(learnt) + "; B acquired after "
                + TestEnvironment.millis(handOff) + "; A's late write " + (staleAccepted ? "accepted (no token)" : "rejected"));
        if (staleAccepted) {
            if (leaseA.fencingToken().isEmpty() && backend.guarantee() == Guarantee.EFFICIENCY) {
                rig.findings.add("8.3 revocation: the evicted holder's late write was accepted after B wrote: '"
                        + backend.scheme() + "' has no fencing tokens (expected for an EFFICIENCY lock)");
                return;
            }
            fail(rig.msg("the resource accepted the late write of A (token " + leaseA.fencingToken() + "), revoked, after B"
                    + " (token " + tokenB + ") wrote"));
        }
    }

    /**
     * Rule 8.4: a revoke of a lock nobody holds answers "not held" and changes nothing: the next
     * client acquires at once, as before.
     */
    @Test
    @DisplayName("8.4 a revoke of a free lock is 'not held' and changes nothing")
    default void required_8_4_revokeOfAFreeLockChangesNothing() {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.REVOCATION);
        LockClient operator = rig.client();
        LockClient a = rig.client();
        assertTrue(operator.revoke(rig.name, "tck 8.4: never taken").isEmpty(), rig.msg("revoke of a lock nobody ever took"
                + " answered that it revoked a holder"));
        Lease first = rig.acquireNow(a, rig.env.longLease());
        first.release();
        assertTrue(operator.revoke(rig.name, "tck 8.4: released").isEmpty(), rig.msg("revoke of a released lock answered"
                + " that it revoked a holder"));
        Lease second = rig.acquireNow(a, rig.env.longLease());
        assertTrue(second.isValid(), rig.msg("a lease taken after a revoke of the free lock is not valid"));
        if (rig.backend().has(Feature.INSPECTION)) {
            assertTrue(operator.inspect(rig.name).isPresent(), rig.msg("inspect shows no holder of a lock just acquired"));
        }
        second.release();
    }

    /**
     * Rule 8.5: a revoke racing the holder's release or extend never leaves two valid holders: after
     * each race, once the holder's notification bound has passed, at most one of the holder and a
     * newcomer holds a valid lease.
     *
     * @throws Exception if interrupted or a racer fails
     */
    @Test
    @DisplayName("8.5 a revoke racing a release or an extend never yields two valid holders")
    default void required_8_5_revokeRacesNeverDoubleGrant() throws Exception {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.REVOCATION);
        boolean extendable = rig.backend().has(Feature.LEASE_EXTENSION);
        LockClient a = rig.client();
        LockClient operator = rig.client();
        LockClient b = rig.client();
        int revokedCount = 0;
        int rounds = 12;
        for (int i = 0; i < rounds; i++) {
            String name = rig.name + "-" + i;
            Lease leaseA = rig.acquireNow(a, name, rig.env.longLease());
            boolean viaRelease = !extendable || i % 2 == 0;
            CompletableFuture<Object> holderSide = CompletableFuture.supplyAsync(() -> {
                if (viaRelease) {
                    leaseA.release();
                    return "released";
                }
                return leaseA.extend(rig.env.longLease());
            });
            String reason = "tck 8.5: race " + i;
            CompletableFuture<Optional<LockInfo>> revokeSide = CompletableFuture.supplyAsync(() -> operator.revoke(name, reason));
            holderSide.get(rig.env.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS);
            boolean revoked = revokeSide.get(rig.env.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS).isPresent();
            revokedCount += revoked ? 1 : 0;
            String race = "race " + i + " (" + (viaRelease ? "a release" : "an extend") + " against a revoke that "
                    + (revoked ? "ended a lease" : "found nothing") + ")";
            // Either way the lock is free now: released, or revoked (an extend cannot keep a revoked lease).
            Lease leaseB = rig.track(b.lock(name).tryAcquire(rig.env.longLease(), rig.env.handOffTimeout())).orElseThrow(() ->
                    new AssertionError(rig.msg(race + ": B could not acquire within " + TestEnvironment.millis(rig.env.handOffTimeout())
                            + " (A's lease is " + (leaseA.isValid() ? "valid" : "not valid") + ")")));
            try {
                rig.env.awaitUntil(rig.msg(race + ": waiting for A's lease to turn invalid while B holds the lock"),
                        revocationNotice(rig), () -> !leaseA.isValid());
            } catch (AssertionError e) {
                throw new AssertionError(rig.msg(race + ": two valid holders — A's lease is still valid "
                        + TestEnvironment.millis(revocationNotice(rig)) + " after B acquired"), e);
            }
            assertTrue(leaseB.isValid(), rig.msg(race + ": B's lease is not valid"));
            leaseB.release();
        }
        rig.notes.add(rounds + " races of a revoke against a release or an extend; the revoke ended a lease in " + revokedCount);
    }

    /**
     * Rule 8.6: what an operator is shown holds no secret and nothing that forges a line, and text
     * that would break that is refused: an owner description or a revocation reason with a control
     * character.
     */
    @Test
    @DisplayName("8.6 a control character in an owner or a reason is refused; no secret in what inspect shows")
    default void required_8_6_descriptionsAreSafe() {
        Rig rig = Rig.of(this);
        rig.requireFeature(Feature.INSPECTION);
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().owner("worker\r\nroot@prod"),
                rig.msg("an owner description with a line break was accepted"));
        LockClient a = rig.client();
        Lease lease = rig.acquireNow(a, rig.env.longLease());
        LockClient inspector = rig.client();
        LockInfo info = shown(rig, inspector, rig.name, "A holds it");
        List<String> secrets = new ArrayList<>(List.of(LockVerification.SECRET));
        rig.hooks.security().ifPresent(s -> secrets.addAll(s.secrets()));
        String shownText = info + " " + info.owner().orElse("") + " " + info.detail();
        for (String secret : secrets) {
            assertFalse(shownText.contains(secret), rig.msg("a secret appears in what inspect shows"));
        }
        assertTrue(shownText.chars().noneMatch(Character::isISOControl), rig.msg("what inspect shows has a control character"));
        if (rig.backend().has(Feature.REVOCATION)) {
            assertThrows(IllegalArgumentException.class, () -> inspector.revoke(rig.name, "stuck\nsecond line"),
                    rig.msg("a revocation reason with a line break was accepted"));
            assertTrue(lease.isValid(), rig.msg("a refused revoke ended the holder's lease"));
        }
        lease.release();
    }

    /** The longest an evicted holder may take to learn of a revoke: the hand-off bound plus a tolerance. */
    private static Duration revocationNotice(Rig rig) {
        return rig.env.handOffTimeout().plus(rig.env.tolerance());
    }

    /** What inspect shows of a lock the rule knows is held, within the hand-off bound (a replica catching up). */
    private static LockInfo shown(Rig rig, LockClient inspector, String name, String why) {
        AtomicReference<Optional<LockInfo>> shown = new AtomicReference<>(Optional.empty());
        rig.env.awaitUntil(rig.msg("waiting for inspect to show the holder of '" + name + "' (" + why + ")"),
                rig.env.handOffTimeout(), () -> shown.updateAndGet(x -> inspector.inspect(name)).isPresent());
        return shown.get().orElseThrow();
    }

    private static void awaitNotShown(Rig rig, LockClient inspector, String name, String why) {
        AtomicReference<Optional<LockInfo>> last = new AtomicReference<>(Optional.empty());
        try {
            rig.env.awaitUntil(rig.msg("inspect"), rig.env.handOffTimeout(),
                    () -> last.updateAndGet(x -> inspector.inspect(name)).isEmpty());
        } catch (AssertionError e) {
            throw new AssertionError(rig.msg("inspect still showed a holder after " + why + ": "
                    + last.get().map(Object::toString).orElse("?")), e);
        }
    }

    private static List<String> names(List<LockInfo> infos) {
        return infos.stream().map(LockInfo::name).collect(Collectors.toList());
    }
}
