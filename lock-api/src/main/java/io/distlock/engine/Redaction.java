package io.distlock.engine;

import java.util.regex.Pattern;

/** Removes passwords from connection strings before they reach a message. */
final class Redaction {

    /** {@code scheme://user:secret@host} → {@code scheme://user:***@host}; also {@code //:secret@}. */
    private static final Pattern USER_INFO = Pattern.compile("//([^/@:?#]*):[^@]*@");
    private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)(password|pass|pwd|secret|token)=[^&#]*");

    private Redaction() {
    }

    static String redact(String text) {
        if (text == null) {
            return null;
        }
        String s = USER_INFO.matcher(text).replaceAll("//$1:***@");
        return PASSWORD_PARAM.matcher(s).replaceAll("$1=***");
    }
}
