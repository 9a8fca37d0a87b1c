/**
 * What the Redis-family backends share, written once: {@link io.distlock.redis.support.RedisNode}
 * (one server: pool, lock scripts, pipelined batches, release notifications, reconnects),
 * {@link io.distlock.redis.support.RedisEndpoint} (URI parsing, credentials, redaction),
 * {@link io.distlock.redis.support.RedisFailure} (Jedis's exceptions classified by type),
 * {@link io.distlock.redis.support.LockScripts} (the keys and scripts every member uses),
 * {@link io.distlock.redis.support.LateWrites} and
 * {@link io.distlock.redis.support.RedisLockDriver} (the single-Redis driver, which the
 * Redis + {@code WAIT} backend also runs on each primary it follows).
 *
 * <p>Not an API: exported only to the Redis-family backends (see this module's descriptor), and
 * free to change with them.
 */
package io.distlock.redis.support;
