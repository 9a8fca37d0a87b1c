package io.distlock.spi;

/**
 * What one request asks the server to hold on its name: the whole lock, a share of a read-write
 * lock's read side, its write side, or one of a semaphore's permits. A name's three primitives are
 * independent: {@code lock("jobs")}, {@code readWriteLock("jobs")} and {@code semaphore("jobs", n)}
 * are three objects on the server, and a driver keeps them apart (a key space or a path per kind).
 *
 * <p>Whatever the kind, the engine treats a grant the same way — validity, renewal, release, loss,
 * cleanup after an unknown outcome — so a driver reads the hold only where the server's state
 * differs: what {@link LockDriver#tryAcquire} may grant beside what is already held, and where
 * {@link LockDriver#extend}, {@link LockDriver#release} and {@link LockDriver#abandon} find the holder.
 *
 * @param kind    what is held
 * @param permits a semaphore's permit count (what the server compares with the count it stored for
 *                the name); 1 for every other kind
 */
public record Hold(Kind kind, int permits) {

    /** The kinds of hold. */
    public enum Kind {
        /** A mutual-exclusion lock ({@link io.distlock.LockClient#lock}): one holder. */
        EXCLUSIVE,
        /**
         * A read-write lock's read side: any number of readers, none while a writer holds it or a
         * writer waits (write preference).
         */
        READ,
        /** A read-write lock's write side: one writer, and no reader. */
        WRITE,
        /** One of a semaphore's {@link Hold#permits()} permits. */
        PERMIT
    }

    /** A mutual-exclusion lock. */
    public static final Hold EXCLUSIVE = new Hold(Kind.EXCLUSIVE, 1);
    /** A read-write lock's read side. */
    public static final Hold READ = new Hold(Kind.READ, 1);
    /** A read-write lock's write side. */
    public static final Hold WRITE = new Hold(Kind.WRITE, 1);

    /**
     * @param kind    what is held
     * @param permits the permit count for {@link Kind#PERMIT}, else 1
     * @throws NullPointerException     if {@code kind} is null
     * @throws IllegalArgumentException if {@code permits} is not positive, or not 1 for a kind other than a permit
     */
    public Hold {
        java.util.Objects.requireNonNull(kind, "kind");
        if (permits <= 0) {
            throw new IllegalArgumentException("permits must be positive, was " + permits);
        }
        if (kind != Kind.PERMIT && permits != 1) {
            throw new IllegalArgumentException(kind + " holds one, not " + permits);
        }
    }

    /**
     * @param permits the semaphore's permit count
     * @return one permit of a semaphore of {@code permits}
     * @throws IllegalArgumentException if {@code permits} is not positive
     */
    public static Hold permit(int permits) {
        return new Hold(Kind.PERMIT, permits);
    }

    /** @return true if others may hold the same name's kind beside this one (a reader, a permit) */
    public boolean shared() {
        return kind == Kind.READ || kind == Kind.PERMIT;
    }

    /** @return the primitive's word for people: "lock", "read lock", "write lock", "semaphore permit" */
    public String describe() {
        switch (kind) {
            case READ:
                return "read lock";
            case WRITE:
                return "write lock";
            case PERMIT:
                return "permit of a " + permits + "-permit semaphore";
            default:
                return "lock";
        }
    }
}
