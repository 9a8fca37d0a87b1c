package io.distlock.fenced.jdbc;

import io.distlock.Guarantee;
import io.distlock.Lease;
import io.distlock.LockClient;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * The fenced write, in the database: a check the caller makes <em>inside its own transaction</em>,
 * before (or after) its writes to a resource, which records the highest fencing token seen for the
 * resource and refuses a lower one. A holder that lost its lock to a pause — the seed's scenario:
 * A's lease runs out during a GC pause, B takes the lock and writes, A wakes up and writes — carries
 * a lower token than the holder who came after it, and its transaction is refused.
 *
 * <pre>{@code
 * FencedWrites fence = FencedWrites.postgres("distlock_fence");
 * try (Lease lease = client.lock("order-42").acquire(Duration.ofSeconds(30))) {
 *     connection.setAutoCommit(false);
 *     fence.check(connection, "order-42", lease);     // StaleTokenException if a later holder wrote
 *     // ... the transaction's own writes to order 42 ...
 *     connection.commit();                            // on any exception: connection.rollback()
 * }
 * }</pre>
 *
 * <p><b>What it guarantees.</b> Among transactions that check the same resource and commit, the
 * tokens are non-decreasing in commit order: once a transaction that checked token {@code t}
 * committed, no transaction checking a token below {@code t} can commit a check. The same token
 * passes again (one holder may write in several transactions). The check is one SQL statement,
 * an upsert on the resource's row, so it takes the row's lock: a concurrent check of the same
 * resource waits until this transaction commits or rolls back, and a rollback undoes the check.
 * This holds only if the tokens come from a backend with
 * {@link io.distlock.Feature#FENCING_TOKENS} ({@code zookeeper://}, {@code etcd://}), whose tokens
 * strictly increase with every grant of a lock, and only for writes made in a transaction that
 * checked, on the same database.
 *
 * <p><b>The databases:</b> PostgreSQL ({@link #postgres(String)}) and MariaDB
 * ({@link #mariadb(String)}); the connection's product is checked.
 *
 * <p><b>The table</b> holds one row per resource: {@code resource} (the primary key) and {@code token}.
 * It is not created behind the caller's back: a missing table is an {@link SQLException} whose
 * message gives the exact {@code CREATE TABLE} ({@link #createTableStatement()}); create it with
 * your migrations, or once at start-up with {@link #createTableIfMissing(Connection)}.
 *
 * <p>Immutable and thread-safe; one instance per table serves every connection.
 */
public final class FencedWrites {

    /** The table name the README uses; any valid name may be given instead. */
    public static final String DEFAULT_TABLE = "distlock_fence";

    // An unquoted SQL identifier, optionally schema-qualified: the name is put into SQL text, so
    // it is checked, never quoted or escaped. 63 is PostgreSQL's identifier length
    // (MariaDB's is 64).
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final Dialect dialect;
    private final String table;
    private final String createTable;
    private final String upsert;

    private FencedWrites(Dialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
        this.createTable = dialect.createTable(table);
        this.upsert = dialect.upsert(table);
    }

    /**
     * The fence for PostgreSQL (9.5 or later: {@code INSERT ... ON CONFLICT}).
     *
     * @param table the fence table: an unquoted SQL identifier ({@code [A-Za-z_][A-Za-z0-9_]*}, at most
     *              63 characters), optionally schema-qualified ({@code schema.table}); PostgreSQL
     *              folds it to lower case
     * @return the fence on that table (nothing is checked in the database yet)
     * @throws NullPointerException     if {@code table} is null
     * @throws IllegalArgumentException if {@code table} is not such an identifier
     */
    public static FencedWrites postgres(String table) {
        return new FencedWrites(Dialect.POSTGRES, checkedTableName(table));
    }

    /**
     * The fence for MariaDB (10.5 or later: {@code INSERT ... ON DUPLICATE KEY UPDATE ... RETURNING};
     * MySQL has no {@code RETURNING} and is not supported). The table is InnoDB's, whose row locks
     * the check relies on.
     *
     * @param table the fence table: an unquoted SQL identifier ({@code [A-Za-z_][A-Za-z0-9_]*}, at most
     *              63 characters), optionally qualified by its database ({@code database.table});
     *              MariaDB on Linux keeps its case
     * @return the fence on that table (nothing is checked in the database yet)
     * @throws NullPointerException     if {@code table} is null
     * @throws IllegalArgumentException if {@code table} is not such an identifier
     */
    public static FencedWrites mariadb(String table) {
        return new FencedWrites(Dialect.MARIADB, checkedTableName(table));
    }

    private static String checkedTableName(String table) {
        Objects.requireNonNull(table, "table");
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("fence table name '" + table + "' is not an unquoted SQL identifier "
                    + "(letters, digits and _, not starting with a digit, at most 63 characters; optionally schema.table)");
        }
        return table;
    }

    /** @return the fence table's name, as given */
    public String table() {
        return table;
    }

    /**
     * @return the statement that creates the fence table if it does not exist; for PostgreSQL
     *         {@code CREATE TABLE IF NOT EXISTS <table> (resource text PRIMARY KEY, token bigint NOT NULL CHECK (token >= 0))},
     *         for MariaDB {@code CREATE TABLE IF NOT EXISTS <table> (resource varchar(256) CHARACTER SET utf8mb4
     *         COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, token bigint NOT NULL CHECK (token >= 0)) ENGINE=InnoDB}
     */
    public String createTableStatement() {
        return createTable;
    }

    /**
     * Runs {@link #createTableStatement()} on the connection (in its transaction, if one is open).
     * For start-up or migrations, not for every write; PostgreSQL's {@code IF NOT EXISTS} does not
     * make two concurrent creations of the same table both succeed. On MariaDB, a {@code CREATE TABLE}
     * first commits the connection's open transaction (an implicit commit).
     *
     * @param connection an open connection allowed to create the table
     * @throws SQLException if the database refuses (no privilege, say)
     */
    public void createTableIfMissing(Connection connection) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        try (Statement statement = connection.createStatement()) {
            statement.execute(createTable);
        }
    }

    /**
     * {@link #check(Connection, String, long)} with the lease's fencing token. The lease's validity
     * is not consulted: a pause can outlast it right after any look at it, and the token is what the
     * database can check.
     *
     * @param connection the transaction's connection, auto-commit off
     * @param resource   what the transaction writes to (often the lock's name)
     * @param lease      the lease the writer holds, from a backend with fencing tokens
     * @throws StaleTokenException      if a higher token was recorded for the resource: roll back
     * @throws IllegalArgumentException if the lease has no fencing token (its backend lacks
     *                                  {@link io.distlock.Feature#FENCING_TOKENS}), if its backend is not
     *                                  {@link Guarantee#CORRECTNESS} (best-effort tokens: use
     *                                  {@link #check(Connection, String, long)} knowingly), or as
     *                                  {@link #check(Connection, String, long)}
     * @throws NullPointerException     if an argument is null
     * @throws IllegalStateException    as {@link #check(Connection, String, long)}
     * @throws SQLException             as {@link #check(Connection, String, long)}
     */
    public void check(Connection connection, String resource, Lease lease) throws SQLException {
        Objects.requireNonNull(lease, "lease");
        OptionalLong token = lease.fencingToken();
        if (token.isEmpty()) {
            throw new IllegalArgumentException("the lease on lock '" + lease.lockName() + "' has no fencing token: its "
                    + "backend, " + lease.backend().scheme() + "://, does not declare Feature.FENCING_TOKENS, so no database "
                    + "can tell its holder from a later one. Take the lock from a CORRECTNESS backend, whose tokens the "
                    + "fence can rely on: zookeeper:// or etcd://");
        }
        if (lease.backend().guarantee() != Guarantee.CORRECTNESS) {
            // Its tokens are best effort: the counter starts over when the server loses it (a restart
            // without persistence, a failover), and then two holders may carry the same token, which
            // an equal-passes fence lets both write with. Refused here rather than trusted silently.
            throw new IllegalArgumentException("the lease on lock '" + lease.lockName() + "' comes from "
                    + lease.backend().scheme() + "://, an EFFICIENCY backend whose fencing tokens are best effort (its counter "
                    + "starts over when the server loses it, and two holders may then carry the same token). Take the lock "
                    + "from a CORRECTNESS backend, zookeeper:// or etcd://; or, knowing that, pass lease.fencingToken() "
                    + "to check(connection, resource, token)");
        }
        check(connection, resource, token.getAsLong());
    }

    /**
     * Records {@code token} as the highest seen for {@code resource}, or refuses it if a higher one
     * was recorded; an equal token passes. One SQL statement, in the connection's current
     * transaction: it holds the resource's row lock until that transaction ends (a concurrent check
     * of the resource waits for it), a rollback undoes it, and only a commit makes it count.
     *
     * <p>After a {@link StaleTokenException} the transaction is still open: roll it back. After
     * an {@link SQLException} from the database, roll back too (PostgreSQL has aborted the
     * transaction; MariaDB undid the statement, or the whole transaction for a deadlock).
     *
     * @param connection the transaction's connection to this fence's database, auto-commit off
     * @param resource   what the transaction writes to: not blank, at most
     *                   {@value LockClient#MAX_NAME_LENGTH} characters, no control characters
     * @param token      the writer's fencing token, {@code >= 0}
     * @throws StaleTokenException      if a higher token was recorded for the resource (it names both)
     * @throws IllegalArgumentException if {@code resource} is blank, too long or has a control
     *                                  character, if {@code token} is negative, or if the connection
     *                                  is not to this fence's database (PostgreSQL, MariaDB)
     * @throws IllegalStateException    if the connection is in auto-commit mode: the check would
     *                                  commit alone, and the writes after it would not be fenced
     * @throws NullPointerException     if {@code connection} or {@code resource} is null
     * @throws SQLException             if the fence table (or its schema, or a column) is missing —
     *                                  the message gives the {@code CREATE TABLE} —, or the
     *                                  database fails otherwise (SQLState 40001, retry the
     *                                  transaction: on PostgreSQL a serialization failure under
     *                                  REPEATABLE READ or SERIALIZABLE; on MariaDB a deadlock, as
     *                                  when checks race to insert a resource's first row)
     */
    public void check(Connection connection, String resource, long token) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        validateResource(resource);
        if (token < 0) {
            throw new IllegalArgumentException("fencing token " + token + " for resource '" + resource
                    + "' is negative; fencing tokens are >= 0");
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("the connection is in auto-commit mode: the fence check for resource '"
                    + resource + "' would commit on its own and the writes after it would not be fenced; call "
                    + "connection.setAutoCommit(false) and check inside the transaction that writes");
        }
        DatabaseMetaData metaData = connection.getMetaData();
        if (!dialect.accepts(metaData)) {
            throw new IllegalArgumentException("FencedWrites." + dialect.factory + " needs a connection to " + dialect.versions
                    + "; this one is to " + metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion());
        }
        long recorded;
        try (PreparedStatement statement = connection.prepareStatement(upsert)) {
            statement.setString(1, resource);
            statement.setLong(2, token);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("the fence upsert on " + table + " returned no row for resource '" + resource + "'");
                }
                recorded = row.getLong(1);
            }
        } catch (SQLException e) {
            throw explained(e);
        }
        if (recorded > token) {
            throw new StaleTokenException(table, resource, token, recorded);
        }
    }

    private SQLException explained(SQLException e) {
        if (dialect.isMissingTable(e)) {
            return new SQLException("the fence table " + table + " does not exist (" + dialect.afterAnError() + "); "
                    + "create it once with: " + createTable + "; or call FencedWrites.createTableIfMissing(connection)",
                    e.getSQLState(), e.getErrorCode(), e);
        }
        if (dialect.isMissingColumn(e)) {
            return new SQLException("the fence table " + table + " lacks the columns the fence writes ("
                    + dialect.afterAnError() + "); it must be: " + createTable, e.getSQLState(), e.getErrorCode(), e);
        }
        return e;
    }

    private static void validateResource(String resource) {
        Objects.requireNonNull(resource, "resource");
        if (resource.isBlank()) {
            throw new IllegalArgumentException("resource is blank; name what the transaction writes to (often the lock's name)");
        }
        if (resource.length() > LockClient.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("resource is " + resource.length() + " characters long; at most "
                    + LockClient.MAX_NAME_LENGTH + " are accepted");
        }
        for (int i = 0; i < resource.length(); i++) {
            if (Character.isISOControl(resource.charAt(i))) {
                throw new IllegalArgumentException("resource has a control character at index " + i);
            }
        }
    }

    @Override
    public String toString() {
        return "FencedWrites[" + dialect.factory + ", " + table + "]";
    }
}
