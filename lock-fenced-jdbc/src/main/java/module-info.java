/**
 * The fenced write in the database: {@link io.distlock.fenced.jdbc.FencedWrites} records, inside
 * the caller's own transaction, the highest fencing token seen per resource and rejects a lower one
 * ({@link io.distlock.fenced.jdbc.StaleTokenException}). Needs nothing but the lock API and
 * {@code java.sql}; the JDBC driver is the application's.
 */
module io.distlock.fenced.jdbc {
    // Both appear in the exported API: a Lease is checked, a Connection is written through.
    requires transitive io.distlock;
    requires transitive java.sql;

    exports io.distlock.fenced.jdbc;
}
