package io.distlock.engine;

import java.net.InetAddress;
import java.util.HexFormat;

/**
 * The owner description a client's leases carry for whoever inspects a lock: the one set in
 * {@link io.distlock.LockOptions#owner()}, else {@code user@host:pid/<client-id>}, where the
 * client id tells apart two clients of one process. Never a secret: it is stored in the clear.
 */
final class Owners {

    /** {@code user@host:pid}, read once per process: the host name may need a lookup. */
    private static volatile String process;

    private Owners() {
    }

    /**
     * @param set    the owner description the options set, or null
     * @param tokens where the client id's randomness comes from
     * @return the client's owner description
     */
    static String of(String set, OwnerTokens tokens) {
        if (set != null) {
            return set;
        }
        String description = process() + "/" + HexFormat.of().formatHex(tokens.bytes(3));
        return description.length() <= io.distlock.LockOptions.MAX_OWNER_LENGTH ? description
                : description.substring(description.length() - io.distlock.LockOptions.MAX_OWNER_LENGTH);
    }

    private static String process() {
        String p = process;
        if (p == null) {
            p = clean(System.getProperty("user.name", "unknown")) + "@" + clean(host()) + ":" + ProcessHandle.current().pid();
            process = p;
        }
        return p;
    }

    private static String host() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException | SecurityException e) {
            return "unknown-host";
        }
    }

    /** A user or host name with a control character or a blank would be refused as an owner: replaced. */
    private static String clean(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(Character.isISOControl(c) || Character.isWhitespace(c) ? '_' : c);
        }
        return b.isEmpty() ? "unknown" : b.toString();
    }
}
