package io.distlock.bench;

import java.util.List;

import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.SetParams;

/**
 * The physical floor: what one loopback round trip to the same {@code redis-server} costs, with
 * nothing of distlock in the way. One plain {@link Jedis} connection, no pool.
 */
final class Floor {

    /** The minimal correct pair: compare-and-delete, so that a release never frees someone else's lock. */
    static final String COMPARE_AND_DELETE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

    private Floor() {
    }

    static Jedis connect(String host, int port) {
        return new Jedis(new HostAndPort(host, port), DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(5_000).connectionTimeoutMillis(5_000)
                .autoNegotiateProtocol(false).clientSetInfoConfig(ClientSetInfoConfig.DISABLED).build());
    }

    /** {@code PING}: one round trip, the least a request can cost. */
    static final class Ping extends LoopScenario {
        private final Jedis jedis;

        Ping(String host, int port) {
            super("floor: raw Jedis PING");
            this.jedis = connect(host, port);
        }

        @Override
        void op() {
            jedis.ping();
        }

        @Override
        public void close() {
            jedis.close();
        }
    }

    /**
     * {@code SET key token NX PX 10000} then {@code EVALSHA} compare-and-delete: two round trips,
     * the hand-rolled lock every backend is measured against ("the pair"). The token is a counter:
     * the floor pays for nothing it does not send.
     */
    static final class Pair extends LoopScenario {
        private final Jedis jedis;
        private final String sha;
        private final SetParams nxPx = SetParams.setParams().nx().px(10_000);
        private long token;

        Pair(String host, int port) {
            this("floor: raw SET NX PX + EVALSHA compare-and-delete", host, port);
        }

        /**
         * @param label the row's label
         * @param host  the server (on a cluster, the primary of {@code floor:pair}'s slot)
         * @param port  its port
         */
        Pair(String label, String host, int port) {
            super(label);
            this.jedis = connect(host, port);
            this.sha = jedis.scriptLoad(COMPARE_AND_DELETE);
        }

        @Override
        void op() {
            String value = Long.toString(++token);
            if (!"OK".equals(jedis.set("floor:pair", value, nxPx))) {
                throw new IllegalStateException("floor:pair was held by someone else");
            }
            Object deleted = jedis.evalsha(sha, List.of("floor:pair"), List.of(value));
            if (!Long.valueOf(1).equals(deleted)) {
                throw new IllegalStateException("compare-and-delete of floor:pair answered " + deleted);
            }
        }

        @Override
        public void close() {
            jedis.close();
        }
    }

    /**
     * The Redis + {@code WAIT} lock written by hand, as seed 004 describes it: {@code SET key token
     * NX PX 10000}, {@code WAIT 1 1000} on the same connection (WAIT counts the acknowledgements of
     * this connection's writes), then {@code EVALSHA} compare-and-delete: three round trips, one of
     * them waiting for the replica. Issue 12's floor of the {@code redis-wait://} row; issue 28's
     * pipelines the first two ({@link #PIPELINED_LABEL}).
     */
    static final class PairWithWait extends LoopScenario {
        static final String LABEL = "floor: raw SET NX PX + WAIT 1 + EVALSHA compare-and-delete (primary with 1 replica)";
        /**
         * The same lock with its first two commands pipelined, as issue 28 wrote its floor after
         * measuring 1.16× in an outside harness: {@code SET} and {@code WAIT} sent together (one round
         * trip, plus the replica's acknowledgement), then the compare-and-delete. The fewest round trips
         * a Redis + {@code WAIT} lock can take, and the ones distlock's backend takes (its acquire script
         * and {@code WAIT} pipelined, then its release).
         */
        static final String PIPELINED_LABEL = "floor: raw SET NX PX + WAIT 1 pipelined, then EVALSHA compare-and-delete (primary with 1 replica)";

        private final Jedis jedis;
        private final String sha;
        private final boolean pipelined;
        private final String key;
        private final SetParams nxPx = SetParams.setParams().nx().px(10_000);
        private long token;

        /** @param pipelined {@code SET} and {@code WAIT} sent together ({@link #PIPELINED_LABEL}), or each awaited ({@link #LABEL}) */
        PairWithWait(String host, int port, boolean pipelined) {
            super(pipelined ? PIPELINED_LABEL : LABEL);
            this.jedis = connect(host, port);
            this.sha = jedis.scriptLoad(COMPARE_AND_DELETE);
            this.pipelined = pipelined;
            this.key = pipelined ? "floor:wait-pipelined" : "floor:wait";
        }

        @Override
        void op() {
            String value = Long.toString(++token);
            String set;
            long acknowledged;
            if (pipelined) {
                try (Pipeline pipeline = jedis.pipelined()) {
                    Response<String> setReply = pipeline.set(key, value, nxPx);
                    Response<Long> waitReply = pipeline.waitReplicas(1, 1_000);
                    pipeline.sync();
                    set = setReply.get();
                    acknowledged = waitReply.get();
                }
            } else {
                set = jedis.set(key, value, nxPx);
                acknowledged = "OK".equals(set) ? jedis.waitReplicas(1, 1_000) : 0;
            }
            if (!"OK".equals(set)) {
                throw new IllegalStateException(key + " was held by someone else");
            }
            if (acknowledged < 1) {
                throw new IllegalStateException("WAIT 1: no replica acknowledged the SET within 1 s");
            }
            Object deleted = jedis.evalsha(sha, List.of(key), List.of(value));
            if (!Long.valueOf(1).equals(deleted)) {
                throw new IllegalStateException("compare-and-delete of " + key + " answered " + deleted);
            }
        }

        @Override
        public void close() {
            jedis.close();
        }
    }
}
