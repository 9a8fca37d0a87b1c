package io.distlock;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;

/**
 * The {@link ReadWriteLock} view of a {@link DistributedReadWriteLock}. The write side is one
 * {@link LeaseLock} view (exclusive anyway: the process's threads queue for it locally). The read side
 * gives each reading thread a view of its own, so that threads of one process read at once, each under
 * a lease of its own, as readers of different processes do; a thread's view goes when its last hold is
 * unlocked. A thread that holds one side and asks for the other is refused before anything is sent:
 * the server would make it wait for itself.
 */
final class ReadWriteLockView implements ReadWriteLock {

    private final LeaseLock write;
    private final Supplier<LeaseLock> newReader;
    private final Map<Thread, LeaseLock> readers = new ConcurrentHashMap<>();
    private final Lock readSide = new ReadSide();
    private final Lock writeSide = new WriteSide();

    ReadWriteLockView(LeaseLock write, Supplier<LeaseLock> newReader) {
        this.write = write;
        this.newReader = newReader;
    }

    @Override
    public Lock readLock() {
        return readSide;
    }

    @Override
    public Lock writeLock() {
        return writeSide;
    }

    @Override
    public String toString() {
        return "ReadWriteLock[" + write.name() + ", " + readers.size() + " reading threads"
                + (write.isLocked() ? ", write-locked" : "") + "]";
    }

    private final class ReadSide implements Lock {

        private LeaseLock mine() {
            if (write.isHeldByCurrentThread()) {
                throw new IllegalStateException("downgrade refused: this thread holds the write lock of '" + write.name()
                        + "'; unlock it before taking the read lock");
            }
            return readers.computeIfAbsent(Thread.currentThread(), t -> newReader.get());
        }

        /** The thread's view goes once it holds nothing (also after a lock call that failed). */
        private void forgetIfIdle(LeaseLock reader) {
            if (reader.getHoldCount() == 0) {
                readers.remove(Thread.currentThread(), reader);
            }
        }

        @Override
        public void lock() {
            LeaseLock reader = mine();
            try {
                reader.lock();
            } finally {
                forgetIfIdle(reader);
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            LeaseLock reader = mine();
            try {
                reader.lockInterruptibly();
            } finally {
                forgetIfIdle(reader);
            }
        }

        @Override
        public boolean tryLock() {
            LeaseLock reader = mine();
            try {
                return reader.tryLock();
            } finally {
                forgetIfIdle(reader);
            }
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            LeaseLock reader = mine();
            try {
                return reader.tryLock(time, unit);
            } finally {
                forgetIfIdle(reader);
            }
        }

        @Override
        public void unlock() {
            LeaseLock reader = readers.get(Thread.currentThread());
            if (reader == null) {
                throw new IllegalMonitorStateException("the read lock of '" + write.name() + "' is not held by "
                        + Thread.currentThread().getName());
            }
            try {
                reader.unlock();
            } finally {
                forgetIfIdle(reader);
            }
        }

        /** A read hold cannot wait on a condition: signalling needs exclusive ownership. */
        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("a read lock has no conditions");
        }
    }

    private final class WriteSide implements Lock {

        private void notReading() {
            if (readers.containsKey(Thread.currentThread())) {
                throw new IllegalStateException("upgrade refused: this thread holds the read lock of '" + write.name()
                        + "'; unlock it before taking the write lock (two readers upgrading would wait for each other)");
            }
        }

        @Override
        public void lock() {
            notReading();
            write.lock();
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            notReading();
            write.lockInterruptibly();
        }

        @Override
        public boolean tryLock() {
            notReading();
            return write.tryLock();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            notReading();
            return write.tryLock(time, unit);
        }

        @Override
        public void unlock() {
            write.unlock();
        }

        @Override
        public Condition newCondition() {
            return write.newCondition();
        }
    }
}
