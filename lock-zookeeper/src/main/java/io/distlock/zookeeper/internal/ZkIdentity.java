package io.distlock.zookeeper.internal;

import io.distlock.Credentials;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * A ZooKeeper digest identity made of {@link Credentials}: what the session presents
 * ({@code addAuthInfo("digest", "user:password")}) and what the server knows it as
 * ({@code digest:user:base64(sha1(user:password))}), and the ACL this client gives every node it
 * creates: ALL to that identity, READ to the world. {@link #toString()} names the user only.
 */
final class ZkIdentity {

    private final String user;
    private final byte[] auth;
    private final String digestId;
    private final List<ACL> acl;

    private ZkIdentity(String user, byte[] auth, String digestId) {
        this.user = user;
        this.auth = auth;
        this.digestId = digestId;
        // ZooKeeper's ACL checks call contains(null) on the list: a mutable list, not List.of.
        this.acl = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digestId)),
                new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
    }

    /**
     * @param credentials a user name and a password (checked by {@link ZkEndpoint#digestCredentials})
     * @return the identity
     * @throws IllegalStateException if the JDK has no digest algorithm for ZooKeeper's (SHA-1 by default)
     */
    static ZkIdentity of(Credentials credentials) {
        String user = credentials.username().orElseThrow();
        char[] password = credentials.password();
        String userPassword = user + ":" + new String(password);
        java.util.Arrays.fill(password, '\0');
        try {
            return new ZkIdentity(user, userPassword.getBytes(StandardCharsets.UTF_8),
                    DigestAuthenticationProvider.generateDigest(userPassword));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks the digest algorithm of ZooKeeper's digest authentication: "
                    + e.getMessage(), e);
        }
    }

    String user() {
        return user;
    }

    /** @return {@code user:password}, for {@code addAuthInfo}; never logged */
    byte[] auth() {
        return auth.clone();
    }

    /** @return {@code user:hash}, the identity's id in the {@code digest} scheme */
    String digestId() {
        return digestId;
    }

    /** @return ALL for this identity, READ for the world (a fresh mutable list: ZooKeeper asks it contains(null)) */
    List<ACL> acl() {
        return new ArrayList<>(acl);
    }

    /**
     * Whether {@code nodeAcl} (as {@code getACL} returned it to this identity's session) shows that this
     * identity's password is wrong: it never names this identity, and names this user with another
     * hash. To a session without ADMIN on the node ZooKeeper shows every digest as {@code user:x}:
     * such an entry refutes only if it grants ADMIN (had the password been right, the session would
     * have had ADMIN and seen the hash); one without ADMIN tells nothing.
     */
    boolean refutedBy(List<ACL> nodeAcl) {
        boolean refuted = false;
        for (ACL entry : nodeAcl) {
            Id id = entry.getId();
            if ("digest".equals(id.getScheme())) {
                if (id.getId().equals(digestId)) {
                    return false;
                }
                if (id.getId().equals(user + ":x")) {
                    refuted |= (entry.getPerms() & ZooDefs.Perms.ADMIN) != 0;
                } else if (id.getId().startsWith(user + ":")) {
                    refuted = true;
                }
            }
        }
        return refuted;
    }

    /** @return {@code user 'name' (digest)}; never the password or its hash */
    @Override
    public String toString() {
        return "user '" + user + "' (digest)";
    }
}
