package io.distlock.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Rule 6.4's log capture: while it runs, every log line of the JVM at every level — JDK logging
 * (which the engine's {@link System.Logger} and gRPC use) and SLF4J when
 * {@link CapturingSlf4jProvider} is its provider — is formatted with its stack trace and searched for
 * the verification's secrets as it is written. Only the lines that hold a secret are kept (with the
 * secret masked), so a long run costs no memory.
 *
 * <p>One capture per JVM: verification classes run one after another.
 */
final class LogCapture {

    private static final Object LOCK = new Object();
    private static volatile Set<String> secrets = Set.of();
    private static volatile boolean active;
    private static final AtomicLong lines = new AtomicLong();
    private static final List<String> leaks = new ArrayList<>();
    private static Handler julHandler;
    private static Level julRootLevel;
    private static String startedAt;
    /** What rule 6.4 collects from the rules of group 6 besides the logs: exception texts, toString()s. */
    private static final List<String> seen = new CopyOnWriteArrayList<>();

    private LogCapture() {
    }

    /** @return whether a capture is running: the SLF4J provider then enables every level */
    static boolean active() {
        return active;
    }

    /**
     * Starts capturing, unless a capture is running already (then only adds the secrets).
     *
     * @param newSecrets what no line may contain
     * @param rule       the rule it starts at, for the verdict's note
     */
    static void start(Set<String> newSecrets, String rule) {
        synchronized (LOCK) {
            Set<String> all = new CopyOnWriteArraySet<>(secrets);
            newSecrets.stream().filter(s -> s != null && !s.isEmpty()).forEach(all::add);
            secrets = all;
            if (active) {
                return;
            }
            lines.set(0);
            leaks.clear();
            startedAt = rule;
            Logger root = Logger.getLogger("");
            julRootLevel = root.getLevel();
            julHandler = new Handler() {
                private final SimpleFormatter formatter = new SimpleFormatter();

                @Override
                public void publish(LogRecord record) {
                    accept("JUL " + record.getLevel() + " " + record.getLoggerName(), formatter.format(record));
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            julHandler.setLevel(Level.ALL);
            root.addHandler(julHandler);
            // The console handlers keep their own levels, so the console shows no more than before.
            for (Handler h : root.getHandlers()) {
                if (h != julHandler && h.getLevel().intValue() < Level.INFO.intValue()) {
                    h.setLevel(Level.INFO);
                }
            }
            root.setLevel(Level.ALL);
            active = true;
        }
    }

    /** Stops capturing and forgets the secrets; the JDK logging levels are put back. */
    static void stop() {
        synchronized (LOCK) {
            if (!active) {
                return;
            }
            active = false;
            Logger root = Logger.getLogger("");
            root.removeHandler(julHandler);
            root.setLevel(julRootLevel);
            secrets = Set.of();
        }
    }

    /**
     * Searches one formatted log line (with its stack trace) for the secrets.
     *
     * @param source the logging system, level and logger, for the report
     * @param text   the line as it would be written
     */
    static void accept(String source, String text) {
        if (!active) {
            return;
        }
        lines.incrementAndGet();
        for (String secret : secrets) {
            if (text.contains(secret)) {
                synchronized (LOCK) {
                    if (leaks.size() < 20) {
                        leaks.add(source + ": " + mask(text, secrets));
                    }
                }
            }
        }
    }

    /** @return how many lines were searched since the capture started */
    static long lines() {
        return lines.get();
    }

    /** @return the lines that held a secret (masked), at most 20 */
    static List<String> leaks() {
        synchronized (LOCK) {
            return List.copyOf(leaks);
        }
    }

    /** @return the secrets of the running capture */
    static Set<String> secrets() {
        return secrets;
    }

    /** @return the rule the running capture started at */
    static String startedAt() {
        return startedAt;
    }

    /**
     * Keeps a text that is not a log line for rule 6.4 to search: an exception's stack trace, a
     * {@code toString()}. Group 6's rules run on instances of their own, so the texts outlive each.
     *
     * @param text what a rule of group 6 met
     */
    static void saw(String text) {
        seen.add(text);
    }

    /** @return the texts kept by {@link #saw(String)} since {@link #forgetSeen()} */
    static List<String> seen() {
        return List.copyOf(seen);
    }

    /** Forgets the texts kept by {@link #saw(String)}, once rule 6.4 has searched them. */
    static void forgetSeen() {
        seen.clear();
    }

    /**
     * @param text    any text
     * @param secrets what to hide
     * @return the text with each secret replaced by {@code ***}, cut to one line of at most 300 characters
     */
    static String mask(String text, Set<String> secrets) {
        String s = text;
        for (String secret : secrets) {
            s = s.replace(secret, "***");
        }
        s = s.replace('\n', ' ').replace('\r', ' ');
        return s.length() > 300 ? s.substring(0, 300) + " …" : s;
    }
}
