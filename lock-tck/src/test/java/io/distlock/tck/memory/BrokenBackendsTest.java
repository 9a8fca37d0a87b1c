package io.distlock.tck.memory;

import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/** The broken variants of every rule outside the fault group (4): each fails its rule, the reference passes it. */
class BrokenBackendsTest extends BrokenVariantCheck {

    static Stream<Arguments> brokenVariants() {
        return variantsFailing(rule -> !rule.startsWith("4."));
    }
}
