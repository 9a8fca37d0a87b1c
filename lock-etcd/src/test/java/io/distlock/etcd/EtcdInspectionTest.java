package io.distlock.etcd;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockEvent;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.etcd.internal.EtcdEndpoint;
import io.distlock.etcd.internal.EtcdLockDriver;
import io.distlock.spi.DriverContext;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.Hold;
import io.distlock.spi.LockRequest;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.EtcdCluster;
import io.distlock.tck.fixtures.FaultProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Inspection and revocation against one real etcd member: the owner description stored in the key's
 * value, what {@code inspect} and {@code holders} show while a lock is held, after its release and
 * after its lease ended, a revoke of another client's lease (its {@code lost()}, its listener, its
 * extension, the waiter's higher token, the record and its lease), a revoke of a free lock, a revoke
 * racing a release, a holder cut off while revoked, and a key of the previous layout; at the SPI, the
 * revoked holds of read-write locks and semaphores told by the watch and by renewals, and their
 * revokes racing releases. The rights are
 * {@link EtcdRevocationRightsTest}'s.
 */
class EtcdInspectionTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final String PREFIX = "/inspect";
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static EtcdCluster etcd;

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        executor.shutdownNow();
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private <T extends AutoCloseable> T opened(T resource) {
        opened.add(resource);
        return resource;
    }

    private LockClient client(String owner, List<LockEvent> events) {
        LockOptions.Builder options = LockOptions.builder().owner(owner);
        if (events != null) {
            options.listener(events::add);
        }
        return opened(Locks.connect(URI.create(etcd.uri(PREFIX)), options.build()));
    }

    private LockClient client(String owner) {
        return client(owner, null);
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** @return the request keys in line for {@code name}, first (the holder) first */
    private static List<String> line(String name) {
        return etcd.keys(PREFIX + "/locks/" + name + "/");
    }

    @Test
    void theOwnerIsStoredInTheKeysValueAndInspectShowsTheHolderInOneRead() {
        LockClient holder = client("billing-worker-3");
        LockClient operator = client("ops");
        String name = unique("job");
        Instant before = Instant.now();
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();
        Instant after = Instant.now();

        String key = line(name).get(0);
        String value = etcd.value(key).orElseThrow();
        assertThat(value).startsWith("distlock 1\ntoken=").contains("\nowner=billing-worker-3\nat=");
        String token = value.substring(value.indexOf("token=") + 6, value.indexOf('\n', value.indexOf("token=")));

        LockInfo info = operator.inspect(name).orElseThrow();
        assertThat(info.name()).isEqualTo(name);
        assertThat(info.owner()).contains("billing-worker-3");
        assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(info.acquiredClock()).contains(LockInfo.Clock.HOLDER);
        assertThat(info.acquiredAt().orElseThrow()).isBetween(before.minusMillis(1), after.plusMillis(1));
        assertThat(info.remaining()).as("the holder's engine ends the lease; its session lease is kept alive").isEmpty();
        assertThat(info.waiters()).hasValue(0);
        assertThat(info.detail()).isEqualTo("key " + key + ", session lease 0x" + Long.toHexString(etcd.leaseOf(key)));
        assertThat(info.toString()).doesNotContain(token).contains("billing-worker-3");
        assertThat(holder.inspect(name)).contains(info);

        lease.release();
        assertThat(operator.inspect(name)).as("after the release").isEmpty();
        assertThat(operator.inspect(unique("never-held"))).isEmpty();
    }

    @Test
    void theWaitersBehindTheHolderAreCounted() throws Exception {
        LockClient first = client("first");
        LockClient second = client("second");
        LockClient third = client("third");
        String name = unique("queue");
        Lease held = first.lock(name).tryAcquire(LEASE).orElseThrow();
        Future<Optional<Lease>> secondWaits = executor.submit(() -> second.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
        ENV.awaitUntil("the second waits in line", () -> line(name).size() == 2);
        Future<Optional<Lease>> thirdWaits = executor.submit(() -> third.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
        ENV.awaitUntil("the third waits in line", () -> line(name).size() == 3);
        assertThat(first.inspect(name).orElseThrow().waiters()).hasValue(2);
        held.release();
        Lease next = secondWaits.get(10, TimeUnit.SECONDS).orElseThrow();
        LockInfo info = first.inspect(name).orElseThrow();
        assertThat(info.waiters()).hasValue(1);
        assertThat(info.owner()).contains("second");
        assertThat(info.fencingToken()).isEqualTo(next.fencingToken());
        next.release();
        thirdWaits.get(10, TimeUnit.SECONDS).orElseThrow().release();
    }

    @Test
    void aLeaseThatEndedIsNoLongerShown() {
        LockClient holder = client("short");
        String name = unique("ends");
        holder.lock(name).tryAcquire(ENV.scaled(Duration.ofMillis(800))).orElseThrow();
        assertThat(holder.inspect(name)).isPresent();
        ENV.awaitUntil("the engine ended the lease and deleted the key", () -> holder.inspect(name).isEmpty());
    }

    @Test
    void holdersListsTheHeldNamesUnderAPrefixInNameOrderUpToTheLimit() {
        LockClient a = client("a");
        LockClient b = client("b");
        LockClient operator = client("ops");
        String p = unique("h") + "/";
        for (String n : List.of("b", "a2", "a1", "a/x", "a-", "a.", "\u00e9t\u00e9")) {
            a.lock(p + n).tryAcquire(LEASE).orElseThrow();
        }
        executor.submit(() -> b.lock(p + "b").tryAcquire(LEASE, Duration.ofSeconds(30))); // a waiter: one lock, two keys
        ENV.awaitUntil("the waiter is in line", () -> line(p.replace("/", "%2F") + "b").size() == 2);
        a.lock(p + "released").tryAcquire(LEASE).orElseThrow().release();
        a.lock(p.substring(0, p.length() - 1) + "-beside").tryAcquire(LEASE).orElseThrow();

        assertThat(operator.holders(p, 100)).extracting(LockInfo::name)
                .containsExactly(p + "a-", p + "a.", p + "a/x", p + "a1", p + "a2", p + "b", p + "\u00e9t\u00e9");
        assertThat(operator.holders(p + "a", 100)).extracting(LockInfo::name)
                .containsExactly(p + "a-", p + "a.", p + "a/x", p + "a1", p + "a2");
        assertThat(operator.holders(p, 2)).extracting(LockInfo::name).containsExactly(p + "a-", p + "a.");
        assertThat(operator.holders(p + "b", 1)).singleElement().satisfies(info -> {
            assertThat(info.owner()).contains("a");
            assertThat(info.waiters()).hasValue(1);
        });
        assertThat(operator.holders(p + "nothing", 10)).isEmpty();
        assertThat(operator.holders("", 10_000)).extracting(LockInfo::name).contains(p + "b", p.substring(0, p.length() - 1) + "-beside");
    }

    @Test
    void aRevokeEndsAnotherClientsLeaseAtOnceAndTheWaiterAcquiresWithAHigherToken() throws Exception {
        List<LockEvent> holderEvents = new CopyOnWriteArrayList<>();
        List<LockEvent> operatorEvents = new CopyOnWriteArrayList<>();
        LockClient holder = client("stuck-worker", holderEvents);
        LockClient waiter = client("next-worker");
        LockClient operator = client("ops-console", operatorEvents);
        String name = unique("revoked");
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow().autoRenew();
        CompletableFuture<Lease.LossReason> lost = lease.lost().toCompletableFuture();
        long[] lostAt = new long[1];
        lost.thenRun(() -> lostAt[0] = System.nanoTime());
        Future<Optional<Lease>> waiting = executor.submit(() -> waiter.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
        ENV.awaitUntil("the waiter is in line", () -> line(name).size() == 2);
        String value = etcd.value(line(name).get(0)).orElseThrow();
        String token = value.substring(value.indexOf("token=") + 6, value.indexOf('\n', value.indexOf("token=")));

        long start = System.nanoTime();
        LockInfo revoked = operator.revoke(name, "stuck since 02:10").orElseThrow();
        long returned = System.nanoTime();

        assertThat(revoked.owner()).contains("stuck-worker");
        assertThat(revoked.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(lost.get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.REVOKED);
        System.out.printf("[EtcdInspectionTest] revoke to the holder's lost(): %.1f ms (the revoke call took %.1f ms)%n",
                (lostAt[0] - start) / 1e6, (returned - start) / 1e6);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.extend(LEASE)).isFalse();
        Lease next = waiting.get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(next.fencingToken().orElseThrow()).isGreaterThan(lease.fencingToken().orElseThrow());
        assertThat(operator.inspect(name).orElseThrow().owner()).contains("next-worker");

        ENV.awaitUntil("both listeners heard", () -> holderEvents.stream().anyMatch(e -> e.type() == LockEvent.Type.REVOKED)
                && operatorEvents.stream().anyMatch(e -> e.type() == LockEvent.Type.REVOKED));
        assertThat(holderEvents).filteredOn(e -> e.type() == LockEvent.Type.REVOKED).singleElement().satisfies(e -> {
            assertThat(e.revocationReason()).contains("stuck since 02:10");
            assertThat(e.lossReason()).contains(Lease.LossReason.REVOKED);
        });
        assertThat(holderEvents).noneMatch(e -> e.type() == LockEvent.Type.LOST);
        assertThat(operatorEvents).filteredOn(e -> e.type() == LockEvent.Type.REVOKED).singleElement()
                .satisfies(e -> assertThat(e.revocationReason()).contains("stuck since 02:10"));

        String record = PREFIX + "/revoked/" + token;
        assertThat(etcd.value(record)).contains("distlock 1\nreason=stuck since 02:10\nby=ops-console");
        long recordLease = etcd.leaseOf(record);
        assertThat(recordLease).as("the record is bound to a lease").isNotZero();
        assertThat(etcd.ttlOf(recordLease)).as("that nobody keeps alive: it expires within 10 minutes").isBetween(1L, 600L);
        next.release();
    }

    @Test
    void aRevokeOfAFreeLockIsEmptyAndChangesNothing() {
        LockClient operator = client("ops");
        LockClient other = client("other");
        String name = unique("free");
        int records = etcd.keys(PREFIX + "/revoked/").size();
        assertThat(operator.revoke(name, "nothing there")).isEmpty();
        other.lock(name).tryAcquire(LEASE).orElseThrow().release();
        assertThat(operator.revoke(name, "released")).isEmpty();
        assertThat(etcd.keys(PREFIX + "/revoked/")).as("no record for a revoke that found nothing").hasSize(records);
        Lease again = other.lock(name).tryAcquire(LEASE).orElseThrow();
        assertThat(again.isValid()).isTrue();
        again.release();
    }

    @Test
    void aRevokeRacingTheHoldersReleaseNeverLeavesTwoValidHolders() throws Exception {
        LockClient holder = client("racer");
        LockClient waiter = client("waiter");
        LockClient operator = client("ops");
        int revokedHolder = 0;
        int revokedWaiter = 0;
        int rounds = 30;
        for (int round = 0; round < rounds; round++) {
            String name = unique("race");
            Lease a = holder.lock(name).tryAcquire(LEASE).orElseThrow();
            Future<Optional<Lease>> waiting = executor.submit(() -> waiter.lock(name).tryAcquire(LEASE, Duration.ofSeconds(30)));
            ENV.awaitUntil("the waiter is in line", () -> line(name).size() == 2);
            CyclicBarrier start = new CyclicBarrier(2);
            long skew = ThreadLocalRandom.current().nextLong(-8_000, 1_000); // µs: the revoke (two round trips) or the release (one) first
            Future<Optional<LockInfo>> revoke = executor.submit(() -> {
                start.await();
                spin(skew);
                return operator.revoke(name, "race " + name);
            });
            Future<?> release = executor.submit(() -> {
                start.await();
                spin(-skew);
                a.release();
                return null;
            });
            release.get(10, TimeUnit.SECONDS);
            Optional<LockInfo> revoked = revoke.get(10, TimeUnit.SECONDS);
            Lease b = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(a.isValid()).isFalse();
            if (revoked.isPresent() && revoked.get().owner().orElseThrow().equals("waiter")) {
                revokedWaiter++;
                long revokedToken = revoked.get().fencingToken().orElseThrow();
                if (b.fencingToken().orElseThrow() == revokedToken) {
                    ENV.awaitUntil("the waiter learns it was revoked", () -> b.lost().toCompletableFuture().isDone());
                    assertThat(b.lost().toCompletableFuture().get()).isEqualTo(Lease.LossReason.REVOKED);
                } else {
                    assertThat(b.fencingToken().orElseThrow()).isGreaterThan(revokedToken);
                    assertThat(b.isValid()).isTrue();
                }
            } else {
                revokedHolder += revoked.isPresent() ? 1 : 0;
                assertThat(b.isValid()).as("round %d: the waiter holds, nobody else", round).isTrue();
                assertThat(operator.inspect(name).orElseThrow().fencingToken()).isEqualTo(b.fencingToken());
            }
            assertThat(a.isValid() && b.isValid()).isFalse();
            b.release();
        }
        System.out.printf("[EtcdInspectionTest] revoke racing release, %d rounds: the holder revoked %d, the next holder %d,"
                + " released first and nothing held %d%n", rounds, revokedHolder, revokedWaiter, rounds - revokedHolder - revokedWaiter);
    }

    private static void spin(long micros) {
        long until = System.nanoTime() + micros * 1_000;
        while (micros > 0 && System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /** A holder cut off while it is revoked: its watch on the records resumes when it is back, and tells it. */
    @Test
    void aHolderCutOffWhileRevokedLearnsItWasRevokedWhenItIsBack() throws Exception {
        FaultProxy link = opened(FaultProxy.start("127.0.0.1", Integer.parseInt(etcd.memberEndpoints().get(0).split(":")[1])));
        LockClient holder = opened(Locks.connect(URI.create("etcd://" + link.endpoint() + PREFIX + "?sessionTtl=10"),
                LockOptions.builder().owner("cut-off").build()));
        LockClient operator = client("ops");
        String name = unique("cut-off");
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();

        link.drop();
        assertThat(operator.revoke(name, "while away")).isPresent();
        link.heal();

        assertThat(lease.lost().toCompletableFuture().get(ENV.scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
    }

    /**
     * At the SPI: the watch of revocation records tells the client of a revoke, and the renewal of the
     * revoked lease then still reads the record and answers {@link ExtendOutcome#revoked} with the
     * reason; a key deleted by hand (no record) is merely lost; a record put by hand for a lease whose
     * key is still there is ignored.
     */
    @Test
    void anExtensionOfARevokedLeaseAnswersRevokedWithTheReasonAndAForgedRecordIsIgnored() {
        List<List<String>> revocations = new CopyOnWriteArrayList<>();
        EtcdLockDriver holder = opened(EtcdLockDriver.connect(EtcdEndpoint.parse(URI.create(etcd.uri(PREFIX))), LockOptions.defaults(),
                new DriverContext() {
                    @Override
                    public void leaseLost(Grant grant, Lease.LossReason reason) {
                    }

                    @Override
                    public void leaseRevoked(String ownerToken, String reason) {
                        revocations.add(List.of(ownerToken, reason));
                    }

                    @Override
                    public void connectionSuspended() {
                    }

                    @Override
                    public void connectionRestored() {
                    }
                }));
        LockClient operator = client("ops");

        String forged = unique("forged");
        Grant kept = holder.tryAcquire(new LockRequest(forged, "tok" + UUID.randomUUID().toString().replace("-", ""), LEASE)).grant();
        etcd.putKey(PREFIX + "/revoked/" + kept.ownerToken(), "distlock 1\nreason=forged\nby=nobody");

        String name = unique("extend");
        Grant grant = holder.tryAcquire(new LockRequest(name, "tok" + UUID.randomUUID().toString().replace("-", ""), LEASE)).grant();
        assertThat(operator.revoke(name, "by the book")).isPresent();
        // The watch first: an extension that hears of the revoke before the watch's event is
        // processed ends the request, and the event then has nobody left to tell (the extension
        // already told the engine, with the reason).
        ENV.awaitUntil("the watch reported it", () -> revocations.contains(List.of(grant.ownerToken(), "by the book")));
        ExtendOutcome outcome = holder.extend(grant, LEASE);
        assertThat(outcome.isLost()).isTrue();
        assertThat(outcome.revocationReason()).contains("by the book");
        assertThat(holder.extend(kept, LEASE).isExtended()).as("a forged record ends nothing").isTrue();

        String other = unique("deleted-by-hand");
        Grant deleted = holder.tryAcquire(new LockRequest(other, "tok" + UUID.randomUUID().toString().replace("-", ""), LEASE)).grant();
        etcd.keys(PREFIX + "/locks/" + other + "/").forEach(etcd::deleteKey);
        ExtendOutcome gone = holder.extend(deleted, LEASE);
        assertThat(gone.isLost()).isTrue();
        assertThat(gone.revocationReason()).isEmpty();
        assertThat(revocations).hasSize(1);
    }

    /** A driver of its own, whose context records the revocations its client is told of. */
    private EtcdLockDriver driver(List<List<String>> revocations) {
        return opened(EtcdLockDriver.connect(EtcdEndpoint.parse(URI.create(etcd.uri(PREFIX))), LockOptions.defaults(),
                new DriverContext() {
                    @Override
                    public void leaseLost(Grant grant, Lease.LossReason reason) {
                    }

                    @Override
                    public void leaseRevoked(String ownerToken, String reason) {
                        revocations.add(List.of(ownerToken, reason));
                    }

                    @Override
                    public void connectionSuspended() {
                    }

                    @Override
                    public void connectionRestored() {
                    }
                }));
    }

    private static LockRequest request(String name, Hold hold) {
        return new LockRequest(name, "tok" + UUID.randomUUID().toString().replace("-", ""), LEASE,
                System.nanoTime() + TimeUnit.MINUTES.toNanos(1), hold);
    }

    /**
     * At the SPI, for a client that holds no lock (its watch on the records starts with its first
     * hold of any kind): a reader's, a writer's and a permit's revoked holds are each told by the
     * watch, with the reason, and their renewals answer {@link ExtendOutcome#revoked}; the hold
     * beside them is extended.
     */
    @Test
    void revokedReadWriteAndPermitHoldsAreToldByTheWatchAndTheirExtensionAnswersRevoked() {
        List<List<String>> revocations = new CopyOnWriteArrayList<>();
        EtcdLockDriver holder = driver(revocations);
        LockClient operator = client("ops");
        String rw = unique("rw-holds");
        String sem = unique("sem-holds");
        Grant read = holder.tryAcquire(request(rw, Hold.READ)).grant();
        Grant kept = holder.tryAcquire(request(sem, Hold.permit(2))).grant();
        Grant permit = holder.tryAcquire(request(sem, Hold.permit(2))).grant();

        assertThat(operator.readWriteLock(rw).revoke(Long.toString(read.fencingToken().orElseThrow()), "reader gone"))
                .map(LockInfo::kind).contains(LockInfo.Kind.READ);
        Grant write = holder.tryAcquire(request(rw, Hold.WRITE)).grant();
        assertThat(write.fencingToken().orElseThrow()).as("granted at once, above the revoked reader")
                .isGreaterThan(read.fencingToken().orElseThrow());
        assertThat(operator.readWriteLock(rw).revoke(Long.toString(write.fencingToken().orElseThrow()), "writer gone"))
                .map(LockInfo::kind).contains(LockInfo.Kind.WRITE);
        assertThat(operator.semaphore(sem, 2).revoke(Long.toString(permit.fencingToken().orElseThrow()), "permit gone"))
                .map(LockInfo::kind).contains(LockInfo.Kind.PERMIT);

        ENV.awaitUntil("the watch told all three", () -> revocations.size() == 3);
        assertThat(revocations).containsExactlyInAnyOrder(List.of(read.ownerToken(), "reader gone"),
                List.of(write.ownerToken(), "writer gone"), List.of(permit.ownerToken(), "permit gone"));
        assertThat(holder.extend(read, LEASE).revocationReason()).contains("reader gone");
        assertThat(holder.extend(write, LEASE).revocationReason()).contains("writer gone");
        ExtendOutcome permitOutcome = holder.extend(permit, LEASE);
        assertThat(permitOutcome.isLost()).isTrue();
        assertThat(permitOutcome.revocationReason()).contains("permit gone");
        assertThat(holder.extend(kept, LEASE).isExtended()).isTrue();
        assertThat(operator.semaphore(sem, 2).holders()).extracting(LockInfo::fencingToken).containsExactly(kept.fencingToken());
    }

    /**
     * A revoke of a permit or a writer racing its holder's release (at the SPI: the release says
     * whether it deleted the key): exactly one of them ends the hold, never both, never neither; a
     * record is left only when the revoke did, and nothing is held after.
     */
    @Test
    void aHoldRevokeRacingTheHoldersReleaseEitherRevokesOrReleasesNeverBoth() throws Exception {
        EtcdLockDriver holder = driver(new CopyOnWriteArrayList<>());
        LockClient operator = client("ops");
        int revokedFirst = 0;
        int rounds = 24;
        for (int round = 0; round < rounds; round++) {
            boolean permit = round % 2 == 0;
            String name = unique("hold-race");
            Grant grant = holder.tryAcquire(request(name, permit ? Hold.permit(1) : Hold.WRITE)).grant();
            String holdId = Long.toString(grant.fencingToken().orElseThrow());
            CyclicBarrier start = new CyclicBarrier(2);
            long skew = ThreadLocalRandom.current().nextLong(-8_000, 1_000); // µs: the revoke (two round trips) or the release (one) first
            Future<Optional<LockInfo>> revoke = executor.submit(() -> {
                start.await();
                spin(skew);
                return permit ? operator.semaphore(name, 1).revoke(holdId, "race") : operator.readWriteLock(name).revoke(holdId, "race");
            });
            Future<Boolean> release = executor.submit(() -> {
                start.await();
                spin(-skew);
                return holder.release(grant);
            });
            boolean released = release.get(10, TimeUnit.SECONDS);
            boolean revoked = revoke.get(10, TimeUnit.SECONDS).isPresent();
            assertThat(released ^ revoked).as("round %d: released %s, revoked %s", round, released, revoked).isTrue();
            assertThat(etcd.value(PREFIX + "/revoked/" + grant.ownerToken())).as("a record iff revoked").matches(r -> r.isPresent() == revoked);
            assertThat(permit ? operator.semaphore(name, 1).holders() : operator.readWriteLock(name).holders()).isEmpty();
            revokedFirst += revoked ? 1 : 0;
        }
        System.out.printf("[EtcdInspectionTest] hold revoke racing release, %d rounds: revoked %d, released %d%n",
                rounds, revokedFirst, rounds - revokedFirst);
    }

    @Test
    void aKeyOfThePreviousLayoutIsShownWithoutOwnerAndCanBeRevoked() {
        LockClient operator = client("ops");
        String name = unique("old-layout");
        String key = PREFIX + "/locks/" + name + "/oldclient-0";
        etcd.putKey(key, "oldOwnerToken1234567890"); // what a client of the previous layout writes: its owner token alone
        LockInfo info = operator.inspect(name).orElseThrow();
        assertThat(info.owner()).isEmpty();
        assertThat(info.acquiredAt()).isEmpty();
        assertThat(info.fencingToken()).hasValue(etcd.createRevision(key).orElseThrow());
        assertThat(operator.revoke(name, "old client")).isPresent();
        assertThat(etcd.value(key)).isEmpty();
        assertThat(etcd.value(PREFIX + "/revoked/oldOwnerToken1234567890")).hasValueSatisfying(v -> assertThat(v).contains("old client"));
    }
}
