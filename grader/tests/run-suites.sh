#!/bin/sh
# Run the Check suites given as arguments and add up their summaries.
# Each suite prints Check's "NN%: Checks: N, Failures: F, Errors: E" line;
# a suite that skips prints "SKIPPED: N tests: reason". The last line is the
# total: "tests: P passed, F failed, S skipped". Exit status: 0 when nothing
# failed.
set -u
passed=0 failed=0 skipped=0 status=0
for t in "$@"; do
    echo "== $(basename "$t")"
    out=$("$t" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n 1)
    skip=$(printf '%s\n' "$out" | sed -n 's/^SKIPPED: \([0-9]*\) tests.*/\1/p' | tail -n 1)
    if [ -n "$line" ]; then
        n=$(echo "$line" | sed 's/.*Checks: \([0-9]*\).*/\1/')
        f=$(echo "$line" | sed 's/.*Failures: \([0-9]*\).*/\1/')
        e=$(echo "$line" | sed 's/.*Errors: \([0-9]*\).*/\1/')
        passed=$((passed + n - f - e))
        failed=$((failed + f + e))
    elif [ -z "$skip" ]; then
        echo "$(basename "$t"): no Check summary (exit $rc)"
        failed=$((failed + 1))
    fi
    [ -n "$skip" ] && skipped=$((skipped + skip))
    [ $rc -ne 0 ] && status=1
done
[ $failed -ne 0 ] && status=1
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
