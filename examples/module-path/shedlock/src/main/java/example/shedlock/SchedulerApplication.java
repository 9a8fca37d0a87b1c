package example.shedlock;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * lock-shedlock's README setup in a Spring context on the module path: {@link SchedulerLockConfig}
 * as the README shows it, and a {@code @SchedulerLock} job. Run as
 * {@code java -Ddistlock.uri=<uri> --module-path ... -m example.shedlock/example.shedlock.SchedulerApplication};
 * exits 0 once the job has run (within 30 s), 1 if it did not.
 */
public final class SchedulerApplication {

    private SchedulerApplication() {
    }

    public static void main(String[] args) throws InterruptedException {
        boolean ran;
        try (AnnotationConfigApplicationContext context =
                     new AnnotationConfigApplicationContext(SchedulerLockConfig.class, NightlyReport.class)) {
            ran = context.getBean(NightlyReport.class).awaitFirstRun(30);
        }
        if (!ran) {
            System.out.println("shedlock: the job did not run within 30 s");
            System.exit(1);
        }
    }
}
