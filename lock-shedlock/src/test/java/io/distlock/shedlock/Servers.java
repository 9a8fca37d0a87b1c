package io.distlock.shedlock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/** Starting servers side by side and stopping them whatever fails. */
final class Servers {

    private Servers() {
    }

    /**
     * Starts every server at once; if one fails, stops the others that did start and throws.
     *
     * @return the servers, in the order of the suppliers
     */
    @SafeVarargs
    static <T extends AutoCloseable> List<T> startAll(Supplier<? extends T>... starts) {
        List<CompletableFuture<T>> futures = new ArrayList<>();
        for (Supplier<? extends T> start : starts) {
            futures.add(CompletableFuture.supplyAsync(start::get));
        }
        List<T> started = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<T> future : futures) {
            try {
                started.add(future.join());
            } catch (CompletionException e) {
                failure = e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        if (failure != null) {
            closeAll(started.toArray(AutoCloseable[]::new));
            throw failure;
        }
        return started;
    }

    /** Closes each non-null argument, in order, going on past failures. */
    static void closeAll(AutoCloseable... closeables) {
        for (AutoCloseable closeable : closeables) {
            if (closeable == null) {
                continue;
            }
            try {
                closeable.close();
            } catch (Exception e) {
                // the others still close; a fixture's shutdown hook kills what is left
            }
        }
    }
}
