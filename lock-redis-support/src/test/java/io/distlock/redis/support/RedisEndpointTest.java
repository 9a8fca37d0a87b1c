package io.distlock.redis.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RedisEndpointTest {

    private static final String SECRET = "Sup3r-s3cret";

    private static RedisEndpoint parse(String uri) {
        return RedisEndpoint.parse(URI.create(uri), RedisEndpoint.OPTIONS);
    }

    @Test
    void parsesTheFullForm() {
        RedisEndpoint e = parse("redis://alice:" + SECRET + "@cache.example:6380/3?poolSize=4&clientName=billing");
        assertThat(e.host()).isEqualTo("cache.example");
        assertThat(e.port()).isEqualTo(6380);
        assertThat(e.user()).isEqualTo("alice");
        assertThat(e.password()).isEqualTo(SECRET);
        assertThat(e.database()).isEqualTo(3);
        assertThat(e.intOption("poolSize", 8, 1, 64)).isEqualTo(4);
        assertThat(e.option("clientName")).isEqualTo("billing");
        assertThat(e.endpoint()).isEqualTo("cache.example:6380");
        assertThat(e.toString()).isEqualTo("cache.example:6380").doesNotContain(SECRET);
    }

    @Test
    void defaultsPortDatabaseAndUser() {
        RedisEndpoint e = parse("redis://127.0.0.1");
        assertThat(e.port()).isEqualTo(6379);
        assertThat(e.database()).isZero();
        assertThat(e.user()).isNull();
        assertThat(e.password()).isNull();
        assertThat(parse("redis://127.0.0.1:7000/").database()).isZero();
        assertThat(parse("redis://127.0.0.1:7000").intOption("poolSize", 8, 1, 64)).isEqualTo(8);
    }

    @Test
    void acceptsAPasswordWithoutUserAndDecodesEscapes() {
        RedisEndpoint e = parse("redis://:p%40ss%3Aw%2Fd@127.0.0.1:7000");
        assertThat(e.user()).isNull();
        assertThat(e.password()).isEqualTo("p@ss:w/d");
    }

    @Test
    void bracketsIpv6Hosts() {
        assertThat(parse("redis://[::1]:7000").endpoint()).isEqualTo("[::1]:7000");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "redis://:" + SECRET + "@",                           // no host
        "redis://:" + SECRET + "@:6379",                      // no host
        "redis:///0",                                         // no authority
        "redis:" + SECRET,                                    // opaque
        "redis://:" + SECRET + "@127.0.0.1:abc",              // bad port
        "redis://:" + SECRET + "@127.0.0.1:0",                // port out of range
        "redis://:" + SECRET + "@127.0.0.1:99999",            // port out of range
        "redis://:" + SECRET + "@127.0.0.1:6379/abc",         // database not a number
        "redis://:" + SECRET + "@127.0.0.1:6379/-1",          // database negative
        "redis://:" + SECRET + "@127.0.0.1:6379/1/2",         // not a database
        "redis://:" + SECRET + "@127.0.0.1:6379?bogus=1",     // unknown option
        "redis://:" + SECRET + "@127.0.0.1:6379?password=" + SECRET, // unknown option carrying a secret
        "redis://" + SECRET + "@127.0.0.1:6379",              // user info without ':'
        "redis://:" + SECRET + "@127.0.0.1:6379?poolSize=0",  // option out of range
    })
    void rejectsMalformedUrisWithoutShowingThePassword(String uri) {
        assertThatThrownBy(() -> {
            RedisEndpoint e = parse(uri);
            e.intOption("poolSize", 8, 1, 64);
        })
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain("3cret"));
    }

    @Test
    void malformedMessagesSayWhatIsWrong() {
        assertThatThrownBy(() -> parse("redis://:" + SECRET + "@127.0.0.1:abc"))
                .hasMessageContaining("bad port 'abc'").hasMessageContaining("redis://***@127.0.0.1:abc");
        assertThatThrownBy(() -> parse("redis://127.0.0.1:6379/abc")).hasMessageContaining("database 'abc'");
        assertThatThrownBy(() -> parse("redis://127.0.0.1:6379?bogus=1"))
                .hasMessageContaining("unknown option 'bogus'").hasMessageContaining("poolSize");
        assertThatThrownBy(() -> parse("redis://:" + SECRET + "@")).hasMessageContaining("no host");
    }

    @Test
    void redactsSecretsFromServerMessages() {
        RedisEndpoint e = parse("redis://:" + SECRET + "@127.0.0.1:7000");
        assertThat(e.redact("ERR bad password " + SECRET)).isEqualTo("ERR bad password ***");
        assertThat(parse("redis://127.0.0.1:7000").redact("nothing to hide")).isEqualTo("nothing to hide");
    }

    @Test
    void tlsTrueTurnsTlsOnForAnySchemeAndAllowsTheStoreOptions() {
        assertThat(parse("redis://127.0.0.1:7000").tls()).isFalse();
        assertThat(parse("redis://127.0.0.1:7000?tls=false").tls()).isFalse();
        assertThat(parse("rediss://127.0.0.1:7000").tls()).isTrue();
        RedisEndpoint e = RedisEndpoint.parse(URI.create("redlock://127.0.0.1:7000?tls=true&trustStore=/x&trustStorePassword="
                + SECRET), java.util.Set.of("nodeTimeout"));
        assertThat(e.tls()).isTrue();
        assertThat(e.option("trustStore")).isEqualTo("/x");
        assertThat(e.redact("store pw " + SECRET)).isEqualTo("store pw ***");
        assertThatThrownBy(() -> parse("redis://127.0.0.1:7000?trustStorePassword=" + SECRET))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("add tls=true")
                .satisfies(x -> assertThat(x.getMessage()).doesNotContain(SECRET));
        assertThatThrownBy(() -> parse("redis://127.0.0.1:7000?tls=1")).hasMessageContaining("tls=true or tls=false");
        assertThatThrownBy(() -> parse("rediss://127.0.0.1:7000?tls=false")).hasMessageContaining("tls=false");
        assertThatThrownBy(() -> parse("redis://127.0.0.1:7000?poolSize=2&poolSize=3")).hasMessageContaining("twice");
    }

    @Test
    void credentialsComeFromTheUriOrTheOptionsNeverBoth() {
        io.distlock.LockOptions withCredentials = io.distlock.LockOptions.builder()
                .credentials(io.distlock.Credentials.of("bob", SECRET)).build();
        RedisEndpoint fromOptions = parse("redis://127.0.0.1:7000").withCredentials(withCredentials);
        assertThat(fromOptions.hasCredentials()).isTrue();
        assertThat(fromOptions.user()).isEqualTo("bob");
        assertThat(fromOptions.currentCredentials().orElseThrow().username()).contains("bob");
        assertThat(fromOptions.redact("echo " + SECRET)).isEqualTo("echo ***");
        assertThat(fromOptions.withAddress("10.0.0.9", 7001).currentCredentials()).isPresent();
        assertThat(fromOptions.withoutCredentials().hasCredentials()).isFalse();

        RedisEndpoint fromUri = parse("redis://alice:" + SECRET + "@127.0.0.1:7000").withCredentials(io.distlock.LockOptions.defaults());
        assertThat(fromUri.currentCredentials().orElseThrow().username()).contains("alice");
        assertThat(parse("redis://127.0.0.1:7000").withCredentials(io.distlock.LockOptions.defaults()).hasCredentials()).isFalse();
        assertThatThrownBy(() -> parse("redis://alice:" + SECRET + "@127.0.0.1:7000").withCredentials(withCredentials))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(x -> assertThat(x.getMessage()).doesNotContain(SECRET));
    }

    @Test
    void leaseTimesRoundUpToWholeMilliseconds() {
        assertThat(RedisLockDriver.millis(Duration.ofMillis(10))).isEqualTo(10);
        assertThat(RedisLockDriver.millis(Duration.ofNanos(10_000_001))).isEqualTo(11);
        assertThat(RedisLockDriver.millis(Duration.ofNanos(1))).isEqualTo(1);
    }
}
