/**
 * The Redis family's shared library: the per-node primitive ({@code RedisNode}: pool, scripts,
 * pipelined batches, release subscriber, reconnects), endpoint parsing and redaction, failure
 * classification, TLS and the record of writes that may still land — and the single-Redis driver,
 * which the Redis + {@code WAIT} backend runs on each primary it follows. It provides no backend.
 *
 * <p>Its one package is exported to the Redis-family backends only, never to users. The list
 * below is the one place that names the family: a new Redis-family backend adds its module here
 * and edits no other module's descriptor (docs/architecture.md, "The Redis family"; this
 * module's PackagingTest checks the list against the modules that depend on it).
 */
// "module": a qualified export names modules that are not on this module's own build path.
@SuppressWarnings({"requires-automatic", "module"})
module io.distlock.redis.support {
    requires io.distlock;
    requires redis.clients.jedis;
    requires org.apache.commons.pool2;
    requires org.slf4j;

    exports io.distlock.redis.support to
            io.distlock.redis,
            io.distlock.rediscluster,
            io.distlock.redlock,
            io.distlock.rediswait,
            io.distlock.tair;
}
