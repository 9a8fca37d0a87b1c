package io.distlock.tair.internal;

import io.distlock.tair.internal.StrayWrites.ClientRef;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which server-side connections the driver kills before its next command. */
class StrayWritesTest {

    private static final ClientRef A = new ClientRef(1, "127.0.0.1:40001");
    private static final ClientRef B = new ClientRef(2, "127.0.0.1:40002");

    @Test
    void anAnsweredWriteLeavesNothingToKill() {
        StrayWrites strays = new StrayWrites();
        strays.sending("t1", A);
        strays.settled("t1", A, true);
        assertThat(strays.noSuspects()).isTrue();
        assertThat(strays.toKill("t1")).isEmpty();
    }

    @Test
    void aWriteWhoseReplyWasGivenUpIsKilledBeforeAnyNextCommandOnceOnly() {
        StrayWrites strays = new StrayWrites();
        strays.sending("t1", A);
        strays.settled("t1", A, false);
        assertThat(strays.noSuspects()).isFalse();
        assertThat(strays.toKill(null)).containsExactly(A);
        assertThat(strays.toKill("another token")).containsExactly(A);
        strays.killed(List.of(A));
        assertThat(strays.toKill(null)).isEmpty();
    }

    @Test
    void anAbandonAlsoKillsTheConnectionStillSendingForItsToken() {
        StrayWrites strays = new StrayWrites();
        strays.sending("t1", A); // an interrupted acquire whose thread still waits for the reply
        strays.sending("t2", B);
        assertThat(strays.noSuspects()).isTrue();
        assertThat(strays.toKill(null)).isEmpty();
        assertThat(strays.toKill("t1")).containsExactly(A);
        strays.settled("t1", A, false); // its connection was killed under it: a suspect, killed again harmlessly
        assertThat(strays.toKill("t1")).containsExactly(A);
    }

    @Test
    void anExtensionWithoutATokenOnlyMakesASuspectWhenUnanswered() {
        StrayWrites strays = new StrayWrites();
        strays.settled(null, B, true);
        assertThat(strays.toKill(null)).isEmpty();
        strays.settled(null, B, false);
        assertThat(strays.toKill(null)).containsExactly(B);
    }
}
