package io.distlock.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Where output goes and how it looks: tables for people, refreshes in place only on a terminal. */
final class Console {

    private Console() {
    }

    /** @return whether a person is at a terminal (standard input and output both attached to it) */
    static boolean interactive() {
        return System.console() != null && !"dumb".equals(System.getenv("TERM"));
    }

    /** Clears a terminal's screen and homes the cursor (ANSI), for {@code --watch}. */
    static void clear(PrintWriter out) {
        out.print("\033[H\033[2J");
        out.flush();
    }

    /** Prints rows as a table with a header, each column as wide as its widest cell. */
    static void table(PrintWriter out, List<String> header, List<List<String>> rows) {
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        int[] widths = new int[header.size()];
        for (List<String> row : all) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i);
                line.append(cell);
                if (i < row.size() - 1) {
                    line.append(" ".repeat(widths[i] - cell.length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }
}
