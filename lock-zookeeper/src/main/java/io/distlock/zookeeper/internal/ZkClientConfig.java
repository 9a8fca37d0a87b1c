package io.distlock.zookeeper.internal;

import org.apache.zookeeper.client.ZKClientConfig;

import java.util.HashMap;
import java.util.Map;

/**
 * One client's ZooKeeper configuration, whose transport settings — secure or not, the socket class,
 * every {@code zookeeper.ssl.*} key — are this client's alone: {@link ZKClientConfig} copies the
 * JVM's {@code zookeeper.ssl.*} system properties into every config it makes, which would let a
 * JVM-wide trust store, key store or {@code zookeeper.client.secure} apply to a client whose URI says
 * otherwise. They are kept out of ZooKeeper's own map too: replacing a value there is logged at
 * DEBUG with the old and the new value, store passwords included. Other keys (the request timeout,
 * SASL, {@code jute.maxbuffer}) behave as in {@link ZKClientConfig}.
 */
final class ZkClientConfig extends ZKClientConfig {

    /** This client's transport settings; null only while the superclass constructor runs. */
    private final Map<String, String> transport;

    ZkClientConfig() {
        super();
        transport = new HashMap<>();
    }

    private boolean isTransport(String key) {
        return transport != null && key != null && (key.startsWith("zookeeper.ssl.") || key.equals(SECURE_CLIENT)
                || key.equals(ZOOKEEPER_CLIENT_CNXN_SOCKET));
    }

    @Override
    public void setProperty(String key, String value) {
        if (isTransport(key)) {
            transport.put(key, value);
        } else {
            super.setProperty(key, value);
        }
    }

    @Override
    public String getProperty(String key) {
        return isTransport(key) ? transport.get(key) : super.getProperty(key);
    }

    @Override
    public String getProperty(String key, String defaultValue) {
        return isTransport(key) ? transport.getOrDefault(key, defaultValue) : super.getProperty(key, defaultValue);
    }
}
