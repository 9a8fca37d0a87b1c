package io.distlock.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Wraps an etcd row: around each of its recorded slices, reads the member's {@code /metrics}
 * ({@link EtcdMetrics}) and adds to the row's notes what the server did per operation — gRPC
 * requests in all and by method (methods below 0.05 per operation are left out: the other
 * clients' keep-alives on the same member), and WAL fsyncs; a contended row's per grant, every
 * grant counted ({@link Scenario#served()}). That is how the rows count round
 * trips: on the server, the same way for every library. The readings happen between slices,
 * outside the timed loop.
 */
final class EtcdMetered implements Scenario {

    private final Scenario row;
    private final String endpoint;
    private EtcdMetrics seen = EtcdMetrics.none();

    /**
     * @param row      the row
     * @param endpoint the member's own client address, {@code host:port}
     */
    EtcdMetered(Scenario row, String endpoint) {
        this.row = row;
        this.endpoint = endpoint;
    }

    @Override
    public String name() {
        return row.name();
    }

    @Override
    public void runSlice(long nanos, boolean record) throws Exception {
        if (!record) {
            row.runSlice(nanos, false);
            return;
        }
        EtcdMetrics before = EtcdMetrics.read(endpoint);
        row.runSlice(nanos, true);
        seen = seen.plus(EtcdMetrics.read(endpoint).since(before));
    }

    @Override
    public Measurement result() {
        Measurement m = row.result();
        double ops = Math.max(1, row.served());
        Map<String, Double> extras = new LinkedHashMap<>(m.extras());
        extras.put("server requests per op", seen.requests() / ops);
        seen.received().forEach((method, count) -> {
            if (count / ops >= 0.05) {
                extras.put(method + " per op", count / ops);
            }
        });
        extras.put("WAL fsyncs per op", seen.fsyncs() / ops);
        return new Measurement(m.name(), m.opsPerSec(), m.p50(), m.p99(), m.p999(), m.count(), extras);
    }

    @Override
    public long served() {
        return row.served();
    }

    @Override
    public boolean onRedis() {
        return false;
    }

    @Override
    public void reset() {
        row.reset();
        seen = EtcdMetrics.none();
    }

    @Override
    public void close() {
        row.close();
    }
}
