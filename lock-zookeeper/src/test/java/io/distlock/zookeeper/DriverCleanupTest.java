package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.spi.Attempt;
import io.distlock.spi.Grant;
import io.distlock.spi.LockRequest;
import io.distlock.tck.TestEnvironment;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.zookeeper.internal.ZkEndpoint;
import io.distlock.zookeeper.internal.ZkLockDriver;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The driver's side of the engine's guaranteed cleanup (issue 9, item 1), against a real server:
 * a removal the server did not confirm throws, and the engine's next call of the same removal
 * still removes the node. The link goes silent first (a blackhole: the delete is sent and held),
 * then is reset (the held delete is lost with the connection), then heals.
 */
class DriverCleanupTest {

    private static final TestEnvironment ENV = new TestEnvironment();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static ZkServers server;
    private static ZooKeeper admin;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = ZkServers.single();
        admin = ZkServers.connect(server.connectString(), Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() throws Exception {
        admin.close();
        server.close();
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    @Test
    void aWithdrawalTheServerDidNotConfirmIsNotForgotten() {
        FaultProxy link = link();
        ZkLockDriver holder = driver(server.connectString());
        ZkLockDriver waiter = driver(link.endpoint());
        assertThat(holder.tryAcquire(request("withdraw")).isGranted()).isTrue();
        LockRequest waiting = request("withdraw");
        assertThat(waiter.tryAcquire(waiting).isBusy()).isTrue();
        assertThat(nodes("withdraw")).isEqualTo(2);

        link.blackhole();
        assertThatThrownBy(() -> waiter.abandon(waiting, false)).isInstanceOf(BackendUnavailableException.class);
        cutAndHeal(link);

        retryUntilConfirmed(() -> waiter.abandon(waiting, false));
        assertThat(nodes("withdraw")).as("only the holder's node is left").isEqualTo(1);
    }

    @Test
    void aReleaseTheServerDidNotConfirmIsNotForgotten() {
        FaultProxy link = link();
        ZkLockDriver holder = driver(link.endpoint());
        Attempt attempt = holder.tryAcquire(request("release"));
        Grant grant = attempt.grant();

        link.blackhole();
        assertThatThrownBy(() -> holder.release(grant)).isInstanceOf(BackendUnavailableException.class);
        cutAndHeal(link);

        retryUntilConfirmed(() -> holder.release(grant));
        assertThat(nodes("release")).isZero();
    }

    /** Resets the link (losing what it held) once the client noticed, then heals it. */
    private static void cutAndHeal(FaultProxy link) {
        assertThat(link.inFlight()).as("the delete is held in the silence").isTrue();
        link.drop();
        link.heal();
    }

    /** What the engine's cleanup does: call the removal again until it returns normally. */
    private static void retryUntilConfirmed(Runnable removal) {
        ENV.awaitUntil("the removal is confirmed", ENV.scaled(Duration.ofSeconds(10)), () -> {
            try {
                removal.run();
                return true;
            } catch (BackendUnavailableException e) {
                return false;
            }
        });
    }

    private static LockRequest request(String name) {
        return new LockRequest(name, UUID.randomUUID().toString().replace("-", ""), LEASE);
    }

    private FaultProxy link() {
        String[] hostPort = server.serverEndpoints().get(0).split(":");
        FaultProxy proxy = FaultProxy.start(hostPort[0], Integer.parseInt(hostPort[1]));
        opened.add(proxy);
        return proxy;
    }

    private ZkLockDriver driver(String hosts) {
        LockOptions options = LockOptions.builder().operationTimeout(ENV.scaled(Duration.ofMillis(500))).build();
        ZkLockDriver driver = ZkLockDriver.connect(ZkEndpoint.parse(URI.create("zookeeper://" + hosts + "/cleanup?sessionTimeout=10000")),
                options, new RecordingContext());
        opened.add(driver);
        return driver;
    }

    private static int nodes(String name) {
        try {
            return admin.getChildren("/cleanup/" + name, false).size();
        } catch (KeeperException.NoNodeException e) {
            return 0;
        } catch (KeeperException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
