package io.distlock.spi;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ServerListTest {

    @Test
    void everyTurnButTheLastEndsByHalfOfWhatIsLeftAndTheLastAtTheDeadline() {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(4);
        long first = ServerList.turnDeadline(deadline, 0, 3);
        long end = System.nanoTime();
        // Half of what was left when it was asked: between half the 4 s and half the 4 s plus the call's own time.
        assertThat(first - start).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(2))
                .isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(2) + (end - start));
        assertThat(ServerList.turnDeadline(deadline, 2, 3)).isEqualTo(deadline);
        assertThat(ServerList.turnDeadline(deadline, 0, 1)).as("a single server has the whole deadline").isEqualTo(deadline);
        long past = System.nanoTime() - 1;
        assertThat(ServerList.turnDeadline(past, 0, 3)).as("nothing left: the turn ends now").isLessThanOrEqualTo(System.nanoTime());
    }
}
