#!/usr/bin/env bash
# make memcheck LAB=NN [SOLUTION=1]: compute-sanitizer on the student's code
# through the grader's quick cases: memcheck, then racecheck and synccheck
# when the source uses shared memory. One summary line per tool; the full
# reports go to build/memcheck/.
set -uo pipefail
lab=${1:?usage: memcheck.sh LAB LIB SOURCE}
lib=${2:?usage: memcheck.sh LAB LIB SOURCE}
src=${3:-}
out=${MEMCHECK_DIR:-build/memcheck}
# COMPUTE_SANITIZER names another (a test's stand-in)
cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -n 1)}
if [ -z "$cs" ]; then
    echo "memcheck: compute-sanitizer is not installed here: neither on PATH nor in /usr/local/cuda/bin. Most CUDA installs ship it (apt: cuda-sanitizer-13-0; pip and conda toolkits often lack it); a GPU host that has it runs 'make memcheck LAB=$lab'." >&2
    exit 1
fi
mkdir -p "$out"
tools="memcheck"
if [ -n "$src" ] && grep -q "__shared__" "$src"; then
    tools="memcheck racecheck synccheck"
fi
status=0
for tool in $tools; do
    log="$out/lab$lab-$tool.txt"
    # --tool-mode: the runner without its sandbox, so that the tool's
    # injection reaches the process that runs the student's code (in the
    # sandbox it cannot: the runner never starts, or runs unchecked)
    "$cs" --tool "$tool" --error-exitcode 9 "${GRADE:-build/bin/grade}" "$lab" --lib "$lib" \
        --tool-mode --quick --no-color --seed 1 --timeout 900 > "$log" 2>&1
    rc=$?
    summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -n 1 | sed 's/^=* *//')
    if [ $rc -eq 9 ] || { [ -n "$summary" ] && ! echo "$summary" | grep -qE ': 0 (errors|hazards)'; }; then
        echo "$tool: PROBLEMS: ${summary:-see $log}"
        grep -m 5 -E '^========= (Invalid|Race|Barrier|Error|Uninitialized)' "$log"
        status=1
    elif [ -z "$summary" ]; then
        echo "$tool: did not finish (exit $rc): see $log"
        status=1
    elif [ $rc -gt 1 ]; then
        # a summary of nothing: the grade stopped before its cases ran
        # (2 usage, 3 no GPU, 4 refused, 5 cannot load, 6 internal)
        echo "$tool: checked nothing: the grade under it exited $rc before its cases ran: see $log"
        grep -E 'did not start|internal|cannot|refused|error' "$log" | grep -v SUMMARY | head -n 3
        status=1
    elif [ $rc -eq 1 ]; then
        echo "$tool: clean ($summary); some cases gave wrong answers under the tool: see $log"
    else
        echo "$tool: clean ($summary)"
    fi
done
[ $status -eq 0 ] || echo "memcheck: full reports in $out/"
exit $status
