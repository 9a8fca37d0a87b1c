/**
 * The distlock contract and its backend SPI.
 *
 * <p>Users see {@code io.distlock}; backend authors implement {@code io.distlock.spi}. The lease
 * engine that owns waiting, validity, renewal, interrupts and loss notification lives in a
 * package that is not exported: every backend gets the same policy.
 */
module io.distlock {
    exports io.distlock;
    exports io.distlock.spi;

    uses io.distlock.spi.LockBackend;
}
