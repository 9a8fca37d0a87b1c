package io.distlock.tck;

import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

class FencedResourceTest {

    private final FencedResource resource = new FencedResource();

    @Test
    void acceptsIncreasingTokensAndRejectsOlderOnes() {
        assertThat(resource.write("a", OptionalLong.of(3))).isTrue();
        assertThat(resource.write("b", OptionalLong.of(5))).isTrue();
        assertThat(resource.write("a", OptionalLong.of(3))).isFalse();

        assertThat(resource.highestToken()).hasValue(5);
        assertThat(resource.accepted()).isEqualTo(2);
        assertThat(resource.rejections()).containsExactly("a with token 3 (highest seen 5 from b)");
    }

    @Test
    void anEqualTokenIsAcceptedOnlyFromTheSameWriter() {
        assertThat(resource.write("a", OptionalLong.of(4))).isTrue();
        assertThat(resource.write("a", OptionalLong.of(4))).isTrue();
        assertThat(resource.write("b", OptionalLong.of(4))).isFalse();
        assertThat(resource.rejected()).isEqualTo(1);
    }

    @Test
    void writesWithoutTokenCannotBeCheckedAndAreCounted() {
        assertThat(resource.write("a", OptionalLong.empty())).isTrue();
        assertThat(resource.write("b", OptionalLong.empty())).isTrue();

        assertThat(resource.unfenced()).isEqualTo(2);
        assertThat(resource.highestToken()).isEmpty();
    }

    @Test
    void theFirstTokenIsAlwaysAccepted() {
        assertThat(resource.write("a", OptionalLong.of(Long.MIN_VALUE))).isTrue();
    }
}
