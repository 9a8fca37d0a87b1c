package io.distlock.tair;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.distlock.tck.fixtures.BackendPackagingCheck;
import io.distlock.tck.fixtures.RedisFamilyPackaging;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static io.distlock.Feature.AUTO_RENEWAL;
import static io.distlock.Feature.FENCING_TOKENS;
import static io.distlock.Feature.INSPECTION;
import static io.distlock.Feature.LEASE_EXTENSION;
import static io.distlock.Feature.LOSS_NOTIFICATION;
import static io.distlock.Feature.REVOCATION;
import static io.distlock.Feature.WAIT_NOTIFICATION;
import static io.distlock.Guarantee.EFFICIENCY;

/**
 * The packaging checks every backend runs (BackendPackagingCheck), as a Redis-family member that
 * also touches Jedis (for the connection a RedisNode lends) and TairString (CAS and CAD), with
 * tair-jedis as an automatic module on the module path. Its own: no Lua on its path.
 */
class PackagingTest extends BackendPackagingCheck {

    PackagingTest() {
        super(RedisFamilyPackaging.member("io.distlock.tair", TairLockBackend.class)
                .scheme("tair", EFFICIENCY, FENCING_TOKENS, LEASE_EXTENSION, AUTO_RENEWAL, LOSS_NOTIFICATION, WAIT_NOTIFICATION,
                        INSPECTION, REVOCATION)
                .requires("redis.clients.jedis", "alibabacloud.tairjedis.sdk")
                .driverJars("alibabacloud-tairjedis-sdk")
                .mayDependOn("Jedis for the connection a RedisNode lends, TairString for CAS and CAD",
                        "redis.clients.jedis", "redis.clients.jedis.exceptions", "com.aliyun.tair",
                        "com.aliyun.tair.tairstring", "com.aliyun.tair.tairstring.params")
                .loads("io.distlock.tair.internal.TairLockDriver", "tryAcquire", "extend"));
    }

    @Test
    void noScriptIsEverSent() {
        noClasses().should().dependOnClassesThat().haveSimpleName("RedisScript")
                .orShould().dependOnClassesThat().haveSimpleName("PendingReply")
                .orShould().callMethod(Jedis.class, "eval", String.class)
                .because("no Lua on this backend's path: CAS and CAD replace the scripts")
                .check(new ClassFileImporter().importPath(moduleLocation()));
    }
}
