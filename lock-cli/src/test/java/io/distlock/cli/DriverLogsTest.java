package io.distlock.cli;

import org.junit.jupiter.api.Test;

import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.assertj.core.api.Assertions.assertThat;

/** How a driver's java.util.logging record reaches a command's standard error. */
class DriverLogsTest {

    /** The record as Hazelcast 5.4's client logged it in a CI run, after a passing {@code check hazelcast-map://}. */
    private static LogRecord falseAlarm() {
        LogRecord r = new LogRecord(Level.WARNING, "distlock-244a9426 [distlock-ba8a0ed0] [5.4.0] Future.complete(Object)"
                + " on completed future. Request: ClientMessage{operation=Client.AddClusterViewListener}, current value:"
                + " ClientMessage{messageType=301}, offered value: ExceptionalResult{cause="
                + "com.hazelcast.client.HazelcastClientNotActiveException: Client is shutting down}");
        r.setLoggerName("com.hazelcast.client.impl.spi.ClientInvocationService");
        r.setThrown(new Exception("Future.complete(Object) on completed future."));
        return r;
    }

    @Test
    void hazelcastsShutdownFalseAlarmIsDroppedAndNothingElse() {
        assertThat(DriverLogs.shutdownFalseAlarm(falseAlarm())).isTrue();

        LogRecord elsewhere = falseAlarm();
        elsewhere.setLoggerName("io.distlock.engine");
        assertThat(DriverLogs.shutdownFalseAlarm(elsewhere)).as("only Hazelcast's record").isFalse();

        LogRecord whileRunning = new LogRecord(Level.WARNING, "Future.complete(Object) on completed future. offered value:"
                + " ExceptionalResult{cause=java.lang.InterruptedException}");
        whileRunning.setLoggerName("com.hazelcast.client.impl.spi.ClientInvocationService");
        assertThat(DriverLogs.shutdownFalseAlarm(whileRunning)).as("only while the client shuts down").isFalse();
    }

    @Test
    void aWarningIsOneLineWithItsCauseAndNoStackTrace() {
        LogRecord r = new LogRecord(Level.WARNING, "lost the connection to {0}\nretrying");
        r.setLoggerName("com.hazelcast.client.impl.connection.tcp.TcpClientConnectionManager");
        r.setParameters(new Object[] {"127.0.0.1:5701"});
        r.setThrown(new java.io.IOException("Connection reset"));

        String line = new DriverLogs.OneLine().format(r);

        assertThat(line).isEqualTo("distlock: WARNING from com.hazelcast.client.impl.connection.tcp.TcpClientConnectionManager:"
                + " lost the connection to 127.0.0.1:5701 retrying (java.io.IOException: Connection reset)"
                + System.lineSeparator());
    }
}
