package io.distlock;

import java.util.List;
import java.util.Objects;

/**
 * No installed backend handles the URI's scheme. The message lists the installed schemes and,
 * when the scheme is one distlock knows, the artifact that provides it.
 */
public class NoSuchBackendException extends LockException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The scheme that was asked for. */
    private final String scheme;
    /** The schemes of the installed backends. */
    private final List<String> installedSchemes;

    /**
     * @param scheme           the scheme that was asked for
     * @param installedSchemes the schemes of the installed backends
     * @param message          the full explanation, including what to add
     */
    public NoSuchBackendException(String scheme, List<String> installedSchemes, String message) {
        super(message);
        this.scheme = Objects.requireNonNull(scheme, "scheme");
        this.installedSchemes = List.copyOf(installedSchemes);
    }

    /** @return the scheme that was asked for */
    public String scheme() {
        return scheme;
    }

    /** @return the schemes of the backends found by {@link java.util.ServiceLoader} */
    public List<String> installedSchemes() {
        return installedSchemes;
    }
}
