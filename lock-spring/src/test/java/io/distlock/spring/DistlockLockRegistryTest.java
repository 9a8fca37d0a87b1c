package io.distlock.spring;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.LeaseLostException;
import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.NoSuchBackendException;
import io.distlock.tck.fixtures.FaultProxy;
import io.distlock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.annotation.ServiceActivator;
import org.springframework.integration.channel.DirectChannel;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageHandler;
import org.springframework.messaging.MessagingException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The registry's own behaviour, on one real Redis server for the class: keys to names and the
 * cache, bad keys and arguments, expiry of idle locks, renewLock, a lease lost while held (its key
 * deleted on the server), an unreachable backend (a proxy that drops the link), and who closes
 * the client.
 */
class DistlockLockRegistryTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private static RedisServer redis;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (redis != null) {
            redis.close();
        }
    }

    private static DistlockLockRegistry registry(String prefix) {
        return new DistlockLockRegistry(redis.uri(), prefix, LEASE);
    }

    @Test
    void aKeyMapsToPrefixPlusItsStringFormAndTheSameLockObject() {
        try (DistlockLockRegistry registry = registry("orders:")) {
            LeaseLock lock = registry.obtain("a");
            assertThat(lock.name()).isEqualTo("orders:a");
            assertThat(registry.obtain("a")).isSameAs(lock);
            assertThat(registry.obtain(new StringBuilder("a"))).as("keys with the same string form share a lock").isSameAs(lock);
            assertThat(registry.obtain(42).name()).isEqualTo("orders:42");
            assertThat(registry.obtain("b")).isNotSameAs(lock);
            assertThat(lock.leaseTime()).isEqualTo(LEASE);
            assertThat(registry.size()).isEqualTo(3);
        }
    }

    @Test
    void aKeyThatMakesNoValidLockNameIsRefusedClearly() {
        try (DistlockLockRegistry registry = registry("")) {
            assertThatThrownBy(() -> registry.obtain(null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
            assertThatThrownBy(() -> registry.obtain("x".repeat(LockClient.MAX_NAME_LENGTH + 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256");
            assertThatThrownBy(() -> registry.obtain("a\nb")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("control character");
            assertThat(registry.size()).as("nothing cached for a refused key").isZero();
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsOpened() {
        assertThatThrownBy(() -> new DistlockLockRegistry(redis.uri(), "", Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> new DistlockLockRegistry(redis.uri(), null, LEASE)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new DistlockLockRegistry("nosuch://127.0.0.1:1")).isInstanceOf(NoSuchBackendException.class);
    }

    @Test
    void expiringDropsOnlyIdleLocksFromTheCache() {
        try (DistlockLockRegistry registry = registry("expire:")) {
            LeaseLock held = registry.obtain("held");
            LeaseLock idle = registry.obtain("idle");
            held.lock();
            try {
                registry.expireUnusedOlderThan(TimeUnit.HOURS.toMillis(1));
                assertThat(registry.size()).as("none is an hour old").isEqualTo(2);
                await().atMost(PATIENCE).until(() -> {
                    registry.expireUnusedOlderThan(0);
                    return registry.size() == 1;
                });
                assertThat(registry.obtain("held")).as("a held lock stays cached").isSameAs(held);
                assertThat(registry.obtain("idle")).as("an idle one was dropped").isNotSameAs(idle);
            } finally {
                held.unlock();
            }
        }
    }

    @Test
    void renewLockExtendsTheHoldersLeaseAndRefusesOthers() throws Exception {
        try (DistlockLockRegistry registry = registry("renew:")) {
            LeaseLock lock = registry.obtain("r");
            assertThatThrownBy(() -> registry.renewLock("r")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not held");
            lock.lock();
            try {
                CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
                    try {
                        registry.renewLock("r");
                        return null;
                    } catch (Throwable t) {
                        return t;
                    }
                });
                assertThat(other.get(20, TimeUnit.SECONDS)).as("only the holding thread renews")
                        .isInstanceOf(IllegalStateException.class);
                registry.renewLock("r", Duration.ofSeconds(30));
                Lease lease = lock.lease().orElseThrow();
                assertThat(lease.remaining()).isGreaterThan(LEASE);
                Object ttl = redis.call("PTTL", "distlock:{renew:r}");
                assertThat((Long) ttl).as("the server's expiry moved too").isGreaterThan(LEASE.toMillis());
                registry.renewLock("r"); // by the registry's lease time: never shortens
                assertThat(lease.remaining()).isGreaterThan(LEASE);
            } finally {
                lock.unlock();
            }
        }
    }

    @Test
    void aLeaseLostWhileHeldMakesUnlockThrowLeaseLost() {
        try (DistlockLockRegistry registry = registry("loss:");
             DistlockLockRegistry other = registry("loss:")) {
            LeaseLock lock = registry.obtain("l");
            lock.lock();
            Lease lease = lock.lease().orElseThrow();
            assertThat(redis.call("DEL", "distlock:{loss:l}")).isEqualTo(1L);
            await().atMost(PATIENCE).until(() -> !lease.isValid()); // the next renewal finds the key gone
            assertThat(lock.isHeldByCurrentThread()).as("held locally until unlocked").isTrue();
            assertThatThrownBy(() -> registry.renewLock("l")).isInstanceOf(LeaseLostException.class);
            assertThatThrownBy(lock::unlock).isInstanceOfSatisfying(LeaseLostException.class, e -> {
                assertThat(e.reason()).isEqualTo(Lease.LossReason.NOT_HELD);
                assertThat(e.lockName()).isEqualTo("loss:l");
            });
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            LeaseLock next = other.obtain("l");
            assertThat(next.tryLock()).isTrue();
            next.unlock();
        }
    }

    /** A service whose handler loses its lock mid-message: its key is deleted on the server. */
    @Configuration
    @EnableIntegration
    static class LosingInstance {

        @Bean
        DistlockLockRegistry lockRegistry() {
            return registry("advice:");
        }

        @Bean
        LockRequestHandlerAdvice lockAdvice(DistlockLockRegistry lockRegistry) {
            return new LockRequestHandlerAdvice(lockRegistry, "job");
        }

        @Bean
        MessageChannel jobs() {
            return new DirectChannel();
        }

        @Bean
        @ServiceActivator(inputChannel = "jobs", adviceChain = "lockAdvice")
        MessageHandler job(DistlockLockRegistry lockRegistry) {
            return message -> {
                Lease lease = lockRegistry.obtain("job").lease().orElseThrow();
                redis.call("DEL", "distlock:{advice:job}");
                await().atMost(PATIENCE).until(() -> !lease.isValid());
            };
        }
    }

    @Test
    void aLossUnderTheLockAdviceReachesTheSender() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(LosingInstance.class)) {
            MessageChannel jobs = context.getBean("jobs", MessageChannel.class);
            assertThatThrownBy(() -> jobs.send(MessageBuilder.withPayload("run").build()))
                    .isInstanceOf(MessagingException.class).hasCauseInstanceOf(LeaseLostException.class)
                    .cause().hasMessageContaining("advice:job").hasMessageContaining("overlapped");
            assertThat(context.getBean(DistlockLockRegistry.class).obtain("job").isLocked()).isFalse();
        }
    }

    @Test
    void anUnreachableBackendIsNeverBusy() throws Exception {
        try (FaultProxy link = FaultProxy.start(redis.host(), redis.port());
             DistlockLockRegistry registry = new DistlockLockRegistry("redis://" + link.endpoint(), "", LEASE)) {
            LeaseLock lock = registry.obtain("u");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
            link.drop(); // every connection reset, new ones refused
            assertThatThrownBy(lock::tryLock).isInstanceOf(BackendUnavailableException.class);
            assertThatThrownBy(() -> lock.tryLock(300, TimeUnit.MILLISECONDS)).isInstanceOf(BackendUnavailableException.class);
            assertThat(lock.isLocked()).as("nothing held locally").isFalse();
            link.heal();
            await().atMost(PATIENCE).until(() -> redis.call("EXISTS", "distlock:{u}").equals(0L));
            assertThat(lock.tryLock()).as("nothing left held on the server").isTrue();
            lock.unlock();
        }
    }

    @Test
    void closingAnOwningRegistryReleasesItsLocksAndClosesItsClient() {
        DistlockLockRegistry owning = registry("close:");
        try (DistlockLockRegistry other = registry("close:")) {
            LeaseLock held = owning.obtain("c");
            held.lock();
            assertThat(other.obtain("c").tryLock()).isFalse();
            owning.close();
            owning.close(); // idempotent
            assertThatThrownBy(() -> owning.obtain("c")).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> owning.client().lock("c")).as("its client is closed").isInstanceOf(IllegalStateException.class);
            LeaseLock next = other.obtain("c");
            assertThat(next.tryLock()).as("closing released the lease").isTrue();
            next.unlock();
        }
    }

    @Test
    void aRegistryOnAGivenClientLeavesItOpen() {
        try (LockClient client = Locks.connect(redis.uri())) {
            DistlockLockRegistry registry = new DistlockLockRegistry(client, "given:", LEASE);
            registry.close();
            assertThatThrownBy(() -> registry.obtain("g")).isInstanceOf(IllegalStateException.class);
            assertThat(client.lock("given:g").asLock(LEASE).tryLock()).isTrue();
        }
    }

    @Test
    void aSpringContextClosesTheRegistryItMade() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(DistlockLockRegistry.class, () -> registry("bean:"));
        context.refresh();
        DistlockLockRegistry registry = context.getBean(DistlockLockRegistry.class);
        registry.obtain("b");
        context.close();
        assertThatThrownBy(() -> registry.obtain("b")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> registry.client().lock("b")).isInstanceOf(IllegalStateException.class);
    }
}
