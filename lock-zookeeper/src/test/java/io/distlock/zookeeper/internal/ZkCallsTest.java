package io.distlock.zookeeper.internal;

import io.distlock.AccessDeniedException;
import io.distlock.AuthenticationException;
import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** How ZooKeeper's failures become the contract's: one case per kind, so a client upgrade that changes one breaks here. */
class ZkCallsTest {

    private final ZkCalls calls = new ZkCalls("zookeeper://127.0.0.1:2181/app", Duration.ofMillis(1500));

    @Test
    void failuresThatSayNothingAboutTheOutcomeAreUnknown() {
        for (KeeperException.Code code : new KeeperException.Code[] {KeeperException.Code.CONNECTIONLOSS,
                KeeperException.Code.SESSIONEXPIRED, KeeperException.Code.SESSIONMOVED, KeeperException.Code.OPERATIONTIMEOUT,
                KeeperException.Code.REQUESTTIMEOUT}) {
            KeeperException e = KeeperException.create(code, "/app/x");
            assertThat(ZkCalls.isConnectionProblem(e)).as(code.name()).isTrue();
            assertThat(calls.translate(e, "release 'x'")).as(code.name()).isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("zookeeper://127.0.0.1:2181/app").hasMessageContaining(code.name());
        }
    }

    @Test
    void refusalsAreDefiniteAndSayWhatToGrant() {
        KeeperException noAuth = KeeperException.create(KeeperException.Code.NOAUTH, "/app/x");
        assertThat(ZkCalls.isConnectionProblem(noAuth)).isFalse();
        assertThat(calls.translate(noAuth, "acquire 'x'")).isInstanceOf(AccessDeniedException.class)
                .isNotInstanceOf(BackendUnavailableException.class).hasMessageContaining("no permission on /app/x")
                .hasMessageContaining("unauthenticated");
        ZkCalls asBob = new ZkCalls("zookeeper://127.0.0.1:2181/app", Duration.ofMillis(1500), () -> "user 'bob' (digest)");
        assertThat(asBob.translate(noAuth, "acquire 'x'")).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("user 'bob' (digest) has no permission on /app/x")
                .satisfies(e -> assertThat(((AccessDeniedException) e).endpoint()).isEqualTo("zookeeper://127.0.0.1:2181/app"));
        KeeperException authFailed = KeeperException.create(KeeperException.Code.AUTHFAILED, "/app/x");
        assertThat(ZkCalls.isConnectionProblem(authFailed)).isFalse();
        assertThat(asBob.translate(authFailed, "acquire 'x'")).isInstanceOf(AuthenticationException.class)
                .isNotInstanceOf(BackendUnavailableException.class).hasMessageContaining("user 'bob'");
        assertThat(calls.translate(KeeperException.create(KeeperException.Code.BADVERSION, "/app/x"), "extend 'x'"))
                .isInstanceOf(LockException.class).isNotInstanceOf(BackendUnavailableException.class);
    }
}
