package io.distlock.zookeeper.internal;

import io.distlock.spi.Hold;
import io.distlock.zookeeper.internal.LineRules.Verdict;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Who a line lets in and what a waiter watches, read off lines written by hand. */
class LineRulesTest {

    private static final String TOKEN = "AbC-d_12-34";

    private static List<String> line(String... prefixes) {
        List<String> line = new ArrayList<>();
        for (int i = 0; i < prefixes.length; i++) {
            line.add(prefixes[i] + TOKEN + i + "-" + String.format("%010d", i + 1));
        }
        return line;
    }

    @Test
    void aReaderIsLetInWhileNoWriterIsAheadAndWatchesTheClosestWriterAhead() {
        List<String> line = line("read-", "read-", "write-", "read-", "write-", "read-", "read-");
        assertThat(LineRules.judge(Hold.READ, line, 0).granted()).isTrue();
        assertThat(LineRules.judge(Hold.READ, line, 1).granted()).isTrue();
        assertThat(LineRules.judge(Hold.READ, line, 3)).isEqualTo(Verdict.waitFor(List.of(line.get(2))));
        assertThat(LineRules.judge(Hold.READ, line, 6)).as("the closest writer, not the first").isEqualTo(Verdict.waitFor(List.of(line.get(4))));
    }

    @Test
    void aWriterIsLetInOnlyWhenFirstAndWatchesItsPredecessor() {
        List<String> line = line("write-", "read-", "read-", "write-");
        assertThat(LineRules.judge(Hold.WRITE, line, 0).granted()).isTrue();
        assertThat(LineRules.judge(Hold.WRITE, line, 3)).isEqualTo(Verdict.waitFor(List.of(line.get(2))));
        assertThat(LineRules.judge(Hold.WRITE, line("read-", "write-"), 1).granted()).as("behind a reader").isFalse();
    }

    @Test
    void aPermitIsLetInAmongTheFirstNAndWatchesTheNNodesAheadOfIt() {
        Hold two = Hold.permit(2);
        List<String> line = line("permit-2-", "permit-2-", "permit-2-", "permit-2-", "permit-2-");
        assertThat(LineRules.judge(two, line, 0).granted()).isTrue();
        assertThat(LineRules.judge(two, line, 1).granted()).isTrue();
        assertThat(LineRules.judge(two, line, 2)).isEqualTo(Verdict.waitFor(line.subList(0, 2)));
        assertThat(LineRules.judge(two, line, 4)).isEqualTo(Verdict.waitFor(line.subList(2, 4)));
        // B goes from A B C: C is let in although A, the node two places ahead of it, is still there.
        List<String> afterB = new ArrayList<>(line.subList(0, 3));
        afterB.remove(1);
        assertThat(LineRules.judge(two, afterB, 1).granted()).isTrue();
    }

    @Test
    void aPermitIsRefusedForANodeAheadWithAnotherCountAndNotForOneBehind() {
        List<String> line = line("permit-3-", "permit-2-", "permit-3-");
        assertThat(LineRules.judge(Hold.permit(2), line, 1)).isEqualTo(Verdict.mismatch(3));
        assertThat(LineRules.judge(Hold.permit(3), line, 0).granted()).as("the one behind refuses itself").isTrue();
        assertThat(LineRules.judge(Hold.permit(3), line, 2).refused()).as("one ahead with another count refuses").isTrue();
    }

    /**
     * The holds of a line as an inspector reads them in one pass: every node its own request would
     * judge let in, on lines of every shape (random ones too); they are the head of the line.
     */
    @Test
    void theHoldsOfALineAreTheNodesTheRulesLetInAndTheyAreItsHead() {
        assertThat(LineRules.holding(line("read-", "read-", "write-", "read-"))).hasSize(2);
        assertThat(LineRules.holding(line("write-", "read-", "write-"))).hasSize(1);
        assertThat(LineRules.holding(line("permit-2-", "permit-2-", "permit-2-"))).hasSize(2);
        assertThat(LineRules.holding(line("permit-3-", "permit-2-", "permit-3-"))).as("another count between them").hasSize(1);
        assertThat(LineRules.holding(List.of())).isEmpty();
        java.util.Random random = new java.util.Random(25);
        List<String> kinds = List.of("read-", "write-", "permit-1-", "permit-2-", "permit-3-");
        for (int round = 0; round < 2_000; round++) {
            boolean rw = random.nextBoolean();
            String[] prefixes = new String[random.nextInt(8)];
            for (int i = 0; i < prefixes.length; i++) {
                prefixes[i] = rw ? kinds.get(random.nextInt(2)) : random.nextInt(6) == 0 ? kinds.get(2 + random.nextInt(3)) : "permit-2-";
            }
            List<String> line = line(prefixes);
            List<String> judged = new ArrayList<>();
            for (int place = 0; place < line.size(); place++) {
                boolean holds = LineRules.judge(ZkPaths.holdOf(line.get(place)), line, place).granted();
                assertThat(LineRules.holds(line, place)).isEqualTo(holds);
                if (holds) {
                    judged.add(line.get(place));
                }
            }
            assertThat(LineRules.holding(line)).as("%s", line).isEqualTo(judged).isEqualTo(line.subList(0, judged.size()));
        }
    }

    @Test
    void aHoldsIdIsItsNodesSequenceAndItsDirectorysLifeNeverItsOwnerToken() {
        String child = "permit-3-" + TOKEN + "-0000000042";
        assertThat(ZkPaths.holdId(child, 0x1000000a3L)).isEqualTo("0000000042-1000000a3").doesNotContain(TOKEN);
        assertThat(ZkPaths.parseHoldId("0000000042-1000000a3")).isEqualTo(new ZkPaths.HoldKey("0000000042", 0x1000000a3L));
        assertThat(ZkPaths.parseHoldId("42-1000000a3")).as("leading zeros left out").isEqualTo(new ZkPaths.HoldKey("0000000042", 0x1000000a3L));
        assertThat(ZkPaths.parseHoldId("0-ffffffffffffffff")).isEqualTo(new ZkPaths.HoldKey("0000000000", -1L));
        for (String notOne : List.of("", "42", "-1a", "42-", "00000000042-1", "4 2-1", "42-1A", "42-1-2", "42-10000000000000000", "x-1",
                TOKEN, "\u0664\u0662-1")) {
            assertThat(ZkPaths.parseHoldId(notOne)).as(notOne).isNull();
        }
        assertThat(ZkPaths.sequenceOf(child)).isEqualTo("0000000042");
        assertThat(ZkPaths.shownHold("/c/.semaphore/s", child)).isEqualTo("/c/.semaphore/s/permit-3-*-0000000042");
        assertThat(ZkPaths.shownHold("/c/.rw/s", "write-" + TOKEN + "-0000000007")).isEqualTo("/c/.rw/s/write-*-0000000007");
        assertThat(ZkPaths.holdOf(child)).isEqualTo(Hold.permit(3));
        assertThat(ZkPaths.holdOf("read-" + TOKEN + "-0000000001")).isEqualTo(Hold.READ);
        assertThat(ZkPaths.holdOf("write-" + TOKEN + "-0000000001")).isEqualTo(Hold.WRITE);
    }

    @Test
    void eachPrimitiveHasItsOwnDirectoryThatNoLockNameReaches() {
        for (String name : List.of(".rw", ".semaphore", ".rw/x", ".semaphore/x", "rw", "semaphore/x", "x")) {
            String lock = ZkPaths.dir("/c", name, Hold.EXCLUSIVE);
            assertThat(lock).as(name).doesNotStartWith("/c/.");
            assertThat(lock.substring(3)).as(name).doesNotContain("/");
        }
        assertThat(ZkPaths.dir("/c", "x", Hold.READ)).isEqualTo("/c/.rw/x").isEqualTo(ZkPaths.dir("/c", "x", Hold.WRITE));
        assertThat(ZkPaths.dir("/c", "x", Hold.permit(4))).isEqualTo("/c/.semaphore/x");
        assertThat(ZkPaths.decode(ZkPaths.READ_WRITE)).isNull();
        assertThat(ZkPaths.decode(ZkPaths.SEMAPHORES)).isNull();
    }

    @Test
    void nodeNamesCarryTheHoldTheOwnerTokenAndThePermitCount() {
        String token = "7-9_ab-0000000001";
        String permit = ZkPaths.prefix(Hold.permit(12)) + token + "-0000000042";
        assertThat(permit).startsWith("permit-12-");
        assertThat(ZkPaths.prefixOf(permit)).isEqualTo("permit-12-");
        assertThat(ZkPaths.permitsOf(permit)).isEqualTo(12);
        assertThat(ZkPaths.ownerToken(permit)).isEqualTo(token);
        assertThat(ZkPaths.ownedBy(permit, Hold.permit(12), token)).isTrue();
        assertThat(ZkPaths.ownedBy(permit, Hold.permit(1), token)).isFalse();
        String read = "read-" + token + "-0000000007";
        assertThat(ZkPaths.ownedBy(read, Hold.READ, token)).isTrue();
        assertThat(ZkPaths.ownedBy(read, Hold.WRITE, token)).isFalse();
        assertThat(ZkPaths.ownerToken(read)).isEqualTo(token);
        assertThat(ZkPaths.queue(List.of("write-a-0000000003", read, "permit-2-a-0000000001", "lock-a-0000000002", "x"), Hold.WRITE))
                .containsExactly("write-a-0000000003", read);
        assertThat(ZkPaths.queue(List.of("write-a-0000000003", "permit-2-a-0000000001", "permit-0-a-0000000004",
                "permit--a-0000000005"), Hold.permit(2))).containsExactly("permit-2-a-0000000001");
    }
}
