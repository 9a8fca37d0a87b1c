package io.distlock.cli.bench;

import io.distlock.Credentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Which URIs get a raw floor, read how, and which get a reason instead. */
class BenchFloorPlanTest {

    @Test
    void aRedisUriGivesItsServerDatabaseAndDecodedCredentials() {
        FloorPlan plan = FloorPlan.of("redis://locker:p%40ss+word@10.1.2.3:6380/2?poolSize=4&clientName=x", Optional.empty());

        assertThat(plan).isEqualTo(new FloorPlan.At("10.1.2.3", 6380, 2, "locker", "p@ss+word", 0, 50));
        assertThat(plan.toString()).doesNotContain("p@ss").contains("***");
    }

    @Test
    void defaultsArePort6379DatabaseZeroAndNoCredentials() {
        assertThat(FloorPlan.of("tair://127.0.0.1", Optional.empty()))
                .isEqualTo(new FloorPlan.At("127.0.0.1", 6379, 0, null, null, 0, 50));
        assertThat(FloorPlan.of("redis://:secret@[::1]:7000/", Optional.empty()))
                .isEqualTo(new FloorPlan.At("::1", 7000, 0, null, "secret", 0, 50));
    }

    @Test
    void credentialsGivenOutsideTheUriAreUsedWhenItHasNone() {
        assertThat(FloorPlan.of("redis://127.0.0.1:6379", Optional.of(Credentials.of("bench", "pw"))))
                .isEqualTo(new FloorPlan.At("127.0.0.1", 6379, 0, "bench", "pw", 0, 50));
    }

    @Test
    void aRedisWaitPrimaryWaitsForItsReplicasAsTheBackendDoes() {
        FloorPlan plan = FloorPlan.of("redis-wait://127.0.0.1:6379?replicas=2&waitTimeout=80", Optional.empty());

        assertThat(plan).isEqualTo(new FloorPlan.At("127.0.0.1", 6379, 0, null, null, 2, 80));
        assertThat(((FloorPlan.At) plan).commands()).isEqualTo("SET NX PX + WAIT 2, pipelined; EVALSHA compare-and-delete");
        assertThat(((FloorPlan.At) FloorPlan.of("redis-wait://h:1", Optional.empty())).waitReplicas()).isOne();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "zookeeper://127.0.0.1:2181/locks | no raw floor for zookeeper: only a single Redis-protocol server",
            "etcd://127.0.0.1:2379 | no raw floor for etcd: only a single Redis-protocol server",
            "redlock://a:1,b:2,c:3 | no raw floor for redlock: only a single Redis-protocol server",
            "redis-cluster://a:1,b:2,c:3 | no raw floor for redis-cluster: only a single Redis-protocol server",
            "redis-cluster://127.0.0.1:7000 | no raw floor for redis-cluster: only a single Redis-protocol server",
            "rediss://127.0.0.1:6379 | no raw floor for rediss: the raw client does not set TLS up",
            "redis://127.0.0.1:6379?tls=true | no raw floor for redis over TLS",
            "tair://127.0.0.1:6379?tls=true&trustStore=/x.p12 | no raw floor for tair over TLS",
            "redis-wait://s1:26379,s2:26379?master=m | no raw floor for redis-wait: the URI names several hosts",
            "redis-wait://s1:26379?master=m | no raw floor for redis-wait through Sentinel",
            "redis://127.0.0.1:6379?somethingNew=1 | no raw floor for redis: the raw client cannot honour option 'somethingNew'",
            "redis://127.0.0.1:6379/x | no raw floor for redis: the path '/x' is not a database number"})
    void whatTheRawClientCannotHonourGivesAReason(String uri, String reason) {
        FloorPlan plan = FloorPlan.of(uri, Optional.empty());

        assertThat(plan).isInstanceOf(FloorPlan.None.class);
        assertThat(((FloorPlan.None) plan).reason()).startsWith(reason);
    }

    @Test
    void tlsFalseIsPlainRedis() {
        assertThat(FloorPlan.of("redis://127.0.0.1:6379?tls=false", Optional.empty())).isInstanceOf(FloorPlan.At.class);
    }
}
