package io.distlock.hazelcast.internal;

import com.hazelcast.client.config.ClientNetworkConfig;
import com.hazelcast.client.impl.connection.AddressProvider;
import com.hazelcast.client.impl.connection.Addresses;
import com.hazelcast.client.impl.management.ClientConnectionProcessListenerRunner;
import com.hazelcast.client.impl.spi.impl.DefaultAddressProvider;
import com.hazelcast.cluster.Address;
import com.hazelcast.cluster.Member;

import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the client connects: to the listed members, as Hazelcast's own provider does, and to a
 * member learnt from the member list at the address the URI's {@code natMap} gives for the one it
 * announces (unmapped: as announced). Without it a client behind NAT — or one whose links the tests
 * cut with fault proxies — would connect to the announced addresses it cannot (or must not) reach.
 */
final class NatAddressProvider implements AddressProvider {

    private final DefaultAddressProvider listed;
    private final Map<Address, Address> natMap;

    NatAddressProvider(ClientNetworkConfig network, Map<String, String> natMap) throws UnknownHostException {
        this.listed = new DefaultAddressProvider(network, () -> false);
        Map<Address, Address> addresses = new HashMap<>();
        for (Map.Entry<String, String> entry : natMap.entrySet()) {
            addresses.put(address(entry.getKey()), address(entry.getValue()));
        }
        this.natMap = Map.copyOf(addresses);
    }

    private static Address address(String hostPort) throws UnknownHostException {
        int colon = hostPort.lastIndexOf(':');
        return new Address(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    @Override
    public Addresses loadAddresses(ClientConnectionProcessListenerRunner listenerRunner) {
        return listed.loadAddresses(listenerRunner);
    }

    @Override
    public Address translate(Address address) {
        return natMap.getOrDefault(address, address);
    }

    @Override
    public Address translate(Member member) {
        return translate(member.getAddress());
    }
}
