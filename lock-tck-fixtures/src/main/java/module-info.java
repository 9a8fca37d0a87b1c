/**
 * Real servers for tests on free loopback ports, fault proxies in front of them and throw-away
 * certificates: {@code io.distlock.tck.fixtures}. Beside the TCK as curator-test and jetcd-test
 * stand beside their libraries: a backend's tests add it to start their servers, and it is the
 * ready-made hook ({@code FaultProxy.partitionedClient}, {@code EtcdCluster.faults()},
 * {@code RedisReplicaSet.replicaFailover}) a verification hands the TCK.
 */
@SuppressWarnings("requires-automatic")
module io.distlock.tck.fixtures {
    // Its public signatures name the TCK's hook interfaces (which bring io.distlock along).
    requires transitive io.distlock.tck;
    // EtcdCluster's operator actions go through etcd's JSON gateway.
    requires java.net.http;
    // RedisServer's Docker runtime only; never loaded without them (RedisContainerRuntime).
    requires static testcontainers;
    requires static com.github.dockerjava.api;
    // BackendPackagingCheck's ArchUnit rules only; its signatures name no ArchUnit type, and a test
    // that extends it has ArchUnit on its own path.
    requires static com.tngtech.archunit;
    // HazelcastMember only, the main class of HazelcastCluster's member JVMs (which have their own
    // member jar); HazelcastCluster names no Hazelcast type. An automatic module.
    requires static com.hazelcast.core;

    exports io.distlock.tck.fixtures;
}
