package io.distlock.rediscluster;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.fixtures.RedisCluster;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisFamilyHooks.Principals;
import io.distlock.tck.fixtures.TestCertificates;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK over {@code redis-cluster://...?tls=true}: a cluster of its own, 3 primaries, speaking TLS
 * only (the cluster bus and replication too), the {@code default} user with the admin's password and
 * an ACL user with the least rights the backend needs ({@link #LOCKER_RULES}, the line its README
 * gives). It runs the safety and security groups only, with rules 5.5, 5.8 and 5.9 (a closed port, and seeds that
 * accept and never answer, so that the TLS handshake waits), and every security rule must pass.
 */
@RuleSelection(value = "1,5.5,5.8,5.9,6", mustPass = "5.5,5.8,5.9,6")
class RedisClusterTlsTckTest extends LockVerification {

    /**
     * The single-Redis backend's keys, channels, scripts and notifications with read-write locks and
     * semaphores, plus the cluster's: its map ({@code CLUSTER SHARDS}, {@code INFO}), {@code ASKING},
     * and sharded pub/sub.
     */
    static final String[] LOCKER_RULES = {"~distlock:*", "&distlock:*", "+ping", "+info", "+cluster|shards", "+asking",
            "+eval", "+evalsha", "+script|load", "+subscribe", "+unsubscribe", "+ssubscribe", "+sunsubscribe", "+exists", "+set",
            "+get", "+del", "+incr", "+type", "+pexpire", "+pttl", "+publish", "+spublish", "+pubsub|shardnumsub", "+time", "+zadd", "+zrem", "+zscore",
            "+zcard", "+zcount", "+zrange", "+zrangebyscore", "+zremrangebyscore", "+hset", "+hdel"};

    static final Principals PRINCIPALS = new Principals(List.of(LOCKER_RULES), "pw-ClusterTls-71a3", "pw-ClusterIntruder-2c9e",
            "pw-ClusterWrong-5b04", "pw-ClusterAdmin-e8d1");

    static final String SECRET = PRINCIPALS.lockerSecret();

    private static RedisCluster cluster;
    private static RedisFamilyHooks hooks;
    private static TestCertificates otherCa;

    @BeforeAll
    static void startCluster() {
        TestCertificates certs = TestCertificates.shared();
        cluster = RedisCluster.start(3, 0, node -> PRINCIPALS.configure(node.tls(certs)));
        hooks = RedisFamilyHooks.onCluster("redis-cluster", cluster, LockScripts::lockKey);
        otherCa = TestCertificates.generate();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        if (otherCa != null) {
            otherCa.close();
        }
    }

    static String uriAs(String user, String password, TestCertificates ca) {
        return "redis-cluster://" + user + ":" + password + "@" + String.join(",", cluster.seedEndpoints())
                + "?tls=true&" + RedisFamilyHooks.trustStoreQuery(ca);
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(uriAs(Principals.LOCKER, SECRET, TestCertificates.shared()));
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(uriAs(Principals.LOCKER, SECRET, TestCertificates.shared())));
    }

    /** Rule 5.8: a silent seed listed first, over TLS, with the locker's password. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of(uriAs(Principals.LOCKER, SECRET, TestCertificates.shared()).replaceFirst("@", "@" + silentEndpoint + ","));
    }

    /** Rules 5.5 and 5.9: three seeds on free loopback ports, with TLS, the trust store and the TCK's password. */
    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(RedisFamilyHooks.unreachableUri("redis-cluster", 3, LockVerification.SECRET,
                "?tls=true&" + RedisFamilyHooks.trustStoreQuery(TestCertificates.shared())));
    }

    /** Rule 1.10: the lock key's PTTL on the primary of its slot. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /**
     * Group 6. Besides the lock key's plain writes on its primary, the intruder tries to delete the
     * fence, to delete the lock from a script, and to wake its waiters on the shard channel.
     */
    @Override
    protected Optional<Security> security() {
        return Optional.of(hooks.security(PRINCIPALS, otherCa, (user, password, ca) -> Locks.connect(uriAs(user, password, ca)),
                lockName -> new String[][] {
                    {"DEL", LockScripts.fenceKey(lockName)},
                    {"EVAL", "return redis.call('DEL', KEYS[1])", "1", LockScripts.lockKey(lockName)},
                    {"SPUBLISH", LockScripts.releaseChannel(lockName), "released"},
                }));
    }
}
