#!/bin/sh
# Run the Check suites given as arguments and add up their totals. Each
# suite ends with one line of Check's own counts (common/tests/suite.h):
# "cl-suite: PASSED FAILED SKIPPED". The last line here is the total:
# "tests: P passed, F failed, S skipped". Exit status: 0 when nothing
# failed and every suite printed its totals.
set -u
passed=0 failed=0 skipped=0 status=0
for t in "$@"; do
    echo "== $(basename "$t")"
    out=$("$t" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | grep '^cl-suite: ' | tail -n 1)
    if [ -z "$line" ]; then
        echo "$(basename "$t"): no totals (exit $rc): it did not finish"
        failed=$((failed + 1))
        status=1
        continue
    fi
    # shellcheck disable=SC2086
    set -- ${line#cl-suite: }
    passed=$((passed + $1))
    failed=$((failed + $2))
    skipped=$((skipped + $3))
    [ "$rc" -ne 0 ] && status=1
done
[ "$failed" -ne 0 ] && status=1
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
