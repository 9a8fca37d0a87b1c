package io.distlock.cli;

import io.distlock.tck.fixtures.HazelcastCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The question a Hazelcast user brings to {@code distlock check}: which lock does my cluster give me?
 * Through the real {@code bin/distlock}, against real members in JVMs of their own: three 5.3.8 members
 * with a CP Subsystem audited as {@code hazelcast://} (a CORRECTNESS lock, fenced), one 5.7.0 Community
 * member audited as {@code hazelcast-map://} (an EFFICIENCY lock) and refused as {@code hazelcast://}
 * with the reason and the alternatives; neither offers inspection.
 */
class HazelcastCommandsTest {

    /** The member versions lock-cli's pom copies into target/hazelcast-members (as lock-hazelcast's tests use them). */
    private static final String CP_VERSION = "5.3.8";
    private static final String COMMUNITY_VERSION = "5.7.0";

    private static HazelcastCluster cp;
    private static HazelcastCluster community;

    @BeforeAll
    static void startMembers() {
        CompletableFuture<HazelcastCluster> withCp = CompletableFuture.supplyAsync(() ->
                HazelcastCluster.start(HazelcastCluster.memberJar(CP_VERSION), 3, true));
        try {
            community = HazelcastCluster.start(HazelcastCluster.memberJar(COMMUNITY_VERSION), 1, false);
        } finally {
            cp = withCp.join();
        }
    }

    @AfterAll
    static void stopMembers() {
        if (community != null) {
            community.close();
        }
        if (cp != null) {
            cp.close();
        }
    }

    @Test
    void aClusterWithACpSubsystemIsAuditedAsACorrectnessLock() {
        Distlock.Result r = Distlock.launcher().run(Duration.ofMinutes(3), "check", cp.uri("hazelcast", ""), "--quick", "--clients", "4");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).contains("(hazelcast, CORRECTNESS)", "PASSED  1.1", "PASSED  1.4", "every rule that ran passed")
                .doesNotContain("FAILED");
    }

    @Test
    void aCommunityClusterIsAuditedAsAnEfficiencyLockAndRefusedAsACpOne() {
        Distlock.Result map = Distlock.launcher().run(Duration.ofMinutes(3), "check", community.uri("hazelcast-map", ""), "--quick",
                "--clients", "4");
        assertThat(map.exitCode()).as(map.toString()).isZero();
        assertThat(map.out()).contains("(hazelcast-map, EFFICIENCY)", "PASSED  1.1", "every rule that ran passed")
                .doesNotContain("FAILED");
        assertThat(map.out()).as("Hazelcast's client logs to standard error only").doesNotContain("com.hazelcast");
        assertThat(map.err()).as("Hazelcast's client logs only warnings and errors, one line each, and not its"
                + " shutdown false alarm").doesNotContain("INFO", "\tat ", "on completed future");

        Distlock.Result fenced = Distlock.launcher().run(Duration.ofMinutes(1), "check", community.uri("hazelcast", ""), "--quick");
        // The backend refuses the URI (IllegalArgumentException): the wrong scheme for this cluster is bad input.
        assertThat(fenced.exitCode()).as(fenced.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(fenced.err()).contains("CP Subsystem", "hazelcast-map://", "zookeeper://", "etcd://");
    }

    @Test
    void neitherLockOffersInspection() {
        for (String uri : new String[] {cp.uri("hazelcast", ""), community.uri("hazelcast-map", "")}) {
            Distlock.Result r = Distlock.launcher().run("holders", uri);
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.UNSUPPORTED);
            assertThat(r.err()).contains("INSPECTION");
        }
    }
}
