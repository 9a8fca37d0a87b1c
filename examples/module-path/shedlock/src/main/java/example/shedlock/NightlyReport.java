package example.shedlock;

import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.scheduling.annotation.Scheduled;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The README's job, every 100 ms instead of at 02:00 so that a run of the example sees it start. It
 * asserts that ShedLock holds its lock while it runs.
 */
public class NightlyReport {

    private final CountDownLatch ran = new CountDownLatch(1);

    @Scheduled(fixedDelay = 100)
    @SchedulerLock(name = "nightlyReport", lockAtLeastFor = "1m")
    public void nightlyReport() {
        LockAssert.assertLocked();
        System.out.println("shedlock: nightlyReport ran holding its lock");
        ran.countDown();
    }

    /**
     * @param seconds how long to wait
     * @return true once the job has run (through ShedLock's proxy, this is the job object's own state)
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitFirstRun(long seconds) throws InterruptedException {
        return ran.await(seconds, TimeUnit.SECONDS);
    }
}
