package io.distlock.cli;

/**
 * The command's exit codes, the same for every subcommand (README "The distlock command" lists them).
 * Scripts branch on them, so they never change meaning.
 */
final class ExitCodes {

    /** Done: listed, inspected and found held, revoked; check: every rule that ran passed. */
    static final int OK = 0;
    /** check: a rule failed; bench: a row could not be measured. */
    static final int FAILED = 1;
    /** Bad input: an unknown option, a malformed URI or name, an unknown scheme. Nothing was done. */
    static final int USAGE = 2;
    /** inspect or revoke: nobody holds the lock (nothing was changed). */
    static final int NOT_HELD = 3;
    /**
     * Refused: wrong credentials, no rights for the operation, or revoke not confirmed (declined, or no
     * terminal to ask on and no {@code --yes}). Nothing was changed.
     */
    static final int REFUSED = 4;
    /** The backend could not be reached or did not answer in time: nothing is known. */
    static final int UNAVAILABLE = 5;
    /** The backend does not offer what was asked (inspection or revocation). */
    static final int UNSUPPORTED = 6;
    /** Interrupted (Ctrl-C): what the command held is released or left to expire. */
    static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}
