package io.distlock.zookeeper.internal;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ZkPathsTest {

    @Test
    void encodesEveryNameIntoAValidDistinctZnodeName() {
        List<String> names = List.of("job", "JOB", "a/b", "a%2Fb", ".", "..", "x y", "ñ", "n", "\u6f22", "zookeeper", "a_b-c");
        Set<String> encoded = new HashSet<>();
        for (String name : names) {
            String e = ZkPaths.encode(name);
            assertThat(e).matches("[A-Za-z0-9_%-]+").isNotIn(".", "..");
            encoded.add(e);
        }
        assertThat(encoded).hasSameSizeAs(names);
        assertThat(ZkPaths.encode("a/b")).isEqualTo("a%2Fb");
        assertThat(ZkPaths.encode("job-1_x")).isEqualTo("job-1_x");
    }

    @Test
    void ordersTheQueueBySequenceAndRecognisesItsOwnNodes() {
        String token = "AbC-d_123456789012345678";
        List<String> queue = ZkPaths.queue(List.of("lock-zz-0000000010", "other", "lock-" + token + "-0000000002", ".probe-0000000001"));
        assertThat(queue).containsExactly("lock-" + token + "-0000000002", "lock-zz-0000000010");
        assertThat(ZkPaths.ownedBy("lock-" + token + "-0000000002", token)).isTrue();
        assertThat(ZkPaths.ownedBy("lock-" + token + "x-0000000002", token)).isFalse();
        assertThat(ZkPaths.ownedBy("lock-zz-0000000010", token)).isFalse();
    }

    @Test
    void decodesOnlyTheEncodingDistlockWritesAndHidesTheOwnerTokenOfANodeShown() {
        for (String name : List.of("job", "a/b", "x y", "\u00f1", "\u6f22", "a%2Fb", ".", "a_b-c")) {
            assertThat(ZkPaths.decode(ZkPaths.encode(name))).as(name).isEqualTo(name);
        }
        assertThat(ZkPaths.decode(ZkPaths.REVOKED)).as("the revocation records' node is no lock").isNull();
        assertThat(ZkPaths.decode("a%2fb")).as("lower-case hex is not distlock's").isNull();
        assertThat(ZkPaths.decode("a%2")).isNull();
        assertThat(ZkPaths.decode("%FF")).as("not UTF-8").isNull();
        assertThat(ZkPaths.decode("a.b")).isNull();
        String token = "AbC-d_123456789012345678";
        String child = "lock-" + token + "-0000000042";
        assertThat(ZkPaths.ownerToken(child)).isEqualTo(token);
        assertThat(ZkPaths.shown("/d/job", child)).isEqualTo("/d/job/lock-*-0000000042").doesNotContain(token);
        assertThat(ZkPaths.record("/d", token)).isEqualTo("/d/.revoked/" + token);
    }
}
