package io.distlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an etcd member says it did, read from its Prometheus endpoint ({@code /metrics}, served on
 * the member's client URL over plain HTTP): gRPC requests received per method
 * ({@code grpc_server_msg_received_total} — for a unary call the same count as
 * {@code grpc_server_handled_total}, and for a stream it counts each message, so a keep-alive on a
 * long-lived {@code LeaseKeepAlive} stream counts as one request too), calls completed per method
 * ({@code grpc_server_handled_total}, any code), write-ahead-log fsyncs and the member's CPU time.
 * Every figure is cumulative since the member started; rows take the difference of two readings.
 *
 * @param received  gRPC request messages received, by method ({@code Txn}, {@code Range}, {@code LeaseKeepAlive}, ...)
 * @param handled   gRPC calls completed, by method
 * @param fsyncs    WAL fsyncs ({@code etcd_disk_wal_fsync_duration_seconds_count}): one per Raft entry batch written
 * @param cpuSeconds the member process's CPU seconds, user + system ({@code process_cpu_seconds_total})
 */
record EtcdMetrics(Map<String, Double> received, Map<String, Double> handled, double fsyncs, double cpuSeconds) {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * @param endpoint the member's own client address, {@code host:port}
     * @return the member's counters now
     */
    static EtcdMetrics read(String endpoint) {
        String text;
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + endpoint + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("etcd at " + endpoint + " answered /metrics with HTTP " + response.statusCode());
            }
            text = response.body();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /metrics of etcd at " + endpoint, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading /metrics of etcd at " + endpoint, e);
        }
        return parse(text);
    }

    /** Parses the Prometheus text format, keeping only the counters named in the class comment. */
    static EtcdMetrics parse(String text) {
        Map<String, Double> received = new TreeMap<>();
        Map<String, Double> handled = new TreeMap<>();
        double fsyncs = 0;
        double cpu = 0;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String series = line.substring(0, space);
            double value = Double.parseDouble(line.substring(space + 1).trim());
            if (series.startsWith("grpc_server_msg_received_total{")) {
                received.merge(label(series, "grpc_method"), value, Double::sum);
            } else if (series.startsWith("grpc_server_handled_total{")) {
                handled.merge(label(series, "grpc_method"), value, Double::sum);
            } else if (series.equals("etcd_disk_wal_fsync_duration_seconds_count")) {
                fsyncs = value;
            } else if (series.equals("process_cpu_seconds_total")) {
                cpu = value;
            }
        }
        return new EtcdMetrics(received, handled, fsyncs, cpu);
    }

    private static String label(String series, String name) {
        int at = series.indexOf(name + "=\"");
        if (at < 0) {
            return "?";
        }
        int from = at + name.length() + 2;
        return series.substring(from, series.indexOf('"', from));
    }

    /** @return what happened between {@code earlier} and this reading */
    EtcdMetrics since(EtcdMetrics earlier) {
        return new EtcdMetrics(minus(received, earlier.received), minus(handled, earlier.handled),
                fsyncs - earlier.fsyncs, cpuSeconds - earlier.cpuSeconds);
    }

    /** @return the sum of this and {@code other} (both differences) */
    EtcdMetrics plus(EtcdMetrics other) {
        Map<String, Double> r = new TreeMap<>(received);
        other.received.forEach((k, v) -> r.merge(k, v, Double::sum));
        Map<String, Double> h = new TreeMap<>(handled);
        other.handled.forEach((k, v) -> h.merge(k, v, Double::sum));
        return new EtcdMetrics(r, h, fsyncs + other.fsyncs, cpuSeconds + other.cpuSeconds);
    }

    static EtcdMetrics none() {
        return new EtcdMetrics(Map.of(), Map.of(), 0, 0);
    }

    /** @return gRPC request messages received, every method */
    double requests() {
        return received.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** @return gRPC request messages received for {@code method} */
    double requests(String method) {
        return received.getOrDefault(method, 0.0);
    }

    /** @return gRPC calls completed, every method (a stream counts once, when it ends) */
    double calls() {
        return handled.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** @return gRPC calls of {@code method} completed */
    double calls(String method) {
        return handled.getOrDefault(method, 0.0);
    }

    private static Map<String, Double> minus(Map<String, Double> later, Map<String, Double> earlier) {
        Map<String, Double> out = new HashMap<>();
        later.forEach((k, v) -> {
            double d = v - earlier.getOrDefault(k, 0.0);
            if (d != 0) {
                out.put(k, d);
            }
        });
        return new TreeMap<>(out);
    }
}
