package io.distlock;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * What a backend is and what it promises: its URI scheme, its {@link Guarantee} and its
 * {@link Feature}s.
 *
 * @param scheme    the URI scheme that selects the backend, lower case (for example {@code redis})
 * @param guarantee what a double grant costs with this backend
 * @param features  the capabilities the backend declares; an unmodifiable copy is kept
 */
public record BackendDescriptor(String scheme, Guarantee guarantee, Set<Feature> features) {

    /**
     * Checks the declaration for consistency.
     *
     * @param scheme    the URI scheme
     * @param guarantee the guarantee
     * @param features  the features
     * @throws NullPointerException     if any component is null
     * @throws IllegalArgumentException if the scheme is not a valid lower-case URI scheme, if a
     *                                  {@link Guarantee#CORRECTNESS} backend lacks
     *                                  {@link Feature#FENCING_TOKENS}, or if
     *                                  {@link Feature#AUTO_RENEWAL} is declared without
     *                                  {@link Feature#LEASE_EXTENSION}
     */
    public BackendDescriptor {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(guarantee, "guarantee");
        Objects.requireNonNull(features, "features");
        if (!scheme.matches("[a-z][a-z0-9+.-]*") || !scheme.equals(scheme.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("not a lower-case URI scheme: '" + scheme + "'");
        }
        Set<Feature> copy = features.isEmpty() ? EnumSet.noneOf(Feature.class) : EnumSet.copyOf(features);
        if (guarantee == Guarantee.CORRECTNESS && !copy.contains(Feature.FENCING_TOKENS)) {
            throw new IllegalArgumentException(
                    "backend '" + scheme + "' declares CORRECTNESS without FENCING_TOKENS:"
                            + " a correctness lock needs a token the protected resource can check");
        }
        if (copy.contains(Feature.AUTO_RENEWAL) && !copy.contains(Feature.LEASE_EXTENSION)) {
            throw new IllegalArgumentException(
                    "backend '" + scheme + "' declares AUTO_RENEWAL without LEASE_EXTENSION");
        }
        features = Collections.unmodifiableSet(copy);
    }

    /**
     * Returns whether the backend declares {@code feature}.
     *
     * @param feature the feature to look for
     * @return true if declared
     */
    public boolean has(Feature feature) {
        return features.contains(feature);
    }
}
