package io.distlock.cli;

import io.distlock.cli.demo.ReconciliationDemo;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/** {@code distlock demo}: the README's story on an embedded ZooKeeper, nothing to install. */
@Command(name = "demo", description = "Five instances, one nightly job, on an embedded ZooKeeper: exactly one runs it;"
        + " then a paused holder's stale write is rejected by its fencing token. Exits 0 only if both happen.")
final class DemoCommand implements Callable<Integer> {

    @Override
    public Integer call() throws Exception {
        // The embedded server's own start-up warnings (its connection limit, say) are not the demo's story.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper.server", "error");
        return ReconciliationDemo.run() == 0 ? ExitCodes.OK : ExitCodes.FAILED;
    }
}
