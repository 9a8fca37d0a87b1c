#!/usr/bin/env bash
# distlock's test command: installs what a fresh Debian/Ubuntu machine lacks (the servers the
# tests start on free loopback ports, PostgreSQL and MariaDB included, and a C compiler for the
# Tair tests' Redis module), then builds and runs every test through the Maven wrapper.
# Extra arguments go to the reactor build, e.g. ./test.sh -Ddistlock.tck.timeoutFactor=3. Maven
# options for every build below (the examples and the demo too) go in Maven's own MAVEN_ARGS, e.g.
# MAVEN_ARGS=-Dmaven.repo.local=/path/to/repo ./test.sh
set -euo pipefail
cd "$(dirname "$0")"

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
# lock-etcd's EtcdCredentialsTest runs the README's etcdctl commands (role, user, grant) as written.
command -v etcdctl >/dev/null 2>&1 || missing+=(etcd-client)
# lock-fenced-jdbc's tests run PostgreSQL (lock-tck-fixtures' PostgresServer); Debian keeps its binaries off
# the PATH, in /usr/lib/postgresql/<version>/bin.
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=(postgresql)
# ... and MariaDB (lock-tck-fixtures' MariaDbServer); Debian puts mariadbd in /usr/sbin, off a user's PATH,
# and mariadb-install-db, mariadb-admin and mariadb in /usr/bin.
if ! { [ -x /usr/sbin/mariadbd ] || command -v mariadbd >/dev/null 2>&1; } \
    || ! command -v mariadb-install-db >/dev/null 2>&1 || ! command -v mariadb >/dev/null 2>&1; then
  missing+=(mariadb-server mariadb-client)
fi
# lock-cli's tests open the distlock command's HTML report in headless Chromium (screenshot and DOM).
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# The C compiler builds the CAS/CAD Redis module the Tair tests load into redis-server (lock-tck-fixtures' TairModule).
command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)

if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing ${missing[*]}"
    # Keep Debian from starting the packaged services on their default ports: the tests start
    # their own servers and must never meet one someone else started (mariadb-server's postinst then
    # only initialises /var/lib/mysql; no mariadbd is left running).
    policy_created=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
      chmod +x /usr/sbin/policy-rc.d
      policy_created=1
    fi
    # Nor create PostgreSQL's packaged cluster (it would be set to start on the default port 5432).
    pg_conf_created=
    if [ ! -e /etc/postgresql-common/createcluster.d/distlock.conf ]; then
      mkdir -p /etc/postgresql-common/createcluster.d
      echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/distlock.conf
      pg_conf_created=1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    if [ -n "$policy_created" ]; then rm -f /usr/sbin/policy-rc.d; fi
    if [ -n "$pg_conf_created" ]; then rm -f /etc/postgresql-common/createcluster.d/distlock.conf; fi
  else
    echo "test.sh: missing ${missing[*]}; install with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# Build and test every module, installing the artifacts into the local repository so that the
# consumer examples can be built the way a user's project is: the BOM imported, no versions.
./mvnw -B --no-transfer-progress install "$@"
# The consumer examples: classpath and module path, each against a real server of every backend
# (started once per example), the README's examples, five instances running the job once; and one
# module-path project per artifact alone, each run with its README's own command (examples/module-path).
./mvnw -B --no-transfer-progress -f examples/pom.xml verify
# The README's demo, run by the distlock command the build above made (./distlock demo): it exits
# non-zero unless exactly one of five instances ran the job and the paused holder's stale write was rejected.
./demo.sh

# One closing line over every module's Surefire reports (Maven prints one summary per module). It
# counts the test cases themselves: a suite's header counts none of its @Nested classes' tests.
find . -path '*/surefire-reports/TEST-*.xml' -print0 | xargs -0 -r cat | awk '
  /^[ \t]*<testcase / { t++ } /^[ \t]*<failure[ >]/ { f++ } /^[ \t]*<error[ >]/ { e++ } /^[ \t]*<skipped[ >\/]/ { s++ }
  END { printf "%d passed, %d failed, %d skipped\n", t - f - e - s, f + e, s }' || true
