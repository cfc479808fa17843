#!/usr/bin/env bash
# Run the Check suites given as arguments and add up their totals:
#
#     run-suites.sh [-j N] SUITE... [-- SUITE...]
#
# A SUITE is a test program, or PROGRAM@CASE: that program's Check case
# CASE alone (CK_RUN_CASE), named "test_x@CASE", so that a long program
# runs as several suites side by side (a CASE that runs no test fails).
# The suites before "--" assert no time measured on a GPU (they may use
# one, for correctness): they may run N at a time (default: one per four
# cores, so one at a time below eight cores), started in the order given
# (put the longest first). The suites after "--" (whose timings need an
# idle GPU) run one at a time, after the first group. Each suite's output is printed
# whole, in the order given, then one line with its totals and wall time
# ("== test_x: 12 passed, 0 failed, 0 skipped in 34 s"), from the line
# each suite ends with (common/tests/suite.h: "cl-suite: P F S"). The last
# line is the total: "tests: P passed, F failed, S skipped in T s" (with
# CL_MAKE_T0, the epoch second make started, also the time with the build).
# CL_TEST_LOG_DIR=DIR: each suite also writes Check's XML log (every
# test's duration) to DIR/test_x.xml.
# Exit status: 0 when nothing failed and every suite printed its totals.
set -u
jobs=
if [ "${1:-}" = -j ]; then
    jobs=$2
    shift 2
fi
if [ -z "$jobs" ]; then
    cores=$(nproc 2>/dev/null || echo 1)
    jobs=$((cores / 4))
fi
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cl-suites-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
t_all=$(date +%s)

run_one() { # run_one SUITE: its output, exit code and seconds into $tmp
    local name t0 rc prog=${1%@*} vars=()
    name=$(basename "$1")
    # (set only for one case: an empty CK_RUN_CASE would run none)
    [ "$prog" = "$1" ] || vars+=("CK_RUN_CASE=${1##*@}")
    t0=$(date +%s)
    if [ -n "${CL_TEST_LOG_DIR:-}" ]; then
        mkdir -p "$CL_TEST_LOG_DIR"
        vars+=("CK_XML_LOG_FILE_NAME=$CL_TEST_LOG_DIR/$name.xml")
    fi
    env ${vars[@]+"${vars[@]}"} "$prog" > "$tmp/$name.out" 2>&1
    rc=$?
    echo "$rc $(($(date +%s) - t0))" > "$tmp/$name.end"
}

passed=0 failed=0 skipped=0 status=0
report() { # report SUITE: print its output and add up its totals
    local name rc secs line
    name=$(basename "$1")
    echo "== $name"
    cat "$tmp/$name.out"
    read -r rc secs < "$tmp/$name.end"
    line=$(grep '^cl-suite: ' "$tmp/$name.out" | tail -n 1)
    if [ -z "$line" ]; then
        echo "== $name: no totals (exit $rc) after $secs s: it did not finish"
        failed=$((failed + 1))
        status=1
        return
    fi
    # shellcheck disable=SC2086
    set -- ${line#cl-suite: }
    if [ "$1$2$3" = 000 ] && [ "${name%@*}" != "$name" ]; then
        # a case that ran nothing: a name that is not the program's
        echo "== $name: no test ran: no Check case '${name##*@}' in ${name%@*}?"
        failed=$((failed + 1))
        status=1
        return
    fi
    echo "== $name: $1 passed, $2 failed, $3 skipped in $secs s"
    passed=$((passed + $1))
    failed=$((failed + $2))
    skipped=$((skipped + $3))
    [ "$rc" -ne 0 ] && status=1
}

cpu=() serial=()
while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then
        shift
        serial=("$@")
        break
    fi
    cpu+=("$1")
    shift
done

if [ "$jobs" -le 1 ]; then
    for t in "${cpu[@]}"; do
        run_one "$t"
        report "$t"
    done
else
    echo "== ${#cpu[@]} suites side by side, $jobs at a time"
    running=0
    for t in "${cpu[@]}"; do
        if [ "$running" -ge "$jobs" ]; then
            wait -n
            running=$((running - 1))
        fi
        run_one "$t" &
        running=$((running + 1))
    done
    wait
    for t in "${cpu[@]}"; do report "$t"; done
fi
for t in "${serial[@]}"; do
    run_one "$t"
    report "$t"
done

[ "$failed" -ne 0 ] && status=1
now=$(date +%s)
total="$((now - t_all)) s"
case ${CL_MAKE_T0:-} in
'' | *[!0-9]*) ;;
*) total="$total ($((now - CL_MAKE_T0)) s with the build)" ;;
esac
echo "tests: $passed passed, $failed failed, $skipped skipped in $total"
exit $status
