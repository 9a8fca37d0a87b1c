package io.distlock.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A jetcd client as its users set one up for locking: one {@link Client} of its own, and one etcd
 * lease granted once and kept alive by jetcd's own keep-alive stream (a request every third of the
 * TTL) for as long as the client lives. Every lock key written with it is bound to that lease, so
 * the keys go if the process dies — the same session the distlock etcd backend keeps per client.
 */
final class JetcdSession implements AutoCloseable {

    /** The lease TTL, in seconds: the same as the distlock rows' {@code sessionTtl}. */
    static final long TTL_SECONDS = EtcdPeers.SESSION_TTL_SECONDS;

    private final Client client;
    private final long leaseId;
    private final CloseableClient keepAlive;

    private JetcdSession(Client client, long leaseId, CloseableClient keepAlive) {
        this.client = client;
        this.leaseId = leaseId;
        this.keepAlive = keepAlive;
    }

    /**
     * @param endpoint the member's own client address, {@code host:port}
     * @return a connected client with its lease granted and kept alive
     */
    static JetcdSession open(String endpoint) throws ExecutionException, InterruptedException, TimeoutException {
        Client client = Client.builder().endpoints("http://" + endpoint).build();
        try {
            long leaseId = client.getLeaseClient().grant(TTL_SECONDS).get(30, TimeUnit.SECONDS).getID();
            CloseableClient keepAlive = client.getLeaseClient().keepAlive(leaseId, new StreamObserver<LeaseKeepAliveResponse>() {
                @Override
                public void onNext(LeaseKeepAliveResponse response) {
                    // kept alive
                }

                @Override
                public void onError(Throwable failure) {
                    // a lost lease fails the row's next lock call, which is what the bench reports
                }

                @Override
                public void onCompleted() {
                    // the stream ended with the client
                }
            });
            return new JetcdSession(client, leaseId, keepAlive);
        } catch (ExecutionException | InterruptedException | TimeoutException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    Client client() {
        return client;
    }

    long leaseId() {
        return leaseId;
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** Stops the keep-alive, revokes the lease (its keys go with it) and closes the client. */
    @Override
    public void close() {
        keepAlive.close();
        try {
            client.getLeaseClient().revoke(leaseId).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the lease expires on its own after its TTL
        } finally {
            client.close();
        }
    }
}
