package io.distlock.tair;

import io.distlock.LockClient;
import io.distlock.Locks;
import io.distlock.redis.support.LockScripts;
import io.distlock.tck.ClientPartition;
import io.distlock.tck.ClockJump;
import io.distlock.tck.LeaseRevocation;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.ReplicaFailover;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.ServerRestart;
import io.distlock.tck.fixtures.RedisFamilyHooks;
import io.distlock.tck.fixtures.RedisReplicaSet;
import io.distlock.tck.fixtures.RedisServer;
import io.distlock.tck.fixtures.TairModule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TCK against one real {@code redis-server} with the project's CAS/CAD module loaded
 * ({@link TairModule}); for rule 4.5 (failover), also against a Sentinel-managed primary with two
 * replicas, every node with the module (a promoted replica must serve CAS and CAD), which a
 * {@code tair://} client reaches at its primary's address.
 *
 * <p>After the whole run, {@link #stopServers()} proves the backend's path has no Lua: the
 * servers' {@code INFO commandstats} show no {@code EVAL*}, {@code FCALL*}, {@code SCRIPT LOAD} or
 * {@code FUNCTION LOAD} call.
 * The hooks themselves run no script either (the clock jump is emulated command by command here,
 * unlike {@link RedisServer#shiftClock}, which is one {@code EVAL}).
 */
class TairTckTest extends LockVerification {

    private static RedisServer redis;
    private static RedisFamilyHooks hooks;
    private static RedisReplicaSet replicated;
    /** What rule 4.15's restarts wiped from the main server's {@code INFO commandstats}, kept for the proof. */
    private static final List<String> SCRIPTED_BEFORE_RESTARTS = new ArrayList<>();
    private static final long[] COUNTED_BEFORE_RESTARTS = new long[3]; // exec, cas, cad

    @BeforeAll
    static void startServer() {
        redis = RedisServer.builder().tairModule().start();
        hooks = RedisFamilyHooks.onServer("tair", redis, LockScripts::lockKey); // none of them runs a script
    }

    @AfterAll
    static void stopServers() {
        try {
            List<String> scripted = new ArrayList<>(scriptCalls(redis.call("INFO", "commandstats")));
            if (replicated != null) {
                for (int node = 0; node < replicated.size(); node++) {
                    scripted.addAll(scriptCalls(replicated.call(node, "INFO", "commandstats")));
                }
            }
            scripted.addAll(SCRIPTED_BEFORE_RESTARTS);
            Object stats = redis.call("INFO", "commandstats");
            // The figures the README quotes: what the whole run sent to the main server, restarts included.
            System.out.println("TairTckTest commandstats (main server, whole run): script lines " + scripted + "; exec "
                    + (calls(stats, "exec") + COUNTED_BEFORE_RESTARTS[0]) + ", cas " + (calls(stats, "cas") + COUNTED_BEFORE_RESTARTS[1])
                    + ", cad " + (calls(stats, "cad") + COUNTED_BEFORE_RESTARTS[2]));
            assertThat(scripted).as("no script ran on the servers during the Tair TCK run").isEmpty();
            assertThat(calls(stats, "cad")).as("the run did release with CAD").isPositive();
        } finally {
            redis.close();
            if (replicated != null) {
                replicated.close();
            }
        }
    }

    /**
     * The {@code cmdstat_} lines of {@code INFO commandstats} of commands that run or load a script:
     * {@code EVAL*}, {@code FCALL*}, {@code SCRIPT LOAD}, {@code FUNCTION LOAD} (not {@code SCRIPT
     * FLUSH}, which a test sends itself).
     */
    static List<String> scriptCalls(Object commandstats) {
        List<String> lines = new ArrayList<>();
        for (String line : String.valueOf(commandstats instanceof byte[] b ? new String(b) : commandstats).split("\r?\n")) {
            String lower = line.toLowerCase();
            if (lower.startsWith("cmdstat_eval") || lower.startsWith("cmdstat_fcall") || lower.startsWith("cmdstat_script|load")
                    || lower.startsWith("cmdstat_function|load")) {
                lines.add(line.trim());
            }
        }
        return lines;
    }

    /** {@code calls=} of one command in {@code INFO commandstats}, 0 if it never ran. */
    static long calls(Object commandstats, String command) {
        for (String line : String.valueOf(commandstats instanceof byte[] b ? new String(b) : commandstats).split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                String rest = line.substring(("cmdstat_" + command + ":calls=").length());
                return Long.parseLong(rest.substring(0, rest.indexOf(',')));
            }
        }
        return 0;
    }

    // The hooks in the order of the rules that use them.

    @Override
    protected LockClient newClient() {
        return Locks.connect("tair://" + redis.endpoint());
    }

    /** Rules 1.4, 1.7 and 4.15: a client in a child JVM connects as {@link #newClient()} does. */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of("tair://" + redis.endpoint()));
    }

    /** Rule 1.10: the lock key's PTTL. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(hooks.lockProbe());
    }

    /**
     * Rule 4.4: the server's clock jumps; every TTL ends {@code delta} earlier. Emulated without a
     * script (so that the no-Lua proof above covers the fixtures too): the keys with a TTL are listed,
     * then each one's TTL is shortened or the key deleted — a few milliseconds apart, not at one
     * instant as {@link RedisServer#shiftClock} does, which rule 4.4's 10 s lease does not notice.
     */
    @Override
    protected Optional<ClockJump> clockJump() {
        return Optional.of(ClockJump.of(1, (node, delta) -> shiftWithoutScript(redis, delta)));
    }

    static long shiftWithoutScript(RedisServer server, Duration delta) {
        long shifted = 0;
        String cursor = "0";
        do {
            List<?> page = (List<?>) server.call("SCAN", cursor, "COUNT", "1000");
            cursor = string(page.get(0));
            for (Object k : (List<?>) page.get(1)) {
                String key = string(k);
                long pttl = (Long) server.call("PTTL", key);
                if (pttl >= 0) {
                    if (pttl > delta.toMillis()) {
                        server.call("PEXPIRE", key, Long.toString(pttl - delta.toMillis()));
                    } else {
                        server.call("DEL", key);
                    }
                    shifted++;
                }
            }
        } while (!cursor.equals("0"));
        return shifted;
    }

    private static String string(Object reply) {
        return reply instanceof byte[] b ? new String(b) : String.valueOf(reply);
    }

    /** Rule 4.5: a client made after a failover connects to the new primary, as one behind a virtual address would. */
    @Override
    protected Optional<ReplicaFailover> replicaFailover() {
        if (replicated == null) {
            replicated = RedisReplicaSet.start(2, 3, "--loadmodule", TairModule.path().toString());
        }
        return Optional.of(replicated.replicaFailover(() -> Locks.connect("tair://" + replicated.primaryEndpoint())));
    }

    /** Rules 4.8 and 4.13: the server drops the lock key, as an eviction or an operator would. */
    @Override
    protected Optional<LeaseRevocation> leaseRevocation() {
        return Optional.of(hooks.leaseRevocation());
    }

    /** Rules 4.9–4.12, 4.14, 4.16, 4.17 and 4.20–4.22: each client reaches the server through a fault proxy of its own. */
    @Override
    protected Optional<ClientPartition> clientPartition() {
        return Optional.of(hooks.clientPartition("", environment().scaled(Duration.ofMillis(500))));
    }

    /**
     * Rule 4.15: the server is killed and comes back empty (no persistence): its fence counter starts
     * over. Its {@code INFO commandstats} are read first, since the restart wipes them.
     */
    @Override
    protected Optional<ServerRestart> serverRestart() {
        return Optional.of(() -> {
            Object stats = redis.call("INFO", "commandstats"); // the restart wipes them: kept for the no-script proof
            SCRIPTED_BEFORE_RESTARTS.addAll(scriptCalls(stats));
            COUNTED_BEFORE_RESTARTS[0] += calls(stats, "exec");
            COUNTED_BEFORE_RESTARTS[1] += calls(stats, "cas");
            COUNTED_BEFORE_RESTARTS[2] += calls(stats, "cad");
            hooks.serverRestart().restartWithoutPersistence();
        });
    }

    @Override
    protected List<String> malformedUris() {
        return RedisFamilyHooks.malformedServerUris("tair", redis.port(), SECRET);
    }

    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(RedisFamilyHooks.unreachableUri("tair", 1, SECRET, ""));
    }
}
