package io.distlock.tck.memory;

import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/** The broken variants of the fault rules (group 4): each fails its rule, the reference passes it. */
class BrokenFaultHandlingTest extends BrokenVariantCheck {

    static Stream<Arguments> brokenVariants() {
        return variantsFailing(rule -> rule.startsWith("4."));
    }
}
