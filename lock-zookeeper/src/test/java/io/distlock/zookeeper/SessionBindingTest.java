package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.spi.Attempt;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A grant is bound to the session that granted it (issue 20, item 1): the driver names the session
 * its lock node lives with, confirms only that session with the answers that prove it alive, and
 * reports the end of exactly that session — so that the engine can give back a grant whose session
 * ended before it was recorded, and lose every lease the session granted, recorded or not.
 */
class SessionBindingTest {

    private static final int SESSION_MILLIS = 4_000;

    private static ZkServers server;

    private final Opened opened = new Opened();

    @BeforeAll
    static void start() {
        server = ZkServers.single();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        opened.closeAll();
    }

    @Test
    void aGrantNamesTheSessionItsNodeLivesWithAndThatSessionsEndIsReported() {
        RecordingContext context = new RecordingContext();
        ZkLockDriver driver = opened.add(ZkLockDriver.connect(ZkEndpoint.parse(URI.create(server.uri("/binding?sessionTimeout="
                + SESSION_MILLIS))), LockOptions.defaults(), context));
        long session = driver.zooKeeper().getSessionId();

        Attempt attempt = driver.tryAcquire(new LockRequest("bound", UUID.randomUUID().toString(), Duration.ofSeconds(30)));
        Grant grant = attempt.grant();
        assertThat(grant.session()).as("the session the node lives with (its ephemeral owner)").isEqualTo(session);
        assertThat(context.confirmedSessions).as("confirmed before the grant was returned").contains(session);
        assertThat(context.confirmedSessions).as("no confirmation about any other session").containsOnly(session);

        server.expireSession(driver.zooKeeper());
        Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> context.endedSessions.contains(session));
        assertThat(context.endedSessions).as("only the session that ended").containsOnly(session);
        assertThat(context.lost).as("the driver leaves the sweep to the engine, by session").isEmpty();

        // The next grant is bound to the next session, never to the one that ended.
        Awaitility.await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> driver.tryAcquire(
                new LockRequest("after", UUID.randomUUID().toString(), Duration.ofSeconds(30))).isGranted());
        assertThat(driver.zooKeeper().getSessionId()).isNotEqualTo(session);
        assertThat(context.confirmedSessions).contains(driver.zooKeeper().getSessionId());
    }

    @Test
    void aLeaseIsLostWithTheSessionThatGrantedItAndTheNextSessionDoesNotReviveIt() throws Exception {
        LockClient client = opened.add(Locks.connect(server.uri("/binding?sessionTimeout=" + SESSION_MILLIS)));
        Lease lease = client.lock("revived").tryAcquire(Duration.ofSeconds(60)).orElseThrow();
        server.expireSession(client);
        assertThat(lease.lost().toCompletableFuture().get(15, TimeUnit.SECONDS)).isEqualTo(Lease.LossReason.BACKEND_LOST);
        // The client goes on with a new session, whose confirmations vouch for its own grants only.
        Lease next = Awaitility.await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
                .until(() -> client.lock("revived-next").tryAcquire(Duration.ofSeconds(60)).orElse(null), l -> l != null);
        assertThat(next.isValid()).isTrue();
        assertThat(lease.isValid()).as("the lease of the ended session").isFalse();
        next.release();
    }
}
