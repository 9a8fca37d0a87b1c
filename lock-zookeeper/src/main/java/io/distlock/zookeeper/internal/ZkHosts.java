package io.distlock.zookeeper.internal;

import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.HostProvider;
import org.apache.zookeeper.client.StaticHostProvider;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;

/**
 * The ensemble's hosts as ZooKeeper's own {@link StaticHostProvider} serves them (shuffled, then
 * in turn), with a bound on how long one host may take to answer a connect.
 *
 * <p>Why: ZooKeeper gives each host {@code sessionTimeout / size()} to answer. A member that
 * accepts connections and never answers (frozen, or its process wedged) therefore costs a third of
 * a 10 s session in a 3-member list, and ZooKeeper tries the list in random order: one connect in
 * three failed its 2 s connect timeout although two members were live. Here {@link #size()} is
 * large enough that the time per host is at most a quarter of the connect timeout; ZooKeeper's
 * random pause of up to 1 s before its next host, and the live host's handshake, fit in the rest
 * of a connect timeout of 2 s (the library's default). A single host keeps ZooKeeper's division: it
 * has no other to give way to. {@code size()} is read by ZooKeeper for this division only; the hosts
 * themselves are iterated by the wrapped provider.
 */
final class ZkHosts implements HostProvider {

    /** The least time a host is given to answer a connect, however short the connect timeout. */
    private static final Duration LEAST_PER_HOST = Duration.ofMillis(100);

    private final StaticHostProvider hosts;
    private final int size;

    /**
     * @param connectString        the URI's {@code host:port} list (a chroot after it is ignored here)
     * @param sessionTimeoutMillis the session timeout the client asks for
     * @param connectTimeout       the client's connect timeout
     */
    ZkHosts(String connectString, int sessionTimeoutMillis, Duration connectTimeout) {
        this.hosts = new StaticHostProvider(new ConnectStringParser(connectString).getServerAddresses());
        if (hosts.size() == 1) {
            // No other host to move on to: ZooKeeper's own division, which gives a slow server (a
            // session is a write, synced to disk) the whole session timeout to answer.
            this.size = 1;
        } else {
            long perHost = Math.max(LEAST_PER_HOST.toMillis(), connectTimeout.toMillis() / 4);
            this.size = (int) Math.max(hosts.size(), Math.min(Integer.MAX_VALUE, (sessionTimeoutMillis + perHost - 1) / perHost));
        }
    }

    /** @return what ZooKeeper divides the session timeout by to get one host's connect time: at least the host count */
    @Override
    public int size() {
        return size;
    }

    @Override
    public InetSocketAddress next(long spinDelay) {
        return hosts.next(spinDelay);
    }

    @Override
    public void onConnected() {
        hosts.onConnected();
    }

    @Override
    public boolean updateServerList(Collection<InetSocketAddress> serverAddresses, InetSocketAddress currentHost) {
        return hosts.updateServerList(serverAddresses, currentHost);
    }
}
