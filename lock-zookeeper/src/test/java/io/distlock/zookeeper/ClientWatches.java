package io.distlock.zookeeper;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * How many watchers a ZooKeeper client holds. The server keeps one registration per path and
 * session whatever the client does; the client keeps one per path and {@link Watcher} object, so
 * this is where a new watcher per retry shows. ZooKeeper's watch manager is package-private: read
 * by reflection (the tests run on the class path).
 */
final class ClientWatches {

    private ClientWatches() {
    }

    /**
     * @param zk a client
     * @return its data, exists and child watchers, each path's watchers counted
     */
    static int count(ZooKeeper zk) {
        try {
            Object manager = accessible(ZooKeeper.class.getDeclaredMethod("getWatchManager")).invoke(zk);
            int total = 0;
            for (String table : new String[] {"getDataWatches", "getExistWatches", "getChildWatches"}) {
                @SuppressWarnings("unchecked")
                Map<String, Set<Watcher>> watches = (Map<String, Set<Watcher>>) accessible(manager.getClass().getDeclaredMethod(table))
                        .invoke(manager);
                synchronized (watches) {
                    total += watches.values().stream().mapToInt(Set::size).sum();
                }
            }
            return total;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the watch manager of " + zk + " (ZooKeeper changed it?)", e);
        }
    }

    private static Method accessible(Method method) {
        method.setAccessible(true);
        return method;
    }
}
