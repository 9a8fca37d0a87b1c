package io.distlock.tck;

import io.distlock.LockOptions;
import io.distlock.Locks;

import java.net.URI;
import java.util.Objects;

/**
 * How a client in a separate process connects to the backend under test: the URI and the
 * {@link LockOptions} it connects with. Rules 1.4, 1.7 and 4.15 start a child JVM on this JVM's
 * class path (and module path, if any), which connects with {@link Locks#connect(URI, LockOptions)}
 * and takes its turns with the clients of {@link LockVerification#newClient()}: a fencing token that
 * increases only within one JVM (a clock reading, a JVM-wide high-water mark, a static counter)
 * passes every rule whose clients share a JVM, and fails these. Supply it through
 * {@link LockVerification#separateProcess()}.
 *
 * <p>The child must reach the same servers as {@code newClient()}'s clients, with what it needs to be
 * let in: credentials and trust or key stores in the URI's options where the backend takes them
 * there, or in the options' {@linkplain LockOptions#credentials() credentials}. Of the options, the
 * child gets the timeouts, the clock drift allowance, the retry back-off and the credentials (asked
 * for once, when the child connects); a {@linkplain LockOptions#listener() listener} is an object of
 * this JVM and cannot go along, so options that carry one are refused. The URI and the credentials go
 * to the child over its standard input, never on its command line, where other users of the machine
 * could read them.
 *
 * <p>Immutable.
 */
public final class SeparateProcess {

    private final URI uri;
    private final LockOptions options;

    private SeparateProcess(URI uri, LockOptions options) {
        this.uri = Objects.requireNonNull(uri, "uri");
        this.options = Objects.requireNonNull(options, "options");
        if (options.listener().isPresent()) {
            throw new IllegalArgumentException("a client in a separate process cannot have the listener of this JVM:"
                    + " give SeparateProcess options without one");
        }
    }

    /**
     * A child that connects as {@code Locks.connect(uri)} does, with {@link LockOptions#defaults()}.
     *
     * @param uri the backend's URI, as {@link LockVerification#newClient()} uses it
     * @return the hook
     * @throws NullPointerException     if {@code uri} is null
     * @throws IllegalArgumentException if {@code uri} is not a URI
     */
    public static SeparateProcess of(String uri) {
        return new SeparateProcess(URI.create(Objects.requireNonNull(uri, "uri")), LockOptions.defaults());
    }

    /**
     * A child that connects with {@code Locks.connect(uri, options)}.
     *
     * @param uri     the backend's URI, as {@link LockVerification#newClient()} uses it
     * @param options the options, as {@link LockVerification#newClient()} uses them
     * @return the hook
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code options} carry a listener
     */
    public static SeparateProcess of(URI uri, LockOptions options) {
        return new SeparateProcess(uri, options);
    }

    /** @return the URI the child connects to */
    public URI uri() {
        return uri;
    }

    /** @return the options the child connects with (without a listener) */
    public LockOptions options() {
        return options;
    }

    /** @return the scheme and the options; never the URI's user info or query, which may carry secrets */
    @Override
    public String toString() {
        return "SeparateProcess[" + uri.getScheme() + "://…, " + options + "]";
    }
}
