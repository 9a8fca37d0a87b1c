package io.distlock.spi;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Lock names as path segments and back: every name round-trips, and nothing else reads as a name. */
class LockNamesTest {

    @Test
    void everyNameReadsBackFromItsSegment() {
        for (String name : List.of("nightly-reconciliation", "a/b", ".", "..", "Ünïcode ✓", "100%", "a.b", "x}:fence", "_-")) {
            String segment = LockNames.pathSegment(name);
            assertThat(segment).doesNotContain("/");
            assertThat(LockNames.nameOf(segment)).as(name).contains(name);
        }
    }

    @Test
    void onlyTheEncodingDistlockWritesIsAName() {
        assertThat(LockNames.nameOf(".revoked")).as("a revocation records' node").isEmpty();
        assertThat(LockNames.nameOf("a%2e")).as("lowercase hex: not what pathSegment writes").isEmpty();
        assertThat(LockNames.nameOf("%61")).as("an escaped letter").isEmpty();
        assertThat(LockNames.nameOf("%FF")).as("not UTF-8").isEmpty();
        assertThat(LockNames.nameOf("a%2")).as("a cut escape").isEmpty();
        assertThat(LockNames.nameOf("é")).as("a raw non-ASCII character").isEmpty();
        assertThat(LockNames.nameOf("a%")).isEmpty();
    }
}
