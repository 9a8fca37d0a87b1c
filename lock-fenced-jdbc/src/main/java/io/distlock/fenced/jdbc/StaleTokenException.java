package io.distlock.fenced.jdbc;

import java.sql.SQLException;

/**
 * A fenced write was refused: the fence already holds a higher fencing token for the resource, so
 * a later holder of the lock has written (and committed) since this token was granted. The holder
 * of the lower token lost the lock — typically a pause (GC, a stopped VM) outlasted its lease — and
 * must not write: roll back the transaction.
 *
 * <p>It is an {@link SQLException} because it is thrown where JDBC code already handles those, by
 * rolling back; the database itself reported no error, so the transaction is still open and
 * nothing rolls it back but the caller.
 */
public final class StaleTokenException extends SQLException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The resource the refused write was for (serialized with the exception, as the two below). */
    private final String resource;
    /** The refused token. */
    private final long token;
    /** The higher token the fence held for the resource. */
    private final long currentToken;

    /**
     * @param table        the fence table, for the message
     * @param resource     the resource the write was for
     * @param token        the rejected token
     * @param currentToken the higher token the fence holds for the resource
     */
    StaleTokenException(String table, String resource, long token, long currentToken) {
        super("stale fencing token for resource '" + resource + "': token " + token + " is lower than " + currentToken
                + ", which the fence already accepted from a later holder of the lock (fence table " + table
                + "); this holder lost the lock, roll back its transaction");
        this.resource = resource;
        this.token = token;
        this.currentToken = currentToken;
    }

    /** @return the resource the refused write was for */
    public String resource() {
        return resource;
    }

    /** @return the refused fencing token */
    public long token() {
        return token;
    }

    /** @return the higher fencing token the fence holds for the resource: the one that beat {@link #token()} */
    public long currentToken() {
        return currentToken;
    }
}
