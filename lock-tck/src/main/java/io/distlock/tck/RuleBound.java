package io.distlock.tck;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Runs each rule on a thread of its own and fails it if it has not ended within a generous bound, naming
 * where it is stuck: a backend call that never returns (a wait without a deadline, a deadlock) would
 * otherwise hang the whole verification — a build, or {@code distlock check} — with no verdict at all.
 * The rule's thread (a daemon) is interrupted and left behind; the rule's teardown, which runs next on
 * JUnit's thread, closes its clients within its own bound ({@link Rig#closeWithin}).
 *
 * <p>The bound is the configuration parameter (or system property) {@value #BOUND_PROPERTY}, in
 * seconds, if set; else five minutes, scaled by the environment's timeout factor, plus three times its
 * {@linkplain TestEnvironment#contentionDuration() contention duration}: far beyond what any rule takes on
 * a loaded machine (the slowest, a primary's failover, takes about 20 s), so only a hang reaches it.
 */
final class RuleBound implements InvocationInterceptor {

    static final String BOUND_PROPERTY = "distlock.tck.ruleBoundSeconds";

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext context) throws Throwable {
        Duration bound = bound(context, call.getTarget().filter(LockVerification.class::isInstance)
                .map(LockVerification.class::cast).map(LockVerification::environment).orElseGet(TestEnvironment::new));
        CompletableFuture<Void> ended = new CompletableFuture<>();
        Thread rule = new Thread(() -> {
            try {
                invocation.proceed();
                ended.complete(null);
            } catch (Throwable failure) {
                ended.completeExceptionally(failure);
            }
        }, "distlock-tck-rule " + context.getDisplayName());
        rule.setDaemon(true);
        rule.start();
        try {
            ended.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause();
        } catch (TimeoutException e) {
            StackTraceElement[] stuck = rule.getStackTrace();
            rule.interrupt();
            String number = VerdictExtension.ruleOf(context.getDisplayName()).orElse(context.getDisplayName());
            throw new AssertionError("[" + number + "] the rule did not end within " + TestEnvironment.millis(bound)
                    + ": a call never returned. It was stuck in: " + frames(stuck) + deadlocks());
        } catch (InterruptedException e) {
            rule.interrupt();
            throw e;
        }
    }

    /** @return the bound of one rule (see the class comment) */
    static Duration bound(ExtensionContext context, TestEnvironment env) {
        return context.getConfigurationParameter(BOUND_PROPERTY).map(String::trim).filter(s -> !s.isEmpty())
                .map(seconds -> {
                    try {
                        return Duration.ofMillis(Math.round(Double.parseDouble(seconds) * 1000));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(BOUND_PROPERTY + " is not a number of seconds: '" + seconds + "'", e);
                    }
                })
                .orElseGet(() -> env.scaled(Duration.ofMinutes(5))
                        .plus(env.contentionDuration().orElse(Duration.ZERO).multipliedBy(3)));
    }

    /** @return the top frames of a stack, for a message */
    static String frames(StackTraceElement[] stack) {
        return Arrays.stream(stack).limit(12).map(StackTraceElement::toString)
                .collect(Collectors.joining(" <- "));
    }

    /** @return the threads the JVM finds deadlocked on monitors or locks, each with what it waits for and who holds it */
    static String deadlocks() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] ids = threads.findDeadlockedThreads();
        if (ids == null) {
            return "; no deadlock among monitors and locks (it waits for something else)";
        }
        StringBuilder text = new StringBuilder("; deadlocked threads:");
        for (ThreadInfo info : threads.getThreadInfo(ids, true, true)) {
            if (info != null) {
                text.append(" [").append(info.getThreadName()).append(" waits for ").append(info.getLockName())
                        .append(" held by ").append(info.getLockOwnerName()).append(", at ")
                        .append(frames(info.getStackTrace())).append(']');
            }
        }
        return text.toString();
    }
}
