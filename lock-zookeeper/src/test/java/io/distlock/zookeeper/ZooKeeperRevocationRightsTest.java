package io.distlock.zookeeper;

import io.distlock.AccessDeniedException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInfo;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.TestEnvironment;
import io.distlock.zookeeper.internal.LockNodes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who may inspect and who may revoke, with real digest principals, set up as the README's
 * "Inspection and revocation" tells an operator: the chroot admits the lockers (ALL), the operator
 * ({@code rd}: lock directories inherit it, so it may delete a holder's node there) and the
 * inspector ({@code r}); {@code .revoked} admits the operator only (and the world to read). An
 * inspector, a locker, another user and an unauthenticated client may inspect and may not revoke,
 * and the holder stays valid; the operator revokes.
 */
class ZooKeeperRevocationRightsTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String LOCKER = "locker:locker-Pw-19ab";
    private static final String OPS = "ops:ops-Pw-7c2d";
    private static final String INSPECTOR = "inspector:inspector-Pw-4e11";
    private static final String MALLORY = "mallory:mallory-Pw-0f3a";

    private static ZkServers server;
    private static String chroot;

    private final Opened opened = new Opened();

    @BeforeAll
    static void start() throws Exception {
        server = ZkServers.single();
        chroot = "/rights-" + UUID.randomUUID().toString().substring(0, 8);
        setUp(chroot, true);
    }

    /** What an operator does once (README): the chroot with every principal's rights, and the records' node. */
    private static void setUp(String root, boolean records) throws Exception {
        ZooKeeper admin = RawZk.connect(server.connectString(), null, null);
        try {
            admin.create(root, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            if (records) {
                // ZooKeeper asks an ACL list contains(null): a mutable list, not List.of.
                admin.create(root + "/.revoked", new byte[0], new ArrayList<>(List.of(acl(OPS, ZooDefs.Perms.ALL), world())),
                        CreateMode.PERSISTENT);
            }
            admin.setACL(root, new ArrayList<>(List.of(acl(LOCKER, ZooDefs.Perms.ALL), acl(OPS, ZooDefs.Perms.READ | ZooDefs.Perms.DELETE),
                    acl(INSPECTOR, ZooDefs.Perms.READ), world())), -1);
        } finally {
            admin.close();
        }
    }

    private static ACL acl(String userPassword, int perms) throws Exception {
        return new ACL(perms, new Id("digest", DigestAuthenticationProvider.generateDigest(userPassword)));
    }

    private static ACL world() {
        return new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        opened.closeAll();
    }

    private LockClient as(String userPassword, String root) {
        String uri = server.uri(root);
        return opened.add(Locks.connect(userPassword == null ? uri : uri.replace("zookeeper://", "zookeeper://" + userPassword + "@")));
    }

    @Test
    void onlyTheOperatorMayRevokeAndEveryoneMayInspect() throws Exception {
        LockClient holder = as(LOCKER, chroot);
        String name = "job-" + UUID.randomUUID().toString().substring(0, 8);
        Lease lease = holder.lock(name).tryAcquire(LEASE).orElseThrow();
        List<ACL> dirAcl = new ArrayList<>();
        ZooKeeper look = RawZk.connect(server.connectString(), null, LOCKER);
        try {
            dirAcl.addAll(look.getACL(LockNodes.dir(chroot, name), null));
        } finally {
            look.close();
        }
        assertThat(dirAcl).as("the lock directory inherits the operator's and the inspector's entries")
                .contains(acl(OPS, ZooDefs.Perms.READ | ZooDefs.Perms.DELETE), acl(INSPECTOR, ZooDefs.Perms.READ));

        for (String who : new String[] {INSPECTOR, LOCKER, MALLORY, null}) {
            LockClient client = as(who, chroot);
            String principal = who == null ? "world" : who.substring(0, who.indexOf(':'));
            assertThat(client.inspect(name)).as("%s inspects", principal).map(LockInfo::fencingToken).contains(lease.fencingToken());
            assertThat(client.holders("job-", 10)).as("%s lists", principal).extracting(LockInfo::name).contains(name);
            assertThatThrownBy(() -> client.revoke(name, "not yours")).as("%s revokes", principal)
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("refused to revoke '" + name + "'")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("Pw-"));
            assertThat(lease.isValid()).as("after %s's revoke", principal).isTrue();
            assertThat(lease.extend(LEASE)).isTrue();
            assertThat(client.inspect(name)).as("still held after %s's revoke", principal).isPresent();
        }

        LockClient operator = as(OPS, chroot);
        assertThat(operator.revoke(name, "ops on call")).map(LockInfo::fencingToken).contains(lease.fencingToken());
        assertThat(lease.lost().toCompletableFuture().get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
        assertThat(lease.isValid()).isFalse();
    }

    /**
     * A semaphore's permit and a read-write lock's reader, held by the locker: everyone may list the
     * holds, only the operator may revoke one — the others are refused ({@code multi} fails as a
     * whole) and nothing changes: the holder stays valid and extends, its node stays listed.
     */
    @Test
    void onlyTheOperatorMayRevokeAHoldAndEveryoneMayListThem() throws Exception {
        LockClient holder = as(LOCKER, chroot);
        String name = "pool-" + UUID.randomUUID().toString().substring(0, 8);
        Lease permit = holder.semaphore(name, 2).tryAcquire(LEASE).orElseThrow();
        Lease read = holder.readWriteLock(name).readLock().tryAcquire(LEASE).orElseThrow();
        String permitId = holder.semaphore(name, 2).holders().get(0).holdId().orElseThrow();
        String readId = holder.readWriteLock(name).holders().get(0).holdId().orElseThrow();

        for (String who : new String[] {INSPECTOR, LOCKER, MALLORY, null}) {
            LockClient client = as(who, chroot);
            String principal = who == null ? "world" : who.substring(0, who.indexOf(':'));
            assertThat(client.semaphore(name, 2).holders()).as("%s lists the permits", principal)
                    .extracting(LockInfo::fencingToken).containsExactly(permit.fencingToken());
            assertThat(client.readWriteLock(name).holders()).as("%s lists the readers", principal)
                    .extracting(LockInfo::fencingToken).containsExactly(read.fencingToken());
            assertThatThrownBy(() -> client.semaphore(name, 2).revoke(permitId, "not yours")).as("%s revokes a permit", principal)
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("refused to revoke the hold " + permitId + " of semaphore '" + name + "'")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("Pw-"));
            assertThatThrownBy(() -> client.readWriteLock(name).revoke(readId, "not yours")).as("%s revokes a reader", principal)
                    .isInstanceOf(AccessDeniedException.class);
            assertThat(permit.isValid() && read.isValid()).as("after %s's revokes", principal).isTrue();
            assertThat(permit.extend(LEASE) && read.extend(LEASE)).isTrue();
            assertThat(client.semaphore(name, 2).holders()).as("still held after %s's revoke", principal).hasSize(1);
        }

        LockClient operator = as(OPS, chroot);
        assertThat(operator.semaphore(name, 2).revoke(permitId, "ops on call")).map(LockInfo::fencingToken).contains(permit.fencingToken());
        assertThat(operator.readWriteLock(name).revoke(readId, "ops on call")).map(LockInfo::fencingToken).contains(read.fencingToken());
        assertThat(permit.lost().toCompletableFuture().get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
        assertThat(read.lost().toCompletableFuture().get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
        assertThat(holder.semaphore(name, 2).holders()).isEmpty();
    }

    @Test
    void withoutTheRecordsNodeNobodyWithCredentialsMayRevoke() throws Exception {
        String bare = chroot + "-bare";
        setUp(bare, false);
        LockClient holder = as(LOCKER, bare);
        Lease lease = holder.lock("job").tryAcquire(LEASE).orElseThrow();
        for (String who : new String[] {LOCKER, OPS}) {
            assertThatThrownBy(() -> as(who, bare).revoke("job", "no records node")).isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining(bare + "/.revoked").hasMessageContaining("does not exist");
        }
        assertThat(lease.isValid()).isTrue();
        lease.release();
    }

    @Test
    void withoutCredentialsEveryClientMayRevokeAsEveryClientMayDeleteEveryNode() throws Exception {
        String open = "/rights-open-" + UUID.randomUUID().toString().substring(0, 8);
        LockClient holder = opened.add(Locks.connect(URI.create(server.uri(open)), LockOptions.builder().owner("open-holder").build()));
        Lease lease = holder.lock("job").tryAcquire(LEASE).orElseThrow();
        assertThat(as(null, open).revoke("job", "anyone may")).isPresent();
        assertThat(lease.lost().toCompletableFuture().get(ENV.defaultTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(Lease.LossReason.REVOKED);
    }
}
