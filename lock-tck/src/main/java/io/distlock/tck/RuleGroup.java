package io.distlock.tck;

/**
 * A group of rules of {@code lock-tck/SPEC.md}: a JUnit 5 test interface whose rules are default methods
 * annotated {@code @Test}, which JUnit Jupiter finds on the class that implements it. {@link LockVerification}
 * implements every group, in the order of SPEC.md (an order that means nothing: no group builds on
 * another), so an author still extends one class and JUnit finds every rule on it.
 *
 * <p>An interface's methods are public, so a group declares nothing but its rules (public as they always
 * were, each a member of {@code LockVerification}), private helpers of its own, and static ones that are
 * never inherited. Everything else a rule needs — its {@link Rig} (clients, leases, threads, its lock
 * name and timing), what it leaves for the verdict, the verification's hooks and the checks more than one
 * group makes on them — it reaches with {@code Rig rig = Rig.of(this)}. The groups themselves are
 * package-private: an author sees the rules, the hooks, {@code SECRET} and the per-rule set-up, as before,
 * and a new rule or group never widens that.
 *
 * <p>Adding a group: an interface {@code XRules extends RuleGroup} in this package, and its name in
 * {@code LockVerification}'s {@code implements} clause.
 */
interface RuleGroup {
}
