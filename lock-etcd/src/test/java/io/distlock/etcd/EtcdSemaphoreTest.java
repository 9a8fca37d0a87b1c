package io.distlock.etcd;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.PermitCountMismatchException;
import io.distlock.tck.fixtures.EtcdCluster;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Semaphores on one real etcd member, each client its own {@link LockClient}: N permits and not
 * N + 1, waiters served in order as permits come back, a permit whose holder stops comes back
 * after its lease or with its session, a client asking for another count is refused and leaves
 * nothing behind, and tokens are create revisions (distinct; a later acquire's above an earlier one's).
 *
 * <p>The clients' session TTL is 30 s (a keep-alive's look at the line every 10 s): a waiter served
 * within a second or two was woken by its watch.
 */
class EtcdSemaphoreTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration WOKEN = Duration.ofSeconds(3);
    private static EtcdCluster etcd;

    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    private LockClient client(String prefix) {
        return client(prefix, 30);
    }

    private LockClient client(String prefix, int sessionTtlSeconds) {
        // Timeouts with room for a loaded machine (the defaults are 2 s); they cost nothing when answers come.
        LockClient client = Locks.connect(java.net.URI.create(etcd.uri(prefix + "?sessionTtl=" + sessionTtlSeconds)),
                LockOptions.builder().connectTimeout(Duration.ofSeconds(5)).operationTimeout(Duration.ofSeconds(5)).build());
        clients.add(client);
        return client;
    }

    private static Optional<Lease> waitFor(DistributedSemaphore semaphore) {
        try {
            return semaphore.tryAcquire(LEASE, WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void nPermitsAndNotNPlusOneAndWaitersAreServedAsPermitsComeBack() throws Exception {
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(client("/sem-n").semaphore("partner-api", 3).tryAcquire(LEASE).orElseThrow());
        }
        LockClient fourth = client("/sem-n");
        assertThat(fourth.semaphore("partner-api", 3).tryAcquire(LEASE)).isEmpty();
        assertThat(etcd.keys("/sem-n/semaphores/partner-api/3/")).as("a busy single attempt leaves no key").hasSize(3);

        CompletableFuture<Optional<Lease>> first = CompletableFuture.supplyAsync(() -> waitFor(fourth.semaphore("partner-api", 3)));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/sem-n/semaphores/partner-api/3/").size() == 4);
        LockClient fifth = client("/sem-n");
        CompletableFuture<Optional<Lease>> second = CompletableFuture.supplyAsync(() -> waitFor(fifth.semaphore("partner-api", 3)));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/sem-n/semaphores/partner-api/3/").size() == 5);

        held.get(1).release();
        Lease next = first.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(second).as("one permit came back: the first waiter took it").isNotDone();
        held.get(0).release();
        Lease last = second.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();

        long before = held.stream().mapToLong(l -> l.fencingToken().orElseThrow()).max().orElseThrow();
        assertThat(next.fencingToken().orElseThrow()).isGreaterThan(before);
        assertThat(last.fencingToken().orElseThrow()).isGreaterThan(next.fencingToken().orElseThrow());
        assertThat(client("/sem-n").semaphore("partner-api", 3).tryAcquire(LEASE)).isEmpty();
    }

    @Test
    void anotherCountIsRefusedAndLeavesNothingHeld() throws Exception {
        LockClient a = client("/sem-count");
        LockClient b = client("/sem-count");
        Lease permit = a.semaphore("batch", 2).tryAcquire(LEASE).orElseThrow();

        assertThatThrownBy(() -> b.semaphore("batch", 3).tryAcquire(LEASE))
                .isInstanceOfSatisfying(PermitCountMismatchException.class, refused -> {
                    assertThat(refused.stored()).isEqualTo(2);
                    assertThat(refused.requested()).isEqualTo(3);
                })
                .hasMessageContaining("'batch'");
        assertThatThrownBy(() -> b.semaphore("batch", 1).tryAcquire(LEASE, WAIT)).as("a waiting acquire too, at once")
                .isInstanceOf(PermitCountMismatchException.class);
        assertThat(etcd.keys("/sem-count/semaphores/")).as("only the holder's key").hasSize(1);
        assertThat(etcd.keys("/sem-count/abandoned/")).as("and no marker").isEmpty();

        assertThat(b.semaphore("batch", 2).tryAcquire(LEASE)).as("the stored count is served").isPresent();
        assertThat(a.semaphore("batch", 2).tryAcquire(LEASE)).as("two of two are held").isEmpty();

        permit.release();
        clients.remove(b);
        b.close();
        Lease three = client("/sem-count").semaphore("batch", 3).tryAcquire(LEASE).orElseThrow();
        assertThat(three.isValid()).as("once every permit is back, another count may be used").isTrue();
        assertThatThrownBy(() -> a.semaphore("batch", 2).tryAcquire(LEASE)).isInstanceOf(PermitCountMismatchException.class)
                .hasMessageContaining("has 3 permits");
    }

    /** A permit that is neither released nor renewed ends with its lease (the engine deletes its key). */
    @Test
    void aPermitWhoseHolderStopsComesBackAfterItsLease() throws Exception {
        LockClient holder = client("/sem-stop");
        LockClient other = client("/sem-stop");
        Duration shortLease = Duration.ofMillis(700);
        Lease stopped = holder.semaphore("slots", 1).tryAcquire(shortLease).orElseThrow();
        long start = System.nanoTime();
        Lease next = waitFor(other.semaphore("slots", 1)).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(shortLease.plus(WOKEN));
        assertThat(stopped.lost().toCompletableFuture().get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.EXPIRED);
        assertThat(next.fencingToken().orElseThrow()).isGreaterThan(stopped.fencingToken().orElseThrow());
    }

    /** The holder's session ends (an operator revokes its lease): its permit is back at once, and its client learns it. */
    @Test
    void aPermitEndsWithItsSession() throws Exception {
        LockClient holder = client("/sem-session", 3);
        LockClient other = client("/sem-session");
        Lease permit = holder.semaphore("slots", 1).tryAcquire(Duration.ofSeconds(30), WAIT).orElseThrow();
        CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> waitFor(other.semaphore("slots", 1)));
        Awaitility.await().atMost(WOKEN).until(() -> etcd.keys("/sem-session/semaphores/slots/1/").size() == 2);
        etcd.revokeLease(etcd.leaseOf(etcd.keys("/sem-session/semaphores/slots/1/").stream()
                .filter(key -> etcd.createRevision(key).orElseThrow() == permit.fencingToken().orElseThrow())
                .findFirst().orElseThrow()));
        assertThat(waiting.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS)).isPresent();
        assertThat(permit.lost().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
    }

    /**
     * Eight clients take permits of a 3-permit semaphore for a while: never more than three held at
     * once, and all three held at times; every token distinct.
     */
    @Test
    void underContentionNeverMoreThanNPermits() throws Exception {
        int permits = 3;
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        java.util.Set<Long> tokens = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicInteger reused = new AtomicInteger();
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            LockClient client = client("/sem-load");
            runs.add(CompletableFuture.runAsync(() -> {
                DistributedSemaphore semaphore = client.semaphore("hot", permits);
                while (System.nanoTime() - until < 0) {
                    Lease lease = waitFor(semaphore).orElseThrow();
                    most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                    grants.incrementAndGet();
                    if (!tokens.add(lease.fencingToken().orElseThrow())) {
                        reused.incrementAndGet();
                    }
                    sleep(10);
                    holding.decrementAndGet();
                    lease.release();
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        System.out.printf("[EtcdSemaphoreTest] %d grants of %d permits among 8 clients in 3 s%n", grants.get(), permits);
        assertThat(most).hasValue(permits);
        assertThat(reused).hasValue(0);
        assertThat(etcd.keys("/sem-load/")).isEmpty();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
