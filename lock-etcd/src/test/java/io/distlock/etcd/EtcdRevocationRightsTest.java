package io.distlock.etcd;

import io.distlock.AccessDeniedException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.EtcdCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who may inspect and who may revoke, with real etcd users and roles, set up as the README's
 * "Inspection and revocation" tells an operator: lockers may read and write the request keys and
 * the markers and read the records; the operator may read and write the request keys (of locks,
 * read-write locks and semaphores) and the records; the inspector may read the request keys. The inspector's, a locker's and another user's
 * revokes are refused and leave the holder valid; the operator's revokes. The lockers' role also
 * covers read-write locks and semaphores (their own directories), which the inspector may not take
 * but lists the holds of, and whose holds only the operator revokes.
 */
class EtcdRevocationRightsTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String PREFIX = "/rbac";
    private static final String ROOT_PASSWORD = "pw-Root-rbac9";
    private static final String PASSWORD = "pw-User-rbac9";

    private static EtcdCluster etcd;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.single();
        etcd.addUser("locker", PASSWORD);
        etcd.grant("locker", "READWRITE", PREFIX + "/locks/");
        etcd.grant("locker", "READWRITE", PREFIX + "/abandoned/");
        etcd.grant("locker", "READWRITE", PREFIX + "/rwlocks/");
        etcd.grant("locker", "READWRITE", PREFIX + "/semaphores/");
        etcd.grant("locker", "READ", PREFIX + "/revoked/");
        etcd.addUser("ops", PASSWORD);
        etcd.grant("ops", "READWRITE", PREFIX + "/locks/");
        etcd.grant("ops", "READWRITE", PREFIX + "/revoked/");
        etcd.grant("ops", "READWRITE", PREFIX + "/rwlocks/");
        etcd.grant("ops", "READWRITE", PREFIX + "/semaphores/");
        etcd.addUser("inspector", PASSWORD);
        etcd.grant("inspector", "READ", PREFIX + "/locks/");
        etcd.grant("inspector", "READ", PREFIX + "/rwlocks/");
        etcd.grant("inspector", "READ", PREFIX + "/semaphores/");
        etcd.addUser("mallory", PASSWORD, "/elsewhere/");
        etcd.enableAuth(ROOT_PASSWORD);
    }

    @AfterAll
    static void stop() {
        etcd.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private LockClient as(String user) {
        LockClient client = Locks.connect(URI.create(etcd.uri(PREFIX)), LockOptions.builder()
                .credentials(Credentials.of(user, PASSWORD.toCharArray())).owner(user + "-client")
                // bcrypt checks each login: room for a loaded machine
                .connectTimeout(Duration.ofSeconds(5)).build());
        opened.add(client);
        return client;
    }

    @Test
    void onlyTheOperatorMayRevokeAndTheInspectorMayOnlyLook() throws Exception {
        LockClient holder = as("locker");
        Lease lease = holder.lock("job").tryAcquire(LEASE).orElseThrow();

        LockClient inspector = as("inspector");
        assertThat(inspector.inspect("job")).flatMap(LockInfo::owner).contains("locker-client");
        assertThat(inspector.holders("", 10)).extracting(LockInfo::name).containsExactly("job");
        assertThatThrownBy(() -> inspector.lock("other").tryAcquire(LEASE)).as("an inspector takes no lock")
                .isInstanceOf(AccessDeniedException.class);

        for (String who : List.of("inspector", "locker")) {
            LockClient client = who.equals("inspector") ? inspector : as(who);
            assertThatThrownBy(() -> client.revoke("job", "not yours")).as("%s revokes", who)
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("refused to revoke 'job'")
                    .hasMessageContaining("user '" + who + "'")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
            assertThat(lease.isValid()).as("after %s's revoke", who).isTrue();
            assertThat(lease.extend(LEASE)).isTrue();
            assertThat(inspector.inspect("job")).as("still held after %s's revoke", who).isPresent();
        }
        assertThatThrownBy(() -> as("mallory")).as("a user of another prefix does not even connect")
                .isInstanceOf(AccessDeniedException.class);

        LockClient operator = as("ops");
        assertThat(operator.revoke("job", "ops on call")).map(LockInfo::fencingToken).contains(lease.fencingToken());
        assertThat(lease.lost().toCompletableFuture().get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .as("the locker reads the record (its role may read the records)").isEqualTo(Lease.LossReason.REVOKED);
        assertThat(lease.isValid()).isFalse();
        assertThat(holder.lock("job").tryAcquire(LEASE).orElseThrow().fencingToken().orElseThrow())
                .isGreaterThan(lease.fencingToken().orElseThrow());
    }

    @Test
    void theLockersRoleCoversReadWriteLocksAndSemaphores() throws Exception {
        LockClient locker = as("locker");
        LockClient other = as("locker");
        Lease read = locker.readWriteLock("job").readLock().tryAcquire(LEASE).orElseThrow();
        assertThat(other.readWriteLock("job").writeLock().tryAcquire(LEASE)).isEmpty();
        Lease permit = locker.semaphore("job", 1).tryAcquire(LEASE).orElseThrow();
        assertThat(other.semaphore("job", 1).tryAcquire(LEASE)).isEmpty();
        assertThatThrownBy(() -> other.semaphore("job", 2).tryAcquire(LEASE)).isInstanceOf(io.distlock.PermitCountMismatchException.class);
        read.release();
        permit.release();
        assertThat(other.readWriteLock("job").writeLock().tryAcquire(LEASE)).isPresent();

        LockClient inspector = as("inspector");
        assertThatThrownBy(() -> inspector.readWriteLock("job").readLock().tryAcquire(LEASE)).isInstanceOf(AccessDeniedException.class);
        assertThatThrownBy(() -> inspector.semaphore("job", 1).tryAcquire(LEASE)).isInstanceOf(AccessDeniedException.class);
    }

    /**
     * The holds of read-write locks and semaphores under the same roles: the inspector lists them;
     * its and a locker's revokes of a permit and of a reader are refused as a whole (the
     * transaction's put of the record is outside their rights) and change nothing; the operator's
     * revokes, and the locker's leases end {@code REVOKED}.
     */
    @Test
    void onlyTheOperatorMayRevokeAHoldAndTheInspectorMayListThem() throws Exception {
        LockClient holder = as("locker");
        Lease permit = holder.semaphore("pool", 2).tryAcquire(LEASE).orElseThrow();
        Lease read = holder.readWriteLock("doc").readLock().tryAcquire(LEASE).orElseThrow();
        String permitId = Long.toString(permit.fencingToken().orElseThrow());
        String readId = Long.toString(read.fencingToken().orElseThrow());
        int records = etcd.keys(PREFIX + "/revoked/").size(); // the lock test's may be there

        LockClient inspector = as("inspector");
        assertThat(inspector.semaphore("pool", 2).holders()).singleElement().satisfies(hold -> {
            assertThat(hold.holdId()).contains(permitId);
            assertThat(hold.owner()).contains("locker-client");
        });
        assertThat(inspector.readWriteLock("doc").holders()).extracting(hold -> hold.holdId().orElseThrow()).containsExactly(readId);

        for (String who : List.of("inspector", "locker")) {
            LockClient client = who.equals("inspector") ? inspector : as(who);
            assertThatThrownBy(() -> client.semaphore("pool", 2).revoke(permitId, "not yours")).as("%s revokes a permit", who)
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("refused to revoke the semaphore 'pool'")
                    .hasMessageContaining("user '" + who + "'")
                    .hasMessageContaining("an operator needs readwrite on " + PREFIX + "/semaphores/")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
            assertThatThrownBy(() -> client.readWriteLock("doc").revoke(readId, "not yours")).as("%s revokes a reader", who)
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("refused to revoke the read-write lock 'doc'");
            assertThat(permit.isValid() && read.isValid()).as("after %s's revokes", who).isTrue();
            assertThat(permit.extend(LEASE) && read.extend(LEASE)).isTrue();
            assertThat(inspector.semaphore("pool", 2).holders()).as("still held after %s's revoke", who).hasSize(1);
            assertThat(inspector.readWriteLock("doc").holders()).hasSize(1);
        }
        assertThat(etcd.keys(PREFIX + "/revoked/")).as("no record written by a refused revoke").hasSize(records);

        LockClient operator = as("ops");
        assertThat(operator.semaphore("pool", 2).revoke(permitId, "ops on call")).map(LockInfo::fencingToken).contains(permit.fencingToken());
        assertThat(operator.readWriteLock("doc").revoke(readId, "ops on call")).map(LockInfo::fencingToken).contains(read.fencingToken());
        assertThat(permit.lost().toCompletableFuture().get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
        assertThat(read.lost().toCompletableFuture().get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
        assertThat(inspector.semaphore("pool", 2).holders()).isEmpty();
        assertThat(inspector.readWriteLock("doc").holders()).isEmpty();
    }
}
