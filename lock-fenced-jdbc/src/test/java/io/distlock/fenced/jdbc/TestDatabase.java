package io.distlock.fenced.jdbc;

import io.distlock.tck.fixtures.MariaDbServer;
import io.distlock.tck.fixtures.PostgresServer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * A real server of one of the fence's databases, started by lock-tck-fixtures, with what the tests
 * must say differently for it: the fence's factory, SQL of their own, the SQLStates they expect.
 */
final class TestDatabase implements AutoCloseable {

    /** The databases the fence has a dialect for. */
    enum Kind {
        POSTGRESQL(FencedWrites::postgres, "42P01",
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
                "bigserial PRIMARY KEY"),
        MARIADB(FencedWrites::mariadb, "42S02",
                "SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'",
                "bigint AUTO_INCREMENT PRIMARY KEY");

        final Function<String, FencedWrites> fence;
        final String missingTableState;
        final String lockWaitsQuery;
        final String generatedKey;

        Kind(Function<String, FencedWrites> fence, String missingTableState, String lockWaitsQuery, String generatedKey) {
            this.fence = fence;
            this.missingTableState = missingTableState;
            this.lockWaitsQuery = lockWaitsQuery;
            this.generatedKey = generatedKey;
        }
    }

    private final Kind kind;
    private final AutoCloseable server;
    private final String jdbcUrl;
    private final String user;

    private TestDatabase(Kind kind, AutoCloseable server, String jdbcUrl, String user) {
        this.kind = kind;
        this.server = server;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
    }

    static TestDatabase postgres() {
        PostgresServer pg = PostgresServer.start();
        return new TestDatabase(Kind.POSTGRESQL, pg, pg.jdbcUrl(), pg.user());
    }

    static TestDatabase mariadb() {
        MariaDbServer db = MariaDbServer.start();
        return new TestDatabase(Kind.MARIADB, db, db.jdbcUrl(), db.user());
    }

    /** A PostgreSQL and a MariaDB, started side by side. */
    record Both(TestDatabase postgres, TestDatabase mariadb) implements AutoCloseable {
        static Both start() {
            CompletableFuture<TestDatabase> pg = CompletableFuture.supplyAsync(TestDatabase::postgres);
            CompletableFuture<TestDatabase> maria = CompletableFuture.supplyAsync(TestDatabase::mariadb);
            try {
                return new Both(join(pg), join(maria));
            } catch (RuntimeException | Error e) {
                // the other one may have started: stop it
                pg.thenAccept(TestDatabase::close).exceptionally(ignored -> null).join();
                maria.thenAccept(TestDatabase::close).exceptionally(ignored -> null).join();
                throw e;
            }
        }

        private static TestDatabase join(CompletableFuture<TestDatabase> start) {
            try {
                return start.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                postgres.close();
            } finally {
                mariadb.close();
            }
        }
    }

    Kind kind() {
        return kind;
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    String user() {
        return user;
    }

    /** @return this database's fence on {@code table} */
    FencedWrites fence(String table) {
        return kind.fence.apply(table);
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop " + server, e);
        }
    }

    @Override
    public String toString() {
        return kind.toString();
    }
}
