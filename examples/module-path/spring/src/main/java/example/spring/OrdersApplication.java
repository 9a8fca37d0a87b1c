package example.spring;

import io.distlock.Lease;
import io.distlock.LeaseLock;
import io.distlock.spring.DistlockLockRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.annotation.ServiceActivator;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;

import java.time.Duration;
import java.util.function.Function;

/**
 * lock-spring's README setup in a Spring context on the module path: the registry and the lock
 * advice around a {@code @ServiceActivator}, then the README's fenced write through the registry's
 * lock. Run as {@code java -Ddistlock.uri=<uri> --module-path ... -m example.spring/example.spring.OrdersApplication};
 * prints one {@code spring: } line per step and exits 0.
 */
public final class OrdersApplication {

    private OrdersApplication() {
    }

    @Configuration
    @EnableIntegration
    static class OrdersConfig {

        @Bean
        DistlockLockRegistry lockRegistry(@Value("${distlock.uri}") String uri) {    // e.g. zookeeper://zk1:2181
            return new DistlockLockRegistry(uri, "orders:", Duration.ofSeconds(30));  // prefix, lease time
        }                                                                             // closed with the context

        @Bean
        LockRequestHandlerAdvice lockAdvice(DistlockLockRegistry lockRegistry) {      // one lock per SKU header
            return new LockRequestHandlerAdvice(lockRegistry,
                    (Function<Message<?>, Object>) message -> message.getHeaders().get("sku"));
        }

        @Bean
        OrderHandler orderHandler(DistlockLockRegistry lockRegistry) {
            return new OrderHandler(lockRegistry);
        }
    }

    /** The guarded handler: it runs holding the order's SKU lock. */
    static class OrderHandler {
        private final DistlockLockRegistry lockRegistry;

        OrderHandler(DistlockLockRegistry lockRegistry) {
            this.lockRegistry = lockRegistry;
        }

        @ServiceActivator(inputChannel = "orders", adviceChain = "lockAdvice")
        public void handle(Message<?> order) {
            Object sku = order.getHeaders().get("sku");
            boolean held = lockRegistry.obtain(sku).lease().isPresent();     // the holding thread's lease
            System.out.println("spring: order for " + sku + " handled " + (held ? "holding" : "WITHOUT") + " its lock");
        }
    }

    /** The store of the README's fencing example, printing what it is asked to write. */
    static final class Stock {
        void takeOne(String sku, long fencingToken) {
            System.out.println("spring: took one " + sku + " with fencing token " + fencingToken);
        }
    }

    public static void main(String[] args) {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(OrdersConfig.class)) {
            context.getBean("orders", MessageChannel.class).send(MessageBuilder.withPayload("one").setHeader("sku", "sku-42").build());
            DistlockLockRegistry lockRegistry = context.getBean(DistlockLockRegistry.class);
            takeOne(lockRegistry, "sku-42", new Stock());
        }
    }

    private static void takeOne(DistlockLockRegistry lockRegistry, String sku, Stock stock) {
        LeaseLock lock = lockRegistry.obtain(sku);
        lock.lock();
        try {
            Lease lease = lock.lease().orElseThrow();             // the holding thread's lease
            stock.takeOne(sku, lease.fencingToken().getAsLong()); // the store rejects a lower token than it has seen
        } finally {
            lock.unlock();
        }
    }
}
