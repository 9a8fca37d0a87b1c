package io.distlock.fenced.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Checks of one resource from several connections at once, on a real PostgreSQL and a real MariaDB
 * (one of each for the class, started side by side): they serialize on the resource's row, a
 * waiting check decides on what the other transaction committed, and in a random interleaving of
 * fresh, equal and stale tokens the accepted tokens never go down in commit order.
 */
class ConcurrentChecksTest {

    private static final AtomicInteger TABLES = new AtomicInteger();
    private static TestDatabase.Both servers;

    @BeforeAll
    static void startServers() {
        servers = TestDatabase.Both.start();
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    @Nested
    class OnPostgreSQL extends Checks {
        OnPostgreSQL() {
            super(servers.postgres());
        }

        @Test
        void underRepeatableReadAWaitingCheckFailsWithASerializationFailure() throws Exception {
            Db.execute(db, "INSERT INTO " + fence.table() + " VALUES ('order-42', 1)");
            try (Connection first = Db.transaction(db); Connection second = Db.transaction(db)) {
                second.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                fence.check(first, "order-42", 10);
                CompletableFuture<Void> waiting = checkOnAnotherConnection(second, "order-42", 20);
                await().atMost(Duration.ofSeconds(30)).until(this::someoneWaitsForALock);
                first.commit();
                Throwable failure = failureOf(waiting);
                assertThat(failure).isInstanceOf(SQLException.class).isNotInstanceOf(StaleTokenException.class);
                assertThat(((SQLException) failure).getSQLState()).isEqualTo("40001");
                second.rollback();
            }
            assertThat(Db.recorded(db, fence.table(), "order-42")).hasValue(10);
        }
    }

    @Nested
    class OnMariaDB extends Checks {
        OnMariaDB() {
            super(servers.mariadb());
        }

        @Test
        void underRepeatableReadAWaitingCheckDecidesOnTheLatestCommittedTokenNotItsSnapshot() throws Exception {
            Db.execute(db, "INSERT INTO " + fence.table() + " VALUES ('order-42', 1)");
            try (Connection first = Db.transaction(db); Connection second = Db.transaction(db)) {
                second.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                // The second transaction's snapshot: token 1.
                assertThat(tokenSeenBy(second, "order-42")).isEqualTo(1);
                fence.check(first, "order-42", 10);
                CompletableFuture<Void> waiting = checkOnAnotherConnection(second, "order-42", 5);
                await().atMost(Duration.ofSeconds(30)).until(this::someoneWaitsForALock);
                first.commit();
                Throwable failure = failureOf(waiting);
                assertThat(failure).as("InnoDB's locking read sees the committed 10, not the snapshot's 1")
                        .isInstanceOf(StaleTokenException.class);
                assertThat(((StaleTokenException) failure).currentToken()).isEqualTo(10);
                assertThat(tokenSeenBy(second, "order-42")).as("while its plain reads keep the snapshot").isEqualTo(1);
                second.rollback();
            }
            assertThat(Db.recorded(db, fence.table(), "order-42")).hasValue(10);
        }

        @Test
        void twoChecksWaitingOnAFirstInsertThatRollsBackMayDeadlockOneOfThem() throws Exception {
            try (Connection first = Db.transaction(db); Connection second = Db.transaction(db);
                 Connection third = Db.transaction(db)) {
                fence.check(first, "order-42", 10);
                CompletableFuture<Void> a = checkOnAnotherConnection(second, "order-42", 5);
                await().atMost(Duration.ofSeconds(30)).until(() -> lockWaits() == 1);
                CompletableFuture<Void> b = checkOnAnotherConnection(third, "order-42", 6);
                await().atMost(Duration.ofSeconds(30)).until(() -> lockWaits() == 2);
                first.rollback();
                Throwable failureA = failureOf(a);
                Throwable failureB = failureOf(b);
                // Each either passed or was ended as a deadlock victim (40001: retry the transaction);
                // never a stale refusal (10 was not committed), never both victims.
                for (Throwable failure : new Throwable[] {failureA, failureB}) {
                    if (failure != null) {
                        assertThat(failure).isInstanceOf(SQLException.class).isNotInstanceOf(StaleTokenException.class);
                        assertThat(((SQLException) failure).getSQLState()).isEqualTo("40001");
                    }
                }
                assertThat(failureA == null || failureB == null).as("one of them passes: %s, %s", failureA, failureB).isTrue();
                second.commit();
                third.commit();
                long expected = failureB == null ? 6 : 5;
                assertThat(Db.recorded(db, fence.table(), "order-42")).hasValue(expected);
            }
        }

        private long tokenSeenBy(Connection c, String resource) throws SQLException {
            try (PreparedStatement s = c.prepareStatement("SELECT token FROM " + fence.table() + " WHERE resource = ?")) {
                s.setString(1, resource);
                try (ResultSet row = s.executeQuery()) {
                    assertThat(row.next()).isTrue();
                    return row.getLong(1);
                }
            }
        }
    }

    /** Every concurrent check, on one database. */
    abstract static class Checks {

        final TestDatabase db;
        FencedWrites fence;
        private ExecutorService pool;

        Checks(TestDatabase db) {
            this.db = db;
        }

        @BeforeEach
        void freshTable() throws SQLException {
            fence = db.fence("concurrent_fence_" + TABLES.incrementAndGet());
            try (Connection c = Db.autoCommit(db)) {
                fence.createTableIfMissing(c);
            }
            pool = Executors.newCachedThreadPool();
        }

        @AfterEach
        void stopThreads() throws InterruptedException {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }

        /** @return true once a session of the server waits for a lock (the check started on another thread) */
        boolean someoneWaitsForALock() throws SQLException {
            return lockWaits() > 0;
        }

        /** @return how many sessions (PostgreSQL) or transactions (MariaDB) of the server wait for a lock */
        long lockWaits() throws SQLException {
            try (Connection c = Db.autoCommit(db); Statement s = c.createStatement();
                 ResultSet row = s.executeQuery(db.kind().lockWaitsQuery)) {
                row.next();
                return row.getLong(1);
            }
        }

        /** Starts a check of {@code token} on a connection of its own; its future fails with what the check threw. */
        CompletableFuture<Void> checkOnAnotherConnection(Connection c, String resource, long token) {
            return CompletableFuture.runAsync(() -> {
                try {
                    fence.check(c, resource, token);
                } catch (SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }, pool);
        }

        static Throwable failureOf(CompletableFuture<Void> check) throws InterruptedException {
            try {
                check.get(30, TimeUnit.SECONDS);
                return null;
            } catch (ExecutionException e) {
                return e.getCause();
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("the waiting check did not finish within 30 s", e);
            }
        }

        @Test
        void aCheckWaitsForTheTransactionHoldingTheResourceAndDecidesOnWhatItCommitted() throws Exception {
            Db.execute(db, "INSERT INTO " + fence.table() + " VALUES ('order-42', 1)");
            try (Connection first = Db.transaction(db); Connection second = Db.transaction(db)) {
                fence.check(first, "order-42", 10);
                CompletableFuture<Void> waiting = checkOnAnotherConnection(second, "order-42", 5);
                await().atMost(Duration.ofSeconds(30)).until(this::someoneWaitsForALock);
                assertThat(waiting).as("blocked on the row while the first transaction is open").isNotDone();
                first.commit();
                Throwable failure = failureOf(waiting);
                assertThat(failure).isInstanceOf(StaleTokenException.class);
                assertThat(((StaleTokenException) failure).currentToken())
                        .as("the token the first transaction committed, though the second's snapshot predates it").isEqualTo(10);
                second.rollback();
            }
            assertThat(Db.recorded(db, fence.table(), "order-42")).hasValue(10);
        }

        @Test
        void aCheckWaitingOnAFirstInsertDecidesOnWhatItCommitted() throws Exception {
            try (Connection first = Db.transaction(db); Connection second = Db.transaction(db)) {
                fence.check(first, "order-42", 10); // inserts the row: no row to lock yet, the unique index makes the second wait
                CompletableFuture<Void> waiting = checkOnAnotherConnection(second, "order-42", 5);
                await().atMost(Duration.ofSeconds(30)).until(this::someoneWaitsForALock);
                assertThat(waiting).isNotDone();
                first.commit();
                Throwable failure = failureOf(waiting);
                assertThat(failure).isInstanceOf(StaleTokenException.class);
                assertThat(((StaleTokenException) failure).currentToken()).isEqualTo(10);
                second.rollback();
            }
        }

        @Test
        void aCheckWaitingOnATransactionThatRollsBackPasses() throws Exception {
            Db.execute(db, "INSERT INTO " + fence.table() + " VALUES ('order-42', 1)");
            try (Connection first = Db.transaction(db); Connection second = Db.transaction(db)) {
                fence.check(first, "order-42", 10);
                CompletableFuture<Void> waiting = checkOnAnotherConnection(second, "order-42", 5);
                await().atMost(Duration.ofSeconds(30)).until(this::someoneWaitsForALock);
                first.rollback();
                assertThat(failureOf(waiting)).as("10 was never committed, so 5 passes").isNull();
                second.commit();
            }
            assertThat(Db.recorded(db, fence.table(), "order-42")).hasValue(5);
        }

        /** One attempt's outcome, as its thread saw it. */
        private record Outcome(String resource, long token, boolean accepted, boolean committed, long currentToken) {
        }

        @Test
        void acceptedTokensNeverGoDownInCommitOrder() throws Exception {
            String history = fence.table() + "_history";
            // The protected data: each transaction that passes the fence appends (resource, token). The
            // fence's row lock is held from the check to the commit, so among transactions of one
            // resource the history's ids, taken in between, are in commit order.
            Db.execute(db, "CREATE TABLE " + history + " (id " + db.kind().generatedKey + ", resource text NOT NULL, token bigint NOT NULL)");
            List<String> resources = List.of("order-1", "order-2");
            int threads = 6;
            int attempts = 60;
            AtomicInteger deadlocks = new AtomicInteger();
            AtomicLong lockService = new AtomicLong(); // stands for the lock's token counter: every grant a higher one
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<Outcome>>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(pool.submit(() -> {
                    List<Outcome> outcomes = new ArrayList<>();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    try (Connection c = Db.transaction(db);
                         PreparedStatement append = c.prepareStatement("INSERT INTO " + history + " (resource, token) VALUES (?, ?)")) {
                        go.await();
                        long mine = -1;
                        for (int i = 0; i < attempts; i++) {
                            String resource = resources.get(random.nextInt(resources.size()));
                            int kind = random.nextInt(10);
                            long token = kind < 6 || mine < 0 ? lockService.incrementAndGet() // a fresh grant
                                    : kind < 8 ? mine                                          // the same holder again
                                    : Math.max(0, lockService.get() - 1 - random.nextInt(20)); // a holder that paused
                            mine = token;
                            try {
                                fence.check(c, resource, token);
                            } catch (StaleTokenException stale) {
                                c.rollback();
                                outcomes.add(new Outcome(resource, token, false, false, stale.currentToken()));
                                continue;
                            } catch (SQLException e) {
                                // MariaDB: checks racing to insert a resource's first row, the inserting one
                                // rolling back, may deadlock; the documented answer is to retry the
                                // transaction, which here is the next attempt. Any other error fails the test.
                                if (!"40001".equals(e.getSQLState())) {
                                    throw e;
                                }
                                c.rollback();
                                deadlocks.incrementAndGet();
                                continue;
                            }
                            append.setString(1, resource);
                            append.setLong(2, token);
                            append.executeUpdate();
                            boolean commit = random.nextInt(6) != 0;
                            if (commit) {
                                c.commit();
                            } else {
                                c.rollback();
                            }
                            outcomes.add(new Outcome(resource, token, true, commit, -1));
                        }
                    }
                    return outcomes;
                }));
            }
            go.countDown();
            List<Outcome> outcomes = new ArrayList<>();
            for (Future<List<Outcome>> worker : workers) {
                outcomes.addAll(worker.get(120, TimeUnit.SECONDS));
            }

            Map<String, List<Long>> committedInOrder = new HashMap<>();
            try (Connection c = Db.autoCommit(db); Statement s = c.createStatement();
                 ResultSet rows = s.executeQuery("SELECT resource, token FROM " + history + " ORDER BY id")) {
                while (rows.next()) {
                    committedInOrder.computeIfAbsent(rows.getString(1), r -> new ArrayList<>()).add(rows.getLong(2));
                }
            }
            if (db.kind() == TestDatabase.Kind.POSTGRESQL) {
            assertThat(deadlocks).as("PostgreSQL's first inserts make waiting checks wait, not deadlock").hasValue(0);
        }
        long committed = outcomes.stream().filter(Outcome::committed).count();
            long refused = outcomes.stream().filter(o -> !o.accepted()).count();
            assertThat(committed).as("enough transactions passed to mean something").isGreaterThan(threads * attempts / 4);
            assertThat(refused).as("stale tokens were refused").isGreaterThan(0);
            assertThat(committedInOrder.values().stream().mapToLong(List::size).sum())
                    .as("every committed transaction, and only those, left its row").isEqualTo(committed);
            for (String resource : resources) {
                List<Long> tokens = committedInOrder.getOrDefault(resource, List.of());
                assertThat(tokens).as("tokens committed for %s, in commit order", resource).isSorted();
                if (!tokens.isEmpty()) {
                    assertThat(Db.recorded(db, fence.table(), resource)).hasValue(tokens.get(tokens.size() - 1));
                }
            }
            for (Outcome o : outcomes) {
                if (!o.accepted()) {
                    assertThat(o.currentToken()).as("the token that beat %s on %s", o.token(), o.resource())
                            .isGreaterThan(o.token())
                            .isIn(committedInOrder.get(o.resource())); // a committed one, never a rolled-back one
                }
            }
        }
    }
}
