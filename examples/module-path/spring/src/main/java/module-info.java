/**
 * lock-spring alone on the module path: the application requires the registry's module, and opens
 * its configuration package to Spring, which reads and proxies it by reflection (lock-spring's README).
 */
module example.spring {
    requires io.distlock.spring;
    requires spring.context;
    requires spring.messaging;

    opens example.spring to spring.core, spring.beans, spring.context;
}
