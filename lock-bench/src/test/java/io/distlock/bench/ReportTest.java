package io.distlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ReportTest {

    @Test
    void aCellIsTheMedianWithTheRangeAcrossRuns() {
        assertThat(Report.cell(new double[] {3, 1, 2}, 1)).isEqualTo("2.0 (1.0–3.0)");
        assertThat(Report.cell(new double[] {4, 1, 2, 3}, 0)).isEqualTo("3 (1–4)"); // 2.5 rounds half-up
        assertThat(Report.cell(new double[] {7}, 2)).isEqualTo("7.00");
        assertThat(Report.cell(new double[0], 2)).isEqualTo("—");
    }

    @Test
    void ratiosAreTakenWithinEachRunAgainstThatRunsPair() {
        Report report = new Report();
        report.addRun(List.of(m(Report.PAIR, 100, 200), m("row", 120, 300)));
        report.addRun(List.of(m(Report.PAIR, 50, 100), m("row", 55, 400)));
        assertThat(report.ratios("row", false)).containsExactly(1.2, 1.1);
        assertThat(report.ratios("row", true)).containsExactly(1.5, 4.0);
        assertThat(report.markdown()).contains("| row | ").contains("| 1.15 (1.10–1.20) |");
    }

    private static Measurement m(String name, double p50, double p99) {
        return new Measurement(name, 1000, p50 * 1000, p99 * 1000, p99 * 2000, 10, Map.of());
    }
}
