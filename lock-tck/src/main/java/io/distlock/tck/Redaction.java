package io.distlock.tck;

import java.util.regex.Pattern;

/**
 * URIs as the TCK's failure messages show them. Rules 5.8 and 5.9 name URIs that carry a
 * deployment's real credentials (a TLS verification's user, its trust store's password), and a
 * message goes into the verdict, which rule 6.4 checks for every secret the verification declared.
 */
final class Redaction {

    /** {@code scheme://user:password@}: the password, up to the {@code @} before the host. */
    private static final Pattern USER_INFO_PASSWORD = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@?#]*:)[^/?#]*@");

    /** A query option whose name ends in {@code password}, in any case: its value. */
    private static final Pattern QUERY_PASSWORD = Pattern.compile("([?&][^=&#]*(?i:password)=)[^&#]*");

    private Redaction() {
    }

    /**
     * @param uri    a URI as a verification supplied it
     * @param secret a secret to mask wherever it appears ({@link LockVerification#SECRET})
     * @return the URI with {@code secret}, the user-info password and every {@code ...password=} query
     *         value replaced by {@code ***}
     */
    static String uri(String uri, String secret) {
        String masked = USER_INFO_PASSWORD.matcher(uri.replace(secret, "***")).replaceFirst("$1***@");
        return QUERY_PASSWORD.matcher(masked).replaceAll("$1***");
    }
}
