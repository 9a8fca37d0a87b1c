package io.distlock.rediscluster;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.TestEnvironment;

import java.time.Duration;
import java.util.Optional;

/**
 * The TCK's safety, liveness and renewal rules (groups 1 to 3) and the failover rule (4.5) on
 * {@code redis-cluster://...?replicas=1}, on the module's shared cluster: every grant and extension
 * waits for one replica of its slot's primary ({@code waitTimeout} 50 ms × the TCK's timeout
 * factor); renewals batch one pipeline and one {@code WAIT} per primary. Rule 4.5 fails the
 * primary over to the replica that did not acknowledge — the other one did — so {@code WAIT}
 * narrows the window without closing it, and the verdict shows it. The
 * other rules are the plain scheme's ({@link RedisClusterTckTest}): they do not change with one
 * more reply in the pipeline.
 */
@RuleSelection("1, 2, 3, 4.5")
class RedisClusterWaitTckTest extends RedisClusterTckTest {

    private static final String QUERY = "?replicas=1&waitTimeout=" + new TestEnvironment().scaled(Duration.ofMillis(50)).toMillis();

    @Override
    protected LockClient newClient() {
        return Locks.connect(SharedCluster.uri(QUERY));
    }

    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(SharedCluster.uri(QUERY)));
    }
}
