package io.distlock.cli.report;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading a page as headless Chromium dumped it ({@link Chromium#dumpDom}): its parts, found as text. */
public final class Dom {

    private Dom() {
    }

    /** @return the part of {@code s} from {@code from} to the first {@code to} after it, both included; fails if either is missing */
    public static String between(String s, String from, String to) {
        int start = s.indexOf(from);
        assertThat(start).as("%s in the page", from).isNotNegative();
        int end = s.indexOf(to, start);
        assertThat(end).as("%s after %s", to, from).isNotNegative();
        return s.substring(start, end + to.length());
    }

    /** @return every {@code <svg class="cls">…</svg>} of the page, in order */
    public static List<String> svgs(String dom, String cls) {
        List<String> found = new ArrayList<>();
        Matcher m = Pattern.compile("<svg class=\"" + cls + "\"(.*?)</svg>", Pattern.DOTALL).matcher(dom);
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    /** @return how many times {@code what} occurs in {@code s} */
    public static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }
}
