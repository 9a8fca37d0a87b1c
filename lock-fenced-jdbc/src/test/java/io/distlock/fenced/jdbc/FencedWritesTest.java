package io.distlock.fenced.jdbc;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.fixtures.RedisNodes;
import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The fence's single-writer behaviour and its refusals, on a real PostgreSQL and a real MariaDB
 * (started side by side, one of each for the class) through their real drivers: every check in
 * {@link Checks} runs on both.
 */
class FencedWritesTest {

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
        void theTableItCreates() {
            assertThat(fence.createTableStatement()).isEqualTo("CREATE TABLE IF NOT EXISTS " + fence.table()
                    + " (resource text PRIMARY KEY, token bigint NOT NULL CHECK (token >= 0))");
            assertThat(fence).hasToString("FencedWrites[postgres, " + fence.table() + "]");
        }
    }

    @Nested
    class OnMariaDB extends Checks {
        OnMariaDB() {
            super(servers.mariadb());
        }

        @Test
        void theTableItCreates() {
            assertThat(fence.createTableStatement()).isEqualTo("CREATE TABLE IF NOT EXISTS " + fence.table()
                    + " (resource varchar(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY,"
                    + " token bigint NOT NULL CHECK (token >= 0)) ENGINE=InnoDB");
            assertThat(fence).hasToString("FencedWrites[mariadb, " + fence.table() + "]");
        }

        @Test
        void resourcesAreToldApartAsJavaTellsTheirNamesApart() throws SQLException {
            // MariaDB's usual collations would make these one resource (case, accents, trailing spaces).
            List<String> names = List.of("order-42", "ORDER-42", "order-42 ", "ordér-42", "order-42\u00a0", "заказ-42", "order-\uD83D\uDCE6");
            for (int i = 0; i < names.size(); i++) {
                checkAndCommit(names.get(i), 100 - i);
            }
            for (int i = 0; i < names.size(); i++) {
                assertThat(recorded(names.get(i))).as(names.get(i)).hasValue(100 - i);
            }
            String longest = "é".repeat(LockClient.MAX_NAME_LENGTH);
            checkAndCommit(longest, 1);
            assertThat(recorded(longest)).hasValue(1);
        }

        @Test
        void aMissingTableIsReportedWithMariaDbsErrorCode() throws SQLException {
            FencedWrites missing = db.fence("no_such_fence_either");
            try (Connection c = Db.transaction(db)) {
                SQLException e = catchThrowableOfType(SQLException.class, () -> missing.check(c, "order-42", 1));
                assertThat(e.getErrorCode()).isEqualTo(1146);
                assertThat((Throwable) e).hasMessageContaining("roll the transaction back");
                c.rollback();
            }
        }
    }

    @Test
    void aFenceForOneDatabaseRefusesAConnectionToTheOther() throws SQLException {
        try (Connection toPostgres = Db.transaction(servers.postgres()); Connection toMariaDb = Db.transaction(servers.mariadb())) {
            assertThatThrownBy(() -> FencedWrites.mariadb("fence").check(toPostgres, "order-42", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("FencedWrites.mariadb needs a connection to MariaDB")
                    .hasMessageContaining("this one is to PostgreSQL");
            assertThatThrownBy(() -> FencedWrites.postgres("fence").check(toMariaDb, "order-42", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("FencedWrites.postgres needs a connection to PostgreSQL")
                    .hasMessageContaining("this one is to MariaDB");
            toPostgres.rollback();
            toMariaDb.rollback();
        }
    }

    /** Every check of the fence, on one database. */
    abstract static class Checks {

        final TestDatabase db;
        FencedWrites fence;

        Checks(TestDatabase db) {
            this.db = db;
        }

        /** A fresh fence table per test, so that tests see only their own tokens. */
        @BeforeEach
        void freshTable() throws SQLException {
            fence = db.fence("fence_" + TABLES.incrementAndGet());
            try (Connection c = Db.autoCommit(db)) {
                fence.createTableIfMissing(c);
            }
        }

        OptionalLong recorded(String resource) throws SQLException {
            return Db.recorded(db, fence.table(), resource);
        }

        /** Checks and commits, in a transaction of its own. */
        void checkAndCommit(String resource, long token) throws SQLException {
            try (Connection c = Db.transaction(db)) {
                fence.check(c, resource, token);
                c.commit();
            }
        }

        @Test
        void theFirstCheckRecordsTheToken() throws SQLException {
            assertThat(recorded("order-42")).isEmpty();
            checkAndCommit("order-42", 7);
            assertThat(recorded("order-42")).hasValue(7);
        }

        @Test
        void aHigherTokenPassesAndIsRecorded() throws SQLException {
            checkAndCommit("order-42", 7);
            checkAndCommit("order-42", 8);
            checkAndCommit("order-42", 1_000_000_000_000L);
            assertThat(recorded("order-42")).hasValue(1_000_000_000_000L);
        }

        @Test
        void theSameHolderMayWriteAgainWithItsOwnToken() throws SQLException {
            checkAndCommit("order-42", 7);
            checkAndCommit("order-42", 7);
            try (Connection c = Db.transaction(db)) {
                fence.check(c, "order-42", 7);
                fence.check(c, "order-42", 7); // twice in one transaction, too
                c.commit();
            }
            assertThat(recorded("order-42")).hasValue(7);
        }

        @Test
        void aLowerTokenIsRefusedNamingResourceTokenAndTheTokenThatBeatIt() throws SQLException {
            checkAndCommit("order-42", 34);
            try (Connection c = Db.transaction(db)) {
                StaleTokenException stale = catchThrowableOfType(StaleTokenException.class, () -> fence.check(c, "order-42", 33));
                assertThat((Throwable) stale).isNotNull();
                assertThat(stale.resource()).isEqualTo("order-42");
                assertThat(stale.token()).isEqualTo(33);
                assertThat(stale.currentToken()).isEqualTo(34);
                assertThat((Throwable) stale).hasMessageContaining("'order-42'").hasMessageContaining("token 33")
                        .hasMessageContaining("lower than 34").hasMessageContaining(fence.table())
                        .hasMessageContaining("roll back");
                c.rollback();
            }
            assertThat(recorded("order-42")).hasValue(34);
        }

        @Test
        void aRefusalLeavesTheTransactionOpenForTheCallerToRollBack() throws SQLException {
            checkAndCommit("order-42", 34);
            try (Connection c = Db.transaction(db)) {
                assertThatThrownBy(() -> fence.check(c, "order-42", 0)).isInstanceOf(StaleTokenException.class);
                // The database did not abort the transaction: the next statement runs.
                fence.check(c, "order-43", 1);
                c.rollback();
            }
            assertThat(recorded("order-42")).hasValue(34);
            assertThat(recorded("order-43")).isEmpty();
        }

        @Test
        void aRollbackUndoesTheCheck() throws SQLException {
            checkAndCommit("order-42", 5);
            try (Connection c = Db.transaction(db)) {
                fence.check(c, "order-42", 10);
                c.rollback();
            }
            assertThat(recorded("order-42")).hasValue(5);
            checkAndCommit("order-42", 6); // 10 was never recorded, so 6 still passes
            assertThat(recorded("order-42")).hasValue(6);

            try (Connection c = Db.transaction(db)) {
                fence.check(c, "order-99", 10); // a first check, rolled back: no row is left
                c.rollback();
            }
            assertThat(recorded("order-99")).isEmpty();
        }

        @Test
        void resourcesAreIndependent() throws SQLException {
            checkAndCommit("order-1", 100);
            checkAndCommit("order-2", 3);
            checkAndCommit("order-2", 4);
            assertThatThrownBy(() -> checkAndCommit("order-1", 99)).isInstanceOf(StaleTokenException.class);
            assertThat(recorded("order-1")).hasValue(100);
            assertThat(recorded("order-2")).hasValue(4);
        }

        @Test
        void aLeaseWithoutAFencingTokenIsRefusedNamingTheLockAndWhatToUseInstead() throws Exception {
            try (RedisNodes redis = RedisNodes.start(3);
                 LockClient client = Locks.connect(redis.directUri("redlock"));
                 Lease lease = client.lock("order-lock").acquire(Duration.ofSeconds(30));
                 Connection c = Db.transaction(db)) {
                assertThat(lease.fencingToken()).as("redlock:// has no fencing tokens").isEmpty();
                assertThatThrownBy(() -> fence.check(c, "order-42", lease))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("'order-lock'")
                        .hasMessageContaining("FENCING_TOKENS")
                        .hasMessageContaining("redlock://")
                        .hasMessageContaining("zookeeper://").hasMessageContaining("etcd://");
                c.commit();
            }
            assertThat(Db.count(db, fence.table())).as("nothing was recorded").isZero();
        }

        @Test
        void aLeaseWithBestEffortTokensIsRefusedButItsTokenMayBePassedKnowingly() throws Exception {
            try (RedisServer redis = RedisServer.start();
                 LockClient client = Locks.connect(redis.uri());
                 Lease lease = client.lock("order-lock").acquire(Duration.ofSeconds(30));
                 Connection c = Db.transaction(db)) {
                assertThat(lease.fencingToken()).as("redis:// has best-effort tokens").isPresent();
                assertThatThrownBy(() -> fence.check(c, "order-43", lease))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("'order-lock'").hasMessageContaining("redis://")
                        .hasMessageContaining("EFFICIENCY").hasMessageContaining("zookeeper://");
                fence.check(c, "order-43", lease.fencingToken().getAsLong());
                c.commit();
            }
            assertThat(recorded("order-43")).hasValue(1);
        }

        @Test
        void badInputIsRefusedBeforeAnythingIsRecorded() throws SQLException {
            try (Connection c = Db.transaction(db)) {
                assertThatThrownBy(() -> fence.check(c, null, 1)).isInstanceOf(NullPointerException.class)
                        .hasMessageContaining("resource");
                assertThatThrownBy(() -> fence.check(c, " ", 1)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("blank");
                assertThatThrownBy(() -> fence.check(c, "a\nb", 1)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("control character");
                assertThatThrownBy(() -> fence.check(c, "x".repeat(LockClient.MAX_NAME_LENGTH + 1), 1))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most " + LockClient.MAX_NAME_LENGTH);
                assertThatThrownBy(() -> fence.check(c, "order-42", -1)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("-1").hasMessageContaining("negative");
                assertThatThrownBy(() -> fence.check(null, "order-42", 1)).isInstanceOf(NullPointerException.class)
                        .hasMessageContaining("connection");
                assertThatThrownBy(() -> fence.check(c, "order-42", (Lease) null)).isInstanceOf(NullPointerException.class)
                        .hasMessageContaining("lease");
                c.commit();
            }
            assertThat(Db.count(db, fence.table())).isZero();
        }

        @Test
        void aConnectionInAutoCommitModeIsRefused() throws SQLException {
            try (Connection c = Db.autoCommit(db)) {
                assertThatThrownBy(() -> fence.check(c, "order-42", 1)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("auto-commit").hasMessageContaining("setAutoCommit(false)");
            }
            assertThat(recorded("order-42")).isEmpty();
        }

        @Test
        void tableNamesMustBeSqlIdentifiers() {
            assertThat(db.fence("distlock_fence").table()).isEqualTo("distlock_fence");
            assertThat(db.fence("app.Fence_2").table()).isEqualTo("app.Fence_2");
            for (String bad : new String[] {"", "2fence", "fence; DROP TABLE x", "\"fence\"", "a.b.c", "fence-1", "x".repeat(64)}) {
                assertThatThrownBy(() -> db.fence(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("SQL identifier");
            }
            assertThatThrownBy(() -> db.fence(null)).isInstanceOf(NullPointerException.class);
        }

        @Test
        void aMissingTableIsAnErrorThatGivesTheCreateTable() throws SQLException {
            FencedWrites missing = db.fence("no_such_fence");
            try (Connection c = Db.transaction(db)) {
                SQLException e = catchThrowableOfType(SQLException.class, () -> missing.check(c, "order-42", 1));
                assertThat((Throwable) e).isNotInstanceOf(StaleTokenException.class);
                assertThat(e.getSQLState()).isEqualTo(db.kind().missingTableState);
                assertThat((Throwable) e).hasMessageContaining("no_such_fence does not exist")
                        .hasMessageContaining(missing.createTableStatement())
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS no_such_fence (resource ")
                        .hasMessageContaining("createTableIfMissing");
                c.rollback();
            }
            // Not created behind the caller's back:
            try (Connection c = Db.transaction(db)) {
                assertThatThrownBy(() -> missing.check(c, "order-42", 1)).isInstanceOf(SQLException.class)
                        .hasMessageContaining("does not exist");
                c.rollback();
            }
            // The statement it names works, and twice:
            Db.execute(db, missing.createTableStatement());
            try (Connection c = Db.autoCommit(db)) {
                missing.createTableIfMissing(c);
            }
            checkAndCommitOn(missing, "order-42", 1);
            assertThat(Db.recorded(db, "no_such_fence", "order-42")).hasValue(1);
        }

        @Test
        void aMissingSchemaIsReportedLikeAMissingTable() throws SQLException {
            FencedWrites missing = db.fence("no_such_schema.fence");
            try (Connection c = Db.transaction(db)) {
                assertThatThrownBy(() -> missing.check(c, "order-42", 1)).isInstanceOf(SQLException.class)
                        .hasMessageContaining("no_such_schema.fence does not exist")
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS no_such_schema.fence");
                c.rollback();
            }
        }

        @Test
        void aTableOfAnotherShapeIsReportedWithTheExpectedOne() throws SQLException {
            Db.execute(db, "CREATE TABLE wrong_fence (name varchar(100) PRIMARY KEY, token bigint)");
            FencedWrites wrong = db.fence("wrong_fence");
            try (Connection c = Db.transaction(db)) {
                assertThatThrownBy(() -> wrong.check(c, "order-42", 1)).isInstanceOf(SQLException.class)
                        .hasMessageContaining("lacks the columns").hasMessageContaining(wrong.createTableStatement());
                c.rollback();
            }
        }

        private void checkAndCommitOn(FencedWrites on, String resource, long token) throws SQLException {
            try (Connection c = Db.transaction(db)) {
                on.check(c, resource, token);
                c.commit();
            }
        }
    }
}
