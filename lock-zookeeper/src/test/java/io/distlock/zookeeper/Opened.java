package io.distlock.zookeeper;

import java.util.ArrayList;
import java.util.List;

/** What a test opened (clients, drivers, proxies), closed in reverse order after it. */
final class Opened {

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** @return {@code resource}, to be closed after the test, before what was opened earlier */
    <T extends AutoCloseable> T add(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Closes everything added, newest first. */
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        resources.clear();
    }
}
