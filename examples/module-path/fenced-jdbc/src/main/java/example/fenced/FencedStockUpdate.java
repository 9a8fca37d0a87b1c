package example.fenced;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.fenced.jdbc.FencedWrites;
import io.distlock.fenced.jdbc.StaleTokenException;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

/**
 * lock-fenced-jdbc's README on the module path: the fence checked inside the transaction of a write
 * made under a lock. Run as
 * {@code java --module-path ... -m example.fenced/example.fenced.FencedStockUpdate <uri> <jdbc url>};
 * makes the README's fenced write, then shows a lower token refused, and exits 0.
 */
public final class FencedStockUpdate {

    private FencedStockUpdate() {
    }

    public static void main(String[] args) throws SQLException, InterruptedException {
        try (LockClient client = Locks.connect(args[0]);
             Connection connection = DriverManager.getConnection(args[1])) {
            FencedWrites fence = FencedWrites.postgres("distlock_fence");        // once; thread-safe (or .mariadb)
            fence.createTableIfMissing(connection);
            long token;
            try (Lease lease = client.lock("order-42").acquire(Duration.ofSeconds(30))) {
                connection.setAutoCommit(false);
                fence.check(connection, "order-42", lease);   // StaleTokenException if a later holder wrote
                connection.commit();
                token = lease.fencingToken().getAsLong();
            }
            System.out.println("fenced-jdbc: the write with token " + token + " committed");
            try {
                fence.check(connection, "order-42", token - 1);
                System.out.println("fenced-jdbc: token " + (token - 1) + " was ACCEPTED");
            } catch (StaleTokenException refused) {
                System.out.println("fenced-jdbc: token " + refused.token() + " refused, the table has " + refused.currentToken());
            } finally {
                connection.rollback();
            }
        }
    }
}
