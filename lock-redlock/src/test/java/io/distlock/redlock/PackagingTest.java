package io.distlock.redlock;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.distlock.tck.fixtures.BackendPackagingCheck;
import io.distlock.tck.fixtures.RedisFamilyPackaging;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static io.distlock.Feature.AUTO_RENEWAL;
import static io.distlock.Feature.INSPECTION;
import static io.distlock.Feature.LEASE_EXTENSION;
import static io.distlock.Feature.LOSS_NOTIFICATION;
import static io.distlock.Feature.QUORUM;
import static io.distlock.Feature.REVOCATION;
import static io.distlock.Guarantee.EFFICIENCY;

/**
 * The packaging checks every backend runs (BackendPackagingCheck), as a Redis-family member: on
 * the module path, reading the family's primitive relies on lock-redis-support's qualified export
 * to this module, and this artifact alone brings {@code redlock://} and no other scheme (no
 * {@code redis://}: lock-redis-single is not in it). Its own: the quorum fan-out's threading.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(RedisFamilyPackaging.member("io.distlock.redlock", RedlockBackend.class)
                .scheme("redlock", EFFICIENCY, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION, QUORUM, INSPECTION, REVOCATION)
                .loads("io.distlock.redlock.internal.RedlockDriver", "tryAcquire"));
    }

    @Test
    void noThreadsOrExecutorsInTheFanOut() {
        noClasses().should().dependOnClassesThat().resideInAPackage("java.util.concurrent..")
                .orShould().callConstructor(Thread.class, Runnable.class)
                .because("the fan-out runs on the calling thread: write to every node, then read every reply")
                .check(new ClassFileImporter().importPath(moduleLocation()));
    }
}
