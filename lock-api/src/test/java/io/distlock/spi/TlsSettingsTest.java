package io.distlock.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Store handling without a server (the backends' TLS tests use real servers and certificates). */
class TlsSettingsTest {

    @Test
    void noStoreMeansTheJvmDefaultTrust() {
        TlsSettings settings = TlsSettings.parse(Map.of("other", "x"), "127.0.0.1:1", "Test URI");
        assertTrue(settings.isDefault());
        assertTrue(settings.trustStoreFile().isEmpty());
        assertTrue(settings.keyManagers().isEmpty());
        assertTrue(settings.trustManagers().getTrustManagers().length > 0);
    }

    @Test
    void anEmptyTrustStoreIsReadAndItsPasswordNeverShown(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trust.p12");
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, "store-pw-123".toCharArray());
        }
        TlsSettings settings = TlsSettings.parse(Map.of("trustStore", file.toString(), "trustStorePassword", "store-pw-123"),
                "127.0.0.1:1", "Test URI");
        assertEquals(file, settings.trustStoreFile().orElseThrow());
        assertFalse(settings.toString().contains("store-pw-123"), settings.toString());
        assertTrue(settings.sslContext() != null);

        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class, () -> TlsSettings.parse(
                Map.of("trustStore", file.toString(), "trustStorePassword", "not-the-pw-456"), "127.0.0.1:1", "Test URI"));
        assertFalse(wrong.getMessage().contains("not-the-pw-456"), wrong.getMessage());
        assertTrue(wrong.getMessage().contains("trustStore") && wrong.getMessage().contains(file.toString()), wrong.getMessage());
    }

    @Test
    void badOptionsAreNamed(@TempDir Path dir) {
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> TlsSettings.parse(
                Map.of("keyStore", dir.resolve("nope.p12").toString()), "127.0.0.1:1", "Test URI"));
        assertTrue(missing.getMessage().contains("not a readable file"), missing.getMessage());
        IllegalArgumentException orphan = assertThrows(IllegalArgumentException.class, () -> TlsSettings.parse(
                Map.of("trustStorePassword", "pw-789"), "127.0.0.1:1", "Test URI"));
        assertTrue(orphan.getMessage().contains("without trustStore"), orphan.getMessage());
        assertFalse(orphan.getMessage().contains("pw-789"));
        IllegalArgumentException type = assertThrows(IllegalArgumentException.class, () -> TlsSettings.parse(
                Map.of("trustStore", dir.toString(), "trustStoreType", "PEM"), "127.0.0.1:1", "Test URI"));
        assertTrue(type.getMessage().contains("PKCS12 or JKS"), type.getMessage());
    }
}
