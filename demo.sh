#!/usr/bin/env bash
# The nightly-reconciliation demo on an embedded, in-process ZooKeeper: five instances, exactly one
# runs the job; then a paused holder's stale write is rejected by its fencing token. Needs only a
# JDK 17+ and network access to Maven Central (the first run builds the distlock command). Exits 0
# only if both outcomes are as they should be. The same as ./distlock demo.
set -euo pipefail
cd "$(dirname "$0")"
exec ./distlock demo
