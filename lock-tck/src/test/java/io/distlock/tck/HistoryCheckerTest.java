package io.distlock.tck;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

class HistoryCheckerTest {

    private static final long MS = 1_000_000;

    private final History history = new History();
    private final long t0 = history.originNanos();

    private long lease(String client, long fromMs, long validMs, long token) {
        return history.acquired(client, "lock", t0 + fromMs * MS, t0 + (fromMs + validMs) * MS, OptionalLong.of(token));
    }

    @Test
    void releasedBeforeTheNextGrantIsNoOverlap() {
        long a = lease("a", 0, 100, 1);
        history.releasing(a, t0 + 10 * MS);
        lease("b", 11, 100, 2);

        assertThat(HistoryChecker.check(history)).isEmpty();
    }

    @Test
    void anExpiredLeaseNeedsNoRelease() {
        lease("a", 0, 100, 1);
        lease("b", 100, 100, 2);

        assertThat(HistoryChecker.check(history)).isEmpty();
    }

    @Test
    void overlapIsReportedWithBothLeases() {
        lease("a", 0, 100, 1);
        lease("b", 50, 100, 2);

        List<HistoryChecker.Violation> violations = HistoryChecker.overlappingLeases(history);

        assertThat(violations).singleElement().satisfies(v -> {
            assertThat(v.kind()).isEqualTo(HistoryChecker.Violation.Kind.OVERLAPPING_LEASES);
            assertThat(v.events()).extracting(History.Event::client).containsExactly("a", "b");
            assertThat(v.message()).contains("a lease#1 ACQUIRED", "b lease#2 ACQUIRED", "for 50.000 ms", "token 1", "token 2");
        });
    }

    @Test
    void overlapWithALongLeaseIsFoundPastShorterOnes() {
        lease("long", 0, 1000, 1);
        long b = lease("b", 100, 10, 2);
        history.releasing(b, t0 + 105 * MS);
        lease("c", 500, 10, 3);

        assertThat(HistoryChecker.overlappingLeases(history)).hasSize(2)
                .allSatisfy(v -> assertThat(v.message()).contains("long lease#1"));
    }

    @Test
    void differentLocksNeverOverlap() {
        lease("a", 0, 100, 1);
        history.acquired("b", "other", t0 + 50 * MS, t0 + 150 * MS, OptionalLong.of(1));

        assertThat(HistoryChecker.check(history)).isEmpty();
    }

    @Test
    void leasesThatArrivedExpiredTakePartInNoOrdering() {
        lease("a", 0, 100, 5);
        history.acquired("late", "lock", t0 + 300 * MS, t0 + 290 * MS, OptionalLong.of(4));
        lease("b", 400, 100, 6);

        assertThat(HistoryChecker.check(history)).isEmpty();
    }

    @Test
    void tokensMustIncreaseInGrantOrder() {
        lease("a", 0, 100, 5);
        lease("b", 200, 100, 3);

        assertThat(HistoryChecker.fencingOrder(history)).singleElement()
                .satisfies(v -> assertThat(v.message()).startsWith("fencing token did not increase").contains("token 5", "token 3"));
    }

    @Test
    void aTokenGrantedTwiceIsReportedEvenForAnExpiredArrival() {
        lease("a", 0, 100, 7);
        history.acquired("late", "lock", t0 + 300 * MS, t0 + 300 * MS, OptionalLong.of(7));

        assertThat(HistoryChecker.fencingOrder(history)).singleElement()
                .satisfies(v -> assertThat(v.message()).startsWith("two grants carry the same fencing token 7"));
    }

    @Test
    void aRejectedWriteCountsOnlyInsideTheValidInterval() {
        long a = lease("a", 0, 100, 1);
        history.write(a, t0 + 50 * MS, false);
        history.write(a, t0 + 150 * MS, false);
        history.releasing(a, t0 + 60 * MS);

        assertThat(HistoryChecker.rejectedValidWrites(history)).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("REJECTED", "+50.000 ms"));
    }

    @Test
    void describeLimitsTheList() {
        lease("a", 0, 1000, 1);
        for (int i = 0; i < 7; i++) {
            lease("b" + i, 10 + i, 5, 2 + i);
        }
        List<HistoryChecker.Violation> violations = HistoryChecker.overlappingLeases(history);

        assertThat(HistoryChecker.describe(violations, 5)).contains("... and 2 more");
    }
}
