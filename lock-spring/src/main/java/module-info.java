/**
 * distlock for Spring Integration: {@link io.distlock.spring.DistlockLockRegistry}, a
 * {@code LockRegistry} backed by whichever distlock backend a URI names.
 *
 * <p>Spring's jars are automatic modules; their names are those of their manifests'
 * {@code Automatic-Module-Name}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.spring {
    requires transitive io.distlock;
    requires transitive spring.integration.core;
    requires transitive spring.beans;

    exports io.distlock.spring;
}
