package io.distlock.bench;

import java.util.ArrayList;
import java.util.List;

import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;

/**
 * The floor of a quorum lock: the raw pair ({@code SET NX PX}, then {@code EVALSHA}
 * compare-and-delete) sent to N independent servers from one thread, each step written to every
 * node before any reply is read — what a Redlock fan-out costs with nothing else in the way. Set
 * against the floor pair it shows what N servers cost this machine by themselves.
 */
final class RawFanOutPair extends LoopScenario {

    /** Jedis flushes only as part of a read; a fan-out writes to every node first. */
    private static final class RawConnection extends Connection {
        RawConnection(HostAndPort hostAndPort) {
            super(hostAndPort, DefaultJedisClientConfig.builder().socketTimeoutMillis(5_000)
                    .autoNegotiateProtocol(false).clientSetInfoConfig(ClientSetInfoConfig.DISABLED).build());
        }

        void send(String... args) {
            sendCommand(Protocol.Command.valueOf(args[0]), java.util.Arrays.copyOfRange(args, 1, args.length));
            flush();
        }
    }

    private final List<RawConnection> nodes = new ArrayList<>();
    private String sha;
    private long token;

    RawFanOutPair(List<String> hostPorts) {
        super(label(hostPorts.size()));
        for (String hostPort : hostPorts) {
            int colon = hostPort.lastIndexOf(':');
            RawConnection node = new RawConnection(new HostAndPort(hostPort.substring(0, colon),
                    Integer.parseInt(hostPort.substring(colon + 1))));
            node.send("SCRIPT", "LOAD", Floor.COMPARE_AND_DELETE);
            sha = node.getBulkReply();
            nodes.add(node);
        }
    }

    static String label(int nodes) {
        return "floor: raw pair fanned out to " + nodes + " nodes (write to all, then read all)";
    }

    @Override
    void op() {
        String value = Long.toString(++token);
        for (RawConnection node : nodes) {
            node.send("SET", "floor:fan-out", value, "NX", "PX", "10000");
        }
        for (int i = 0; i < nodes.size(); i++) {
            String reply = nodes.get(i).getStatusCodeReply();
            if (!"OK".equals(reply)) {
                throw new IllegalStateException("floor:fan-out was held on node " + i + ": " + reply);
            }
        }
        for (RawConnection node : nodes) {
            node.send("EVALSHA", sha, "1", "floor:fan-out", value);
        }
        for (int i = 0; i < nodes.size(); i++) {
            Object reply = nodes.get(i).getOne();
            if (!Long.valueOf(1).equals(reply)) {
                throw new IllegalStateException("compare-and-delete on node " + i + " answered " + reply);
            }
        }
    }

    @Override
    public void close() {
        nodes.forEach(Connection::close);
    }
}
