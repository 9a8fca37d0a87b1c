package io.distlock.tck;

import io.distlock.LockClient;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The hook of group 6 (security), for a verification whose servers run with authentication and,
 * where the backend offers it, TLS. Each part is optional: a rule whose part is absent is skipped
 * by name ("not run"), and the verdict then does not claim the group.
 *
 * <p>The clients these parts open stand for other processes, like {@link LockVerification#newClient()}'s;
 * the TCK closes them. A part's connect may itself throw (a backend that authenticates when it
 * connects): the rules accept the refusal from the connect or from the first operation.
 */
public interface Security {

    /**
     * Every secret the verification's servers, URIs and options carry: passwords of every
     * principal, key and trust store passwords. Rule 6.4 looks for each in every log line (captured
     * at the finest level), every exception text and {@code toString()} the rules saw, and the verdict.
     * {@link LockVerification#SECRET} is always looked for too.
     *
     * @return the secrets; not empty
     */
    List<String> secrets();

    /**
     * Rule 6.1: opens a client that presents a wrong password for a principal the server knows.
     *
     * @return the connector, or empty if the backend takes no password
     */
    default Optional<Supplier<LockClient>> wrongPassword() {
        return Optional.empty();
    }

    /**
     * Rule 6.2: opens a client authenticated as a principal the server knows that has no rights on the
     * locks {@link LockVerification#newClient()}'s clients take (for example a Redis ACL user limited
     * to other keys, an etcd user whose role covers another prefix, a ZooKeeper digest identity that is
     * not the lock nodes' creator).
     *
     * @return the connector, or empty if the backend has no per-principal rights
     */
    default Optional<Supplier<LockClient>> unprivilegedClient() {
        return Optional.empty();
    }

    /**
     * Rule 6.2: as the principal of {@link #unprivilegedClient()}, with the server's own client and not
     * distlock, tries everything that would release, extend or take over the lock {@code lockName}: delete
     * what the backend keeps for it, rewrite it, change its expiry. A refusal by the server is expected and
     * swallowed; the rule then checks that the holder's lease is untouched.
     *
     * @return the hook, or empty if the backend has no per-principal rights
     */
    default Optional<Tamper> tamper() {
        return Optional.empty();
    }

    /**
     * Rule 6.3: opens a client configured to trust a certificate authority other than the one that
     * signed the server's certificate (otherwise as {@link LockVerification#newClient()}).
     *
     * @return the connector, or empty if the servers of this verification do not speak TLS
     */
    default Optional<Supplier<LockClient>> untrustedServer() {
        return Optional.empty();
    }

    /** What rule 6.2 has an unprivileged principal try against a held lock. */
    @FunctionalInterface
    interface Tamper {
        /**
         * @param lockName the lock another client holds
         * @throws Exception anything other than the server's refusal, which is swallowed (fails the rule)
         */
        void tryToTamper(String lockName) throws Exception;
    }
}
