package io.distlock.tck;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * An SLF4J 2 provider for test runs that lets rule 6.4 see every SLF4J log line at every level:
 * name it with {@code -Dslf4j.provider=io.distlock.tck.CapturingSlf4jProvider} (the build of each
 * distlock backend does, in its Surefire configuration).
 *
 * <p>Outside a security verification it behaves like {@code slf4j-simple}'s defaults: INFO and above
 * go to standard error. While rule 6.4's capture runs, every level is enabled, and each line, with
 * its stack trace, is searched for the verification's secrets before it is (at INFO and above)
 * printed. The lines below INFO are searched and dropped, so the console stays as it was.
 */
@SuppressWarnings("exports") // SLF4J types in its signatures: only SLF4J itself calls it
public final class CapturingSlf4jProvider implements SLF4JServiceProvider {

    private ILoggerFactory loggerFactory;
    private IMarkerFactory markerFactory;
    private MDCAdapter mdcAdapter;

    /** For SLF4J's {@code ServiceLoader} and its {@code slf4j.provider} property. */
    public CapturingSlf4jProvider() {
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggerFactory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markerFactory;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdcAdapter;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
        ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
        loggerFactory = name -> loggers.computeIfAbsent(name, CapturingLogger::new);
        markerFactory = new BasicMarkerFactory();
        mdcAdapter = new BasicMDCAdapter();
    }

    /** Whether the running JVM's SLF4J logs reach rule 6.4 (SLF4J is present and this is its provider). */
    static boolean isSlf4jCaptured() {
        return org.slf4j.LoggerFactory.getLogger("distlock-tck") instanceof CapturingLogger;
    }

    private static final class CapturingLogger extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        CapturingLogger(String name) {
            this.name = name;
        }

        private boolean enabled(Level level) {
            return LogCapture.active() || level.toInt() >= Level.INFO.toInt();
        }

        @Override
        public boolean isTraceEnabled() {
            return enabled(Level.TRACE);
        }

        @Override
        public boolean isDebugEnabled() {
            return enabled(Level.DEBUG);
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
                                                   Throwable throwable) {
            String message = MessageFormatter.basicArrayFormat(messagePattern, arguments);
            StringBuilder line = new StringBuilder("[").append(Thread.currentThread().getName()).append("] ")
                    .append(level).append(' ').append(name).append(" - ").append(message);
            if (throwable != null) {
                StringWriter trace = new StringWriter();
                throwable.printStackTrace(new PrintWriter(trace));
                line.append(System.lineSeparator()).append(trace);
            }
            String text = line.toString();
            LogCapture.accept("SLF4J " + level + " " + name, text);
            if (level.toInt() >= Level.INFO.toInt()) {
                System.err.println(text);
            }
        }
    }
}
