package io.distlock.cli;

import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What reaches a command's standard error through {@code java.util.logging} (the engine's records, and
 * Hazelcast's client, which logs through it): warnings and errors only, one line each, never a stack
 * trace, as the command's own failures are printed. The drivers that log through SLF4J are set to
 * warnings by {@code bin/distlock}.
 */
final class DriverLogs {

    private DriverLogs() {
    }

    /** Sets the root logger and its handlers to warnings, one line each, without Hazelcast's shutdown false alarm. */
    static void quiet() {
        Logger root = Logger.getLogger("");
        root.setLevel(Level.WARNING);
        for (Handler h : root.getHandlers()) {
            h.setLevel(Level.WARNING);
            h.setFormatter(new OneLine());
            h.setFilter(r -> !shutdownFalseAlarm(r));
        }
    }

    /**
     * Whether a record is the warning Hazelcast's client logs, with a stack trace, when an invocation it
     * has already completed is failed again because the client is shutting down (hazelcast/hazelcast#19164,
     * open). It says nothing about the lock: it comes after the command's work, from the client the
     * command is closing, and on a short-lived client about one close in three.
     *
     * @param r a log record
     * @return true for that warning only
     */
    static boolean shutdownFalseAlarm(LogRecord r) {
        String logger = r.getLoggerName();
        String message = r.getMessage();
        return logger != null && logger.startsWith("com.hazelcast.") && message != null
                && message.contains("Future.complete(Object) on completed future")
                && message.contains("Client is shutting down");
    }

    /** {@code distlock: WARNING from LOGGER: MESSAGE (CAUSE)} on one line. */
    static final class OneLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder line = new StringBuilder("distlock: ").append(r.getLevel().getName());
            if (r.getLoggerName() != null && !r.getLoggerName().isEmpty()) {
                line.append(" from ").append(r.getLoggerName());
            }
            line.append(": ").append(formatMessage(r).replace('\n', ' ').replace('\r', ' '));
            if (r.getThrown() != null) {
                line.append(" (").append(String.valueOf(r.getThrown()).replace('\n', ' ').replace('\r', ' ')).append(')');
            }
            return line.append(System.lineSeparator()).toString();
        }
    }
}
