/**
 * A user's application on the module path. It requires only the API: the backends on the module
 * path are found by ServiceLoader (io.distlock {@code uses} the SPI, each backend {@code provides}
 * it, and the JVM binds them at start-up), so switching backends changes no module-info.
 */
module example.modular {
    requires io.distlock;
}
