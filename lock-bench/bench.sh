#!/usr/bin/env bash
# Builds lock-bench and what it needs from this tree (tests skipped), then runs the bench in a JVM
# of its own. Arguments go to the bench: --smoke (seconds; checks the harness, not the numbers),
# --runs N, --rounds N, --slice-ms N, --leases N, --only REGEX (whole row names, e.g. '.*etcd.*'),
# --out FILE. Default: the full run (3 runs, median and min–max), a few minutes. Needs redis-server
# and, for the etcd rows, etcd (Debian: apt-get install redis-server etcd-server).
#   DISTLOCK_TARGET=target-x   build output folder name (default target)
#   BENCH_JVM="..."            JVM options (default a fixed 1 GB heap)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${DISTLOCK_TARGET:-target}"
./mvnw -q -B -Ddistlock.target="$target" -pl lock-bench -am package -DskipTests
exec java ${BENCH_JVM:--Xms1g -Xmx1g} -Ddistlock.hazelcast.members="lock-bench/$target/hazelcast-members" \
    -cp "lock-bench/$target/classes:$(cat "lock-bench/$target/bench-classpath.txt")" \
    io.distlock.bench.Bench "$@"
