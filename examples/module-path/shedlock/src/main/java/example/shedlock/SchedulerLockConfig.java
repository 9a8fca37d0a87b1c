package example.shedlock;

import io.distlock.shedlock.DistlockLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

@Configuration
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "10m")
class SchedulerLockConfig {
    @Bean // Spring calls close() on shutdown: the provider owns the client it connected
    LockProvider lockProvider(@Value("${distlock.uri}") String uri) { // e.g. redis://10.0.0.5:6379
        return new DistlockLockProvider(uri);
    }

    @Bean // Spring Boot declares this one itself; on shutdown it lets a running job end first
    ThreadPoolTaskScheduler taskScheduler() {
        return new ThreadPoolTaskScheduler();
    }
}
