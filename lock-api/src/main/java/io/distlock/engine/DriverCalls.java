package io.distlock.engine;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.spi.Attempt;
import io.distlock.spi.ExtendOutcome;
import io.distlock.spi.Grant;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockRequest;
import io.distlock.spi.Renewal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The client's driver, and what its calls' failures mean in the contract: a
 * {@link BackendUnavailableException} is an unknown outcome; a call the client's close cut short is an
 * {@link IllegalStateException}; the contract's own exceptions and JDK misuse exceptions pass through;
 * anything else is wrapped in a {@link LockException} naming the backend and the operation, so that
 * users only ever catch {@code LockException} (and JDK misuse exceptions).
 */
final class DriverCalls {

    private final ClientState state;
    private volatile LockDriver driver;

    DriverCalls(ClientState state) {
        this.state = state;
    }

    void connected(LockDriver connected) {
        this.driver = connected;
    }

    LockDriver driver() {
        return driver;
    }

    /**
     * One attempt. A {@link BackendUnavailableException} the driver throws is an unknown outcome,
     * like {@link Attempt#unknown}; any other failure is thrown (the caller treats its outcome as
     * unknown for the cleanup). A call the client's close cut short is reported as such.
     */
    Attempt tryOnce(LockRequest request) {
        try {
            return Objects.requireNonNull(driver.tryAcquire(request), "driver returned no attempt");
        } catch (BackendUnavailableException e) {
            if (state.closed()) {
                throw state.closedDuring("acquire '" + request.name() + "'", e);
            }
            return Attempt.unknown(e);
        } catch (RuntimeException e) {
            if (state.closed()) {
                throw state.closedDuring("acquire '" + request.name() + "'", e);
            }
            throw translate(e, "acquire '" + request.name() + "' on " + state.endpoint());
        }
    }

    /**
     * One extension. A {@link BackendUnavailableException} the driver throws is an unknown outcome;
     * other failures are thrown.
     */
    ExtendOutcome extend(Grant grant, Duration leaseTime) {
        try {
            return Objects.requireNonNull(driver.extend(grant, leaseTime), "driver returned no outcome");
        } catch (BackendUnavailableException e) {
            return ExtendOutcome.unknown(e);
        } catch (RuntimeException e) {
            if (state.closed()) {
                throw state.closedDuring("extend '" + grant.name() + "'", e);
            }
            throw translate(e, "extend the lease on '" + grant.name() + "' on " + state.endpoint());
        }
    }

    /** A renewal batch: every failure that is not a definite answer is unknown, for every lease in it. */
    List<ExtendOutcome> extendAll(List<Renewal> renewals) {
        try {
            List<ExtendOutcome> results = driver.extendAll(renewals);
            if (results.size() != renewals.size()) {
                throw new LockException("driver answered " + results.size() + " renewals for " + renewals.size());
            }
            return results;
        } catch (RuntimeException e) {
            BackendUnavailableException cause = e instanceof BackendUnavailableException ? (BackendUnavailableException) e
                    : new BackendUnavailableException(state.endpoint(), "renewing " + renewals.size() + " leases on "
                    + state.endpoint() + " failed: " + e, e);
            List<ExtendOutcome> unknown = new ArrayList<>(renewals.size());
            for (int i = 0; i < renewals.size(); i++) {
                unknown.add(ExtendOutcome.unknown(cause));
            }
            return unknown;
        }
    }

    /**
     * A call that is neither an acquire nor an extension (an inspection, a revocation): a
     * {@link BackendUnavailableException} passes through (the caller decides what it means), a call
     * the client's close cut short is reported as such, anything else is translated.
     *
     * @param operation what is done, for messages: "inspect 'name'"
     */
    <T> T call(String operation, java.util.function.Supplier<T> call) {
        try {
            return Objects.requireNonNull(call.get(), "driver returned nothing for " + operation);
        } catch (BackendUnavailableException e) {
            if (state.closed()) {
                throw state.closedDuring(operation, e);
            }
            throw e;
        } catch (RuntimeException e) {
            if (state.closed()) {
                throw state.closedDuring(operation, e);
            }
            throw translate(e, operation + " on " + state.endpoint());
        }
    }

    /**
     * Keeps the contract's exceptions as they are and wraps anything else a driver lets escape,
     * so that users only ever catch {@link LockException} (and JDK misuse exceptions).
     */
    RuntimeException translate(RuntimeException e, String operation) {
        if (e instanceof LockException || e instanceof IllegalArgumentException || e instanceof IllegalStateException
                || e instanceof NullPointerException || e instanceof UnsupportedOperationException) {
            return e;
        }
        return new LockException("backend '" + state.descriptor().scheme() + "' failed to " + operation + ": " + e, e);
    }
}
