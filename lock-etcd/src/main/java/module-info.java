/**
 * The etcd backend ({@code etcd://}): a CORRECTNESS lock whose fencing token is the lock key's create
 * revision. Its driver lives in the non-exported {@code io.distlock.etcd.internal}.
 *
 * <p>jetcd and gRPC ship no module descriptors: they are automatic modules. {@code io.grpc.stub} is
 * read because jetcd's lease API names its {@code StreamObserver}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.etcd {
    requires io.distlock;
    requires jetcd.core;
    requires jetcd.api;
    requires jetcd.common;
    requires io.grpc;
    requires io.grpc.stub;

    provides io.distlock.spi.LockBackend with io.distlock.etcd.EtcdLockBackend;
}
