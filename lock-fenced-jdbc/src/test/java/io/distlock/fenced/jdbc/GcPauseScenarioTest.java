package io.distlock.fenced.jdbc;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.fixtures.ZooKeeperProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The seed's scenario end to end, on a real ZooKeeper and a real PostgreSQL: client A takes the lock
 * on order 42 and stalls past its lease; B takes the lock with a higher fencing token and writes the
 * stock through the fence; A wakes up, still believing it holds the lock, and writes with its old
 * token: the database refuses it, and B's stock stays. Then the same pause, ended by an operator
 * instead of the lease: the README's "Who holds it? Taking a lock back".
 */
class GcPauseScenarioTest {

    private static ZooKeeperProcess zookeeper;
    private static TestDatabase pg;

    @BeforeAll
    static void startServers() throws SQLException {
        zookeeper = ZooKeeperProcess.start(System.getProperty("java.class.path"));
        pg = TestDatabase.postgres();
        // The seed's inventory table; the fence table beside it.
        Db.execute(pg, "CREATE TABLE inventory (sku text PRIMARY KEY, stock int NOT NULL, written_by text NOT NULL)");
        Db.execute(pg, "INSERT INTO inventory VALUES ('order-42', 10, 'nobody')");
    }

    @AfterAll
    static void stopServers() {
        try {
            if (pg != null) {
                pg.close();
            }
        } finally {
            if (zookeeper != null) {
                zookeeper.close();
            }
        }
    }

    private static void writeStock(Connection c, int stock, String writer) throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE inventory SET stock = ?, written_by = ? WHERE sku = 'order-42'")) {
            update.setInt(1, stock);
            update.setString(2, writer);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }

    private static int readStock(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet row = s.executeQuery("SELECT stock FROM inventory WHERE sku = 'order-42'")) {
            row.next();
            return row.getInt(1);
        }
    }

    @Test
    void thePausedHoldersLateWriteIsRefusedByTheDatabaseAndTheNextHoldersWriteStays() throws Exception {
        FencedWrites fence = FencedWrites.postgres(FencedWrites.DEFAULT_TABLE);
        try (Connection setup = Db.autoCommit(pg)) {
            fence.createTableIfMissing(setup);
        }
        String uri = "zookeeper://" + zookeeper.connectString();
        try (LockClient clientA = Locks.connect(uri); LockClient clientB = Locks.connect(uri);
             Connection a = Db.transaction(pg); Connection b = Db.transaction(pg)) {

            // t=0: A takes the lock for 2 s and reads the stock it means to decrement.
            Lease leaseA = clientA.lock("order-42").acquire(Duration.ofSeconds(2));
            long tokenA = leaseA.fencingToken().orElseThrow();
            int stockSeenByA = readStock(a);
            a.commit();

            // t=1: A stalls (a stop-the-world GC): it does nothing while B waits for the lock, which
            // is free only once A's lease has run out (B's acquire returns then: no sleep needed).
            try (Lease leaseB = clientB.lock("order-42").acquire(Duration.ofSeconds(30))) {
                long tokenB = leaseB.fencingToken().orElseThrow();
                assertThat(tokenB).as("B's grant came after A's").isGreaterThan(tokenA);
                assertThat(leaseA.isValid()).as("A's lease ran out during its pause").isFalse();

                // t=11: B writes through the fence, and commits.
                fence.check(b, "order-42", leaseB);
                writeStock(b, readStock(b) - 3, "B");
                b.commit();

                // t=16: A wakes up, still believes it holds the lock, and writes the stock it computed
                // before the pause. In its transaction the write goes first, the check after: either
                // order is safe, because the refusal rolls the whole transaction back.
                writeStock(a, stockSeenByA - 1, "A");
                StaleTokenException refused = catchThrowableOfType(StaleTokenException.class,
                        () -> fence.check(a, "order-42", leaseA));
                assertThat((Throwable) refused).as("A's late write is refused").isNotNull();
                assertThat(refused.resource()).isEqualTo("order-42");
                assertThat(refused.token()).isEqualTo(tokenA);
                assertThat(refused.currentToken()).isEqualTo(tokenB);
                a.rollback();

                // The data: B's write stays, A's never happened.
                try (Connection reader = Db.autoCommit(pg); Statement s = reader.createStatement();
                     ResultSet row = s.executeQuery("SELECT stock, written_by FROM inventory WHERE sku = 'order-42'")) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getInt("stock")).isEqualTo(7);
                    assertThat(row.getString("written_by")).isEqualTo("B");
                }
                assertThat(Db.recorded(pg, fence.table(), "order-42")).hasValue(tokenB);
            }
            leaseA.release();
        }
    }

    /**
     * The stuck holder's lock taken back by an operator, long before its 10-minute lease would run
     * out: A stalls; B, the next instance, waits; the operator inspects and revokes; A's client
     * learns it, B gets the lock with a higher token and writes; A wakes and writes with its old
     * token: the database refuses it.
     */
    @Test
    void anOperatorTakesTheStuckHoldersLockBackAndItsLateWriteIsRefused() throws Exception {
        FencedWrites fence = FencedWrites.postgres(FencedWrites.DEFAULT_TABLE);
        try (Connection setup = Db.autoCommit(pg)) {
            fence.createTableIfMissing(setup);
            try (Statement s = setup.createStatement()) {
                s.executeUpdate("INSERT INTO inventory VALUES ('nightly-reconciliation', 0, 'nobody')");
            }
        }
        String uri = "zookeeper://" + zookeeper.connectString();
        try (LockClient clientA = Locks.connect(uri); LockClient clientB = Locks.connect(uri);
             LockClient ops = Locks.connect(uri, LockOptions.builder().owner("on-call: alice").build());
             Connection connection = Db.transaction(pg); Connection b = Db.transaction(pg)) {
            // 02:00: A takes the lock for the night's job (a 10-minute lease), then stalls in a long pause.
            Lease lease = clientA.lock("nightly-reconciliation").acquire(Duration.ofMinutes(10));
            CompletableFuture<Lease.LossReason> lostA = lease.lost().toCompletableFuture();
            // B, the next instance, waits for its turn.
            CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
                try {
                    return clientB.lock("nightly-reconciliation").tryAcquire(Duration.ofMinutes(10), Duration.ofSeconds(30))
                            .orElseThrow();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });

            // 03:00: the operator asks who holds it (once B's request is queued: B's thread may
            // not have reached the server yet), and takes it back.
            Optional<LockInfo> holder = await().atMost(Duration.ofSeconds(10))
                    .until(() -> ops.inspect("nightly-reconciliation"),
                            h -> h.map(LockInfo::waiters).equals(Optional.of(OptionalInt.of(1))));
            assertThat(holder).hasValueSatisfying(h -> {
                assertThat(h.fencingToken()).isEqualTo(lease.fencingToken());
                assertThat(h.owner()).get().asString().contains("@").doesNotContain("on-call");
                assertThat(h.waiters()).hasValue(1);
            });
            Optional<LockInfo> revoked = ops.revoke("nightly-reconciliation", "stuck since 02:10, OPS-311");
            assertThat(revoked).map(LockInfo::fencingToken).contains(lease.fencingToken());

            // A's client learns it; B takes over with a higher token and writes through the fence.
            assertThat(lostA.get(10, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.REVOKED);
            try (Lease leaseB = next.get(30, TimeUnit.SECONDS)) {
                assertThat(leaseB.fencingToken().getAsLong()).isGreaterThan(lease.fencingToken().getAsLong());
                fence.check(b, "nightly-reconciliation", leaseB);
                try (Statement s = b.createStatement()) {
                    s.executeUpdate("UPDATE inventory SET stock = 1, written_by = 'B' WHERE sku = 'nightly-reconciliation'");
                }
                b.commit();

                // A wakes from its pause and writes what it computed before it: refused.
                try (Statement s = connection.createStatement()) {
                    s.executeUpdate("UPDATE inventory SET stock = 99, written_by = 'A' WHERE sku = 'nightly-reconciliation'");
                }
                StaleTokenException refused = catchThrowableOfType(StaleTokenException.class,
                        () -> fence.check(connection, "nightly-reconciliation", lease));
                assertThat((Throwable) refused).as("the evicted holder's late write is refused").isNotNull();
                assertThat(refused.currentToken()).isEqualTo(leaseB.fencingToken().getAsLong());
                connection.rollback();
            }
            try (Connection reader = Db.autoCommit(pg); Statement s = reader.createStatement();
                 ResultSet row = s.executeQuery("SELECT written_by FROM inventory WHERE sku = 'nightly-reconciliation'")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo("B");
            }
        }
    }
}
