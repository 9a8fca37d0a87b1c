package io.distlock.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import io.distlock.BackendDescriptor;
import io.distlock.Feature;
import io.distlock.LockInfo;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code --json} forms: one object per line of a table, nulls kept so that scripts see every key. */
final class Json {

    static final Gson GSON = new GsonBuilder().serializeNulls().disableHtmlEscaping().setPrettyPrinting().create();

    private Json() {
    }

    static Map<String, Object> of(LockInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", info.name());
        m.put("kind", info.kind().name());
        m.put("holdId", info.holdId().orElse(null));
        m.put("permits", info.permits().isPresent() ? info.permits().getAsInt() : null);
        m.put("owner", info.owner().orElse(null));
        m.put("fencingToken", info.fencingToken().isPresent() ? info.fencingToken().getAsLong() : null);
        m.put("acquiredAt", info.acquiredAt().map(Object::toString).orElse(null));
        m.put("acquiredClock", info.acquiredClock().map(Enum::name).orElse(null));
        m.put("remainingMillis", info.remaining().map(d -> d.toMillis()).orElse(null));
        m.put("waiters", info.waiters().isPresent() ? info.waiters().getAsInt() : null);
        m.put("detail", info.detail());
        return m;
    }

    static Map<String, Object> of(BackendDescriptor backend) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scheme", backend.scheme());
        m.put("guarantee", backend.guarantee().name());
        m.put("features", backend.features().stream().sorted().map(Feature::name).toList());
        return m;
    }
}
