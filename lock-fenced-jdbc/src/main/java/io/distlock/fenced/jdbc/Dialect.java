package io.distlock.fenced.jdbc;

import io.distlock.LockClient;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * What differs between the databases: the SQL, how the connection names its product, and which
 * errors mean a missing table or column. The guarantee and the checks around it are the same.
 */
enum Dialect {
    POSTGRES("postgres", "PostgreSQL", "PostgreSQL") {
        @Override
        String createTable(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table
                    + " (resource text PRIMARY KEY, token bigint NOT NULL CHECK (token >= 0))";
        }

        // One statement reads the recorded token and writes the new one on the row it has locked.
        // Why no update is lost: INSERT ... ON CONFLICT DO UPDATE locks the conflicting row before
        // it computes GREATEST. A concurrent check of the same resource (even one racing to insert
        // the first row: the unique index makes it wait for the other insert's transaction) blocks
        // on that lock until this transaction ends, then computes GREATEST from the row version
        // this transaction committed (READ COMMITTED takes the latest committed version here, not
        // the statement's snapshot). So no check ever compares against a token that a committed
        // check has already raised; under REPEATABLE READ or SERIALIZABLE the waiting check fails
        // with a serialization error (SQLState 40001) instead, and the caller retries.
        // Why GREATEST, not "DO UPDATE ... WHERE fence.token <= EXCLUDED.token": a refused row
        // returns nothing then, and reading the winning token for the error in the same statement
        // (a CTE's SELECT) would read the statement's snapshot, which may predate the very row
        // version the upsert waited for. RETURNING the row as updated gives it exactly; a refusal
        // leaves the value unchanged.
        @Override
        String upsert(String table) {
            return "INSERT INTO " + table + " AS fence (resource, token) VALUES (?, ?)"
                    + " ON CONFLICT (resource) DO UPDATE SET token = GREATEST(fence.token, EXCLUDED.token)"
                    + " RETURNING fence.token";
        }

        @Override
        boolean isMissingTable(SQLException e) {
            // 42P01 undefined_table, 3F000 invalid_schema_name
            return "42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState());
        }

        @Override
        boolean isMissingColumn(SQLException e) {
            return "42703".equals(e.getSQLState()); // undefined_column
        }

        @Override
        String afterAnError() {
            return "the transaction is aborted: roll back";
        }
    },

    MARIADB("mariadb", "MariaDB", "MariaDB 10.5 or later") {
        // varchar(256), LockClient.MAX_NAME_LENGTH: a key needs a length. utf8mb4 for any name
        // whatever the server's default character set; utf8mb4_nopad_bin so that resources are
        // told apart exactly as Java tells their names apart (the usual collations ignore case,
        // accents or trailing spaces, and would make two resources one).
        @Override
        String createTable(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " (resource varchar(" + LockClient.MAX_NAME_LENGTH
                    + ") CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY,"
                    + " token bigint NOT NULL CHECK (token >= 0)) ENGINE=InnoDB";
        }

        // One statement, as for PostgreSQL. Why no update is lost: on a duplicate key InnoDB locks
        // the existing primary-key record exclusively before it evaluates the UPDATE clause, and
        // reads it as a locking read does: its latest committed version, at every isolation level
        // (REPEATABLE READ, the default, included), never the transaction's snapshot. So GREATEST
        // is computed from what the last check of the resource committed, and the lock is held
        // until this transaction ends. A concurrent first insert of the resource waits on the
        // inserted record's lock the same way; if that transaction rolls back while two or more
        // checks wait, InnoDB may end one of them as a deadlock victim (SQLState 40001, error
        // 1213): the caller retries its transaction. RETURNING (MariaDB 10.5; MySQL has none)
        // gives the row as inserted or as updated: the winning token, from the same statement.
        @Override
        String upsert(String table) {
            return "INSERT INTO " + table + " (resource, token) VALUES (?, ?)"
                    + " ON DUPLICATE KEY UPDATE token = GREATEST(token, VALUES(token))"
                    + " RETURNING token";
        }

        @Override
        boolean isMissingTable(SQLException e) {
            return e.getErrorCode() == 1146; // ER_NO_SUCH_TABLE (42S02), a missing database too
        }

        @Override
        boolean isMissingColumn(SQLException e) {
            return e.getErrorCode() == 1054; // ER_BAD_FIELD_ERROR (42S22)
        }

        @Override
        String afterAnError() {
            return "roll the transaction back";
        }

        // MariaDB's driver names the product MariaDB; MySQL's driver says MySQL for either server,
        // but a MariaDB server's version string says MariaDB whichever driver asks.
        @Override
        boolean accepts(DatabaseMetaData metaData) throws SQLException {
            return super.accepts(metaData) || String.valueOf(metaData.getDatabaseProductVersion()).contains("MariaDB");
        }
    };

    /** The factory method's name, for messages. */
    final String factory;
    /** The product name its connections report. */
    final String product;
    /** The versions it needs, for messages. */
    final String versions;

    Dialect(String factory, String product, String versions) {
        this.factory = factory;
        this.product = product;
        this.versions = versions;
    }

    abstract String createTable(String table);

    abstract String upsert(String table);

    abstract boolean isMissingTable(SQLException e);

    abstract boolean isMissingColumn(SQLException e);

    /** @return what the caller does after the database reported an error */
    abstract String afterAnError();

    boolean accepts(DatabaseMetaData metaData) throws SQLException {
        return product.equals(metaData.getDatabaseProductName());
    }
}
