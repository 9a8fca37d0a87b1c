/**
 * The Hazelcast backends: {@code hazelcast://}, the CP Subsystem's {@code FencedLock} (a CORRECTNESS
 * lock whose fencing token is the lock's fence), and {@code hazelcast-map://}, {@code IMap.lock} with
 * a lease (an EFFICIENCY lock). Their drivers live in the non-exported
 * {@code io.distlock.hazelcast.internal}.
 *
 * <p>Hazelcast ships no module descriptor: it is the automatic module {@code com.hazelcast.core}, which
 * reads every resolved module but makes none be resolved. The JDK modules its classes use (as
 * {@code jdeps --print-module-deps} lists them for 5.4.0: {@code jdk.unsupported} for its memory
 * access, {@code jdk.net} for socket options, JMX, JNDI, SQL, scripting and the HTTP client) are
 * required here on its behalf, so that a module-path user needs no {@code --add-modules}.
 */
@SuppressWarnings("requires-automatic")
module io.distlock.hazelcast {
    requires io.distlock;
    requires com.hazelcast.core;
    // On Hazelcast's behalf (see above).
    requires java.management;
    requires java.naming;
    requires java.net.http;
    requires java.scripting;
    requires java.sql;
    requires jdk.net;
    requires jdk.unsupported;

    provides io.distlock.spi.LockBackend with io.distlock.hazelcast.HazelcastLockBackend,
            io.distlock.hazelcast.HazelcastMapLockBackend;
}
