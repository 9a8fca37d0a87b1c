package io.distlock.fenced.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/** Small JDBC helpers for the tests: connections to a fixture's server, and reading the fence table. */
final class Db {

    private Db() {
    }

    /** @return a new connection with auto-commit off: a transaction is open */
    static Connection transaction(TestDatabase db) throws SQLException {
        Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), "");
        c.setAutoCommit(false);
        return c;
    }

    /** @return a new connection in auto-commit mode */
    static Connection autoCommit(TestDatabase db) throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(), db.user(), "");
    }

    static void execute(TestDatabase db, String sql) throws SQLException {
        try (Connection c = autoCommit(db); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** @return the committed token the fence table holds for the resource, read from a connection of its own */
    static OptionalLong recorded(TestDatabase db, String table, String resource) throws SQLException {
        try (Connection c = autoCommit(db);
             PreparedStatement s = c.prepareStatement("SELECT token FROM " + table + " WHERE resource = ?")) {
            s.setString(1, resource);
            try (ResultSet row = s.executeQuery()) {
                return row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    static long count(TestDatabase db, String table) throws SQLException {
        try (Connection c = autoCommit(db); Statement s = c.createStatement();
             ResultSet row = s.executeQuery("SELECT count(*) FROM " + table)) {
            row.next();
            return row.getLong(1);
        }
    }
}
