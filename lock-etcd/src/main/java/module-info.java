/**
 * The etcd backend ({@code etcd://}): a CORRECTNESS lock whose fencing token is the lock key's create
 * revision. Its driver lives in the non-exported {@code io.distlock.etcd.internal}.
 *
 * <p>jetcd and gRPC ship no module descriptors: they are automatic modules. {@code io.grpc.stub} is
 * read because jetcd's lease API names its {@code StreamObserver}. An automatic module reads every
 * module that is resolved, but requires none, so the explicit modules that jetcd, gRPC and Vert.x
 * gRPC use (Guava, Failsafe, Vert.x, Netty's HTTP/2 and proxy codecs, SLF4J) would not be resolved
 * on a module path at all ({@code NoClassDefFoundError: com/google/common/base/Strings} at the
 * first connect): this module requires them on jetcd's behalf, so a user needs no
 * {@code --add-modules}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.etcd {
    requires io.distlock;
    requires jetcd.core;
    requires jetcd.api;
    requires jetcd.common;
    requires io.grpc;
    requires io.grpc.stub;
    // TLS: jetcd's ClientBuilder hands this module a Netty SslContextBuilder to fill in.
    requires io.netty.handler;
    // On jetcd's behalf (see above).
    requires com.google.common;
    requires dev.failsafe.core;
    requires io.vertx.core;
    requires io.netty.codec.http2;
    requires io.netty.handler.proxy;
    requires io.netty.transport.unix.common;
    requires org.slf4j;

    provides io.distlock.spi.LockBackend with io.distlock.etcd.EtcdLockBackend;
}
