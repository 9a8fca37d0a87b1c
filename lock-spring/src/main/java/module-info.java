/**
 * distlock for Spring Integration: {@link io.distlock.spring.DistlockLockRegistry}, a
 * {@code LockRegistry} backed by whichever distlock backend a URI names.
 *
 * <p>Spring's jars are automatic modules; their names are those of their manifests'
 * {@code Automatic-Module-Name}. An automatic module reads every module that is resolved but
 * requires none, so Commons Logging, an explicit module that Spring logs through, would not be
 * resolved at all ({@code NoClassDefFoundError: org/apache/commons/logging/LogFactory} when the first
 * context starts): this module requires it on Spring's behalf, so a user needs no
 * {@code --add-modules}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.distlock.spring {
    requires transitive io.distlock;
    requires transitive spring.integration.core;
    requires transitive spring.beans;
    // On Spring's behalf (see above).
    requires org.apache.commons.logging;

    exports io.distlock.spring;
}
