package io.distlock.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

class OwnerTokensTest {

    @Test
    void tokensAre128BitsUrlSafeAndNeverRepeatWithinAClientEvenFromManyThreads() throws Exception {
        OwnerTokens tokens = new OwnerTokens();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(threads.submit(() -> {
                    for (int i = 0; i < 25_000; i++) {
                        seen.add(tokens.next());
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(seen).hasSize(100_000);
        assertThat(seen).allSatisfy(token -> {
            assertThat(token).matches("[A-Za-z0-9_-]{22}");
            assertThat(Base64.getUrlDecoder().decode(token)).hasSize(16);
        });
    }

    @Test
    void consecutiveTokensShareNoPatternAndTwoClientsDrawDifferentOnes() {
        OwnerTokens one = new OwnerTokens();
        OwnerTokens other = new OwnerTokens();
        Set<String> ofOne = new HashSet<>();
        byte[] previous = Base64.getUrlDecoder().decode(one.next());
        long differingBits = 0;
        int pairs = 1_000;
        for (int i = 0; i < pairs; i++) {
            String token = one.next();
            ofOne.add(token);
            byte[] bytes = Base64.getUrlDecoder().decode(token);
            for (int b = 0; b < bytes.length; b++) {
                differingBits += Integer.bitCount((bytes[b] ^ previous[b]) & 0xff);
            }
            previous = bytes;
        }
        // Unpredictable tokens differ from the one before in about half of their 128 bits; a counter
        // (or a counter under a fixed prefix) changes a few low bits per call.
        assertThat((double) differingBits / pairs).isBetween(56.0, 72.0);
        for (int i = 0; i < pairs; i++) {
            assertThat(ofOne).doesNotContain(other.next());
        }
    }
}
