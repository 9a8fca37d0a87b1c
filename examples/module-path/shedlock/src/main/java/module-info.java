/**
 * lock-shedlock with ShedLock's Spring integration on the module path: what lock-shedlock's README
 * tells such an application to add (Commons Logging, and its package opened to Spring).
 */
module example.shedlock {
    requires io.distlock.shedlock;
    requires net.javacrumbs.shedlock.spring;
    requires spring.context;
    requires org.apache.commons.logging;   // Spring logs through it, but its automatic modules cannot require it

    opens example.shedlock to spring.core, spring.beans, spring.context, spring.aop;   // configuration and job classes
}
