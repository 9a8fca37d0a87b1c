#!/usr/bin/env bash
# The nightly-reconciliation demo on an embedded, in-process ZooKeeper: five instances, exactly one
# runs the job; then a paused holder's stale write is rejected by its fencing token. Needs only a
# JDK 17+ and network access to Maven Central. Exits 0 only if both outcomes are as they should be.
# --prebuilt skips installing distlock's modules (test.sh has just installed them all).
set -euo pipefail
cd "$(dirname "$0")"

if [ "${1:-}" != --prebuilt ]; then
  echo "demo.sh: building distlock's ZooKeeper backend (first run downloads dependencies)..."
  ./mvnw -q -B --no-transfer-progress -DskipTests install -pl bom,lock-api,lock-zookeeper -am
fi
demo=examples/reconciliation-demo
./mvnw -q -B --no-transfer-progress -f "$demo/pom.xml" package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt
echo "demo.sh: running the demo"
exec java -cp "$demo/target/classes:$(cat "$demo/target/classpath.txt")" demo.ReconciliationDemo
