package io.distlock.etcd;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.Locks;
import io.distlock.tck.LockProbe;
import io.distlock.tck.LockVerification;
import io.distlock.tck.RuleSelection;
import io.distlock.tck.SeparateProcess;
import io.distlock.tck.Security;
import io.distlock.tck.fixtures.FreePorts;
import io.distlock.tck.fixtures.EtcdCluster;
import io.distlock.tck.fixtures.TestCertificates;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.net.ssl.TrustManagerFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The TCK over TLS with etcd authentication: one etcd member serving https only (the test CA's
 * certificate), auth on, and the TCK's clients log in as {@code locker}, whose role may read and
 * write {@value #PREFIX}{@code /} and nothing else — the least a client of this backend needs (see the
 * README). An {@code outsider} has a role on {@code /other/} only.
 * It runs the safety and security groups only ({@link RuleSelection}), with rules 5.5, 5.8 and 5.9 (a closed port, and
 * members that accept and never answer, so that the TLS handshake waits), and every security rule must pass; the plain
 * {@link EtcdTckTest} runs every rule on a 3-member cluster.
 */
@RuleSelection(value = "1,5.5,5.8,5.9,6", mustPass = "5.5,5.8,5.9,6")
class EtcdTlsTckTest extends LockVerification {

    static final String PREFIX = "/tck-tls";
    private static final Duration TIMEOUT = Duration.ofSeconds(4);

    private static final TestCertificates certs = TestCertificates.shared();
    private static EtcdCluster etcd;
    /** A CA of its own: its trust store does not trust the member's certificate. */
    private static TestCertificates stranger;

    @BeforeAll
    static void startServer() {
        etcd = EtcdCluster.withTls(1, certs, false);
        EtcdSecurityTest.secure(etcd, PREFIX);
        stranger = TestCertificates.generate();
    }

    @AfterAll
    static void stopServer() {
        try {
            etcd.close();
        } finally {
            stranger.close();
        }
    }

    private static LockOptions options() {
        return LockOptions.builder().connectTimeout(TIMEOUT).operationTimeout(TIMEOUT).build();
    }

    private static String uri(String user, String password, TestCertificates trusted) {
        return EtcdSecurityTest.uri(etcd, user + ":" + EtcdSecurityTest.encode(password), PREFIX, trusted.trustStore());
    }

    /** Rule 5.8: a silent member listed first, over TLS, logged in as {@code locker}. */
    @Override
    protected Optional<String> uriWithEndpointFirst(String silentEndpoint) {
        return Optional.of(uri(EtcdSecurityTest.LOCKER, EtcdSecurityTest.LOCKER_PASSWORD, certs)
                .replaceFirst("@", "@" + silentEndpoint + ","));
    }

    /** Rules 5.5 and 5.9: two members on free loopback ports, over TLS, with the TCK's password. */
    @Override
    protected Optional<String> unreachableUri() {
        return Optional.of(uri("alice", SECRET, certs).replace(etcd.endpoints(),
                "127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find()));
    }

    @Override
    protected LockClient newClient() {
        return Locks.connect(URI.create(uri(EtcdSecurityTest.LOCKER, EtcdSecurityTest.LOCKER_PASSWORD, certs)), options());
    }

    /** Rules 1.4 and 1.7: a client in a child JVM connects as {@link #newClient()} does (its password and trust store in the URI). */
    @Override
    protected Optional<SeparateProcess> separateProcess() {
        return Optional.of(SeparateProcess.of(URI.create(uri(EtcdSecurityTest.LOCKER, EtcdSecurityTest.LOCKER_PASSWORD, certs)),
                options()));
    }

    /** Rule 1.10: a key stays until it is deleted; read by the fixture as root. */
    @Override
    protected Optional<LockProbe> lockProbe() {
        return Optional.of(lockName -> etcd.keys(EtcdTckTest.lockDir(lockName).replace(EtcdTckTest.PREFIX, PREFIX)).isEmpty()
                ? Optional.empty() : Optional.of(LockProbe.UNTIL_RELEASED));
    }

    @Override
    protected Optional<Security> security() {
        return Optional.of(new Security() {
            @Override
            public List<String> secrets() {
                return List.of(EtcdSecurityTest.LOCKER_PASSWORD, EtcdSecurityTest.OUTSIDER_PASSWORD,
                        EtcdSecurityTest.ROOT_PASSWORD, wrongPassword, certs.trustStore().password(),
                        stranger.trustStore().password());
            }

            private final String wrongPassword = "wrong-" + EtcdSecurityTest.LOCKER_PASSWORD;

            @Override
            public Optional<Supplier<LockClient>> wrongPassword() {
                return Optional.of(() -> Locks.connect(URI.create(uri(EtcdSecurityTest.LOCKER, wrongPassword, certs)), options()));
            }

            @Override
            public Optional<Supplier<LockClient>> unprivilegedClient() {
                return Optional.of(() -> Locks.connect(URI.create(uri(EtcdSecurityTest.OUTSIDER, EtcdSecurityTest.OUTSIDER_PASSWORD,
                        certs)), options()));
            }

            @Override
            public Optional<Tamper> tamper() {
                return Optional.of(EtcdTlsTckTest::tamper);
            }

            @Override
            public Optional<Supplier<LockClient>> untrustedServer() {
                return Optional.of(() -> Locks.connect(URI.create(uri(EtcdSecurityTest.LOCKER, EtcdSecurityTest.LOCKER_PASSWORD,
                        stranger)), options()));
            }
        });
    }

    /**
     * As the outsider, with jetcd and not distlock: delete the lock's directory, put over the holder's
     * key, put a key of its own into the line ahead of nobody, revoke the holder's session lease (the
     * fixture names the key and the lease, as an attacker who read them elsewhere could). Each refusal
     * (PERMISSION_DENIED) is swallowed; anything else is thrown.
     */
    static void tamper(String lockName) throws Exception {
        String dir = EtcdTckTest.lockDir(lockName).replace(EtcdTckTest.PREFIX, PREFIX);
        List<String> keys = etcd.keys(dir);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(certs.trustStore().load());
        try (Client outsider = Client.builder().endpoints(etcd.clientUrls().toArray(String[]::new))
                .user(bytes(EtcdSecurityTest.OUTSIDER)).password(bytes(EtcdSecurityTest.OUTSIDER_PASSWORD))
                .sslContext(ssl -> ssl.trustManager(trust)).build()) {
            refused(outsider.getKVClient().delete(bytes(dir), DeleteOption.builder().isPrefix(true).build()));
            for (String key : keys) {
                refused(outsider.getKVClient().put(bytes(key), bytes("taken"), PutOption.DEFAULT));
                refused(outsider.getKVClient().delete(bytes(key), DeleteOption.DEFAULT));
                long lease = etcd.leaseOf(key);
                if (lease != 0) {
                    refused(outsider.getLeaseClient().revoke(lease));
                }
            }
            refused(outsider.getKVClient().put(bytes(dir + "0-outsider"), bytes("first"), PutOption.DEFAULT));
        }
    }

    /** Waits for the call; a refusal of the outsider's rights is the expected answer, anything else is thrown. */
    private static void refused(CompletableFuture<?> call) throws Exception {
        try {
            call.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            boolean denied = cause instanceof EtcdException etcdError && etcdError.getErrorCode() == ErrorCode.PERMISSION_DENIED
                    || Status.fromThrowable(cause).getCode() == Status.Code.PERMISSION_DENIED;
            if (!denied) {
                throw e;
            }
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
