#!/usr/bin/env bash
# Runs the console's browser suites RUNS times in a row (default 10) beside a CPU hog (a busy loop
# on one core), stopping at the first failure: the check that the browser tests wait on state, not
# time. Usage: scripts/browser-soak.sh [RUNS]
set -u
cd "$(dirname "$0")/.."
runs=${1:-10}
node -e 'for (;;) {}' &
hog=$!
trap 'kill $hog 2>/dev/null' EXIT
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  if ! node scripts/test.mjs src/modules/console/console.browser.test.ts \
    src/modules/console/console.imports.browser.test.ts src/modules/console/console.store.browser.test.ts \
    src/modules/console/console.admin.browser.test.ts \
    > "/tmp/browser-soak-$i.log" 2>&1; then
    echo "run $i of $runs failed after $(($(date +%s) - start)) s: /tmp/browser-soak-$i.log"
    exit 1
  fi
  echo "run $i of $runs passed in $(($(date +%s) - start)) s"
done
