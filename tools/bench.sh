#!/usr/bin/env bash
# make bench LAB=NN [SOLUTION=1]: time the speed cases and the size sweep
# (the grader's --bench) and print them as a Markdown table. The rows also
# go to $BENCH_DIR/labNN.csv (default build/bench), which `make plots`
# draws. With SOLUTION=1, one run per rung of each ladder listed in
# solutions/NN-*/LADDER: lines of "VARIABLE first last [GROUP]", where a
# GROUP times that variable's rungs on the cases named "GROUP:..." alone,
# and optional lines of 'name VARIABLE k "rung name"': the rung's label in
# the CSV and the table (and the plots' legend); "VARIABLE=k" without one.
# Without a GPU it says so and exits 3 (the grader's code), printing no
# table; any other failure of the grader (a usage error, a crash, a grader
# that is not there) is named, and it exits with the grader's code after
# the table of what was timed. GRADE: the grader (make passes its build's).
set -uo pipefail
lab=${1:?usage: bench.sh LAB [student|solution]}
variant=${2:-student}
grade=${GRADE:-build/bin/grade}
dir=${BENCH_DIR:-build/bench}
mkdir -p "$dir"
csv="$dir/lab$lab.csv"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
{
    echo "# ${gpu:-unknown GPU}, $(date -u +%Y-%m-%d), $variant"
    "$grade" --csv-header
} > "$csv"

run() { # run LABEL [VAR=value]
    local label=$1; shift
    local said
    said=$(env "$@" "$grade" "$lab" $([ "$variant" = solution ] && echo --solution) \
        ${POLICY:+--policy "$POLICY"} --bench --no-color --seed 1 --csv "$csv" --label "$label" \
        "${only[@]}" 2>&1 >/dev/null)
    local rc=$?
    if [ $rc -eq 3 ]; then # nothing to time anywhere: say so once, and fail
        # the grader's own reason ("no NVIDIA driver or GPU found", ...)
        said=$(printf '%s\n' "$said" | sed -n 's/^grade: \(.*\): nothing graded (exit 3)$/\1/p' | tail -n 1)
        echo "bench: ${said:-no usable NVIDIA GPU}: nothing was timed (the grader exited 3)" >&2
        exit 3
    fi
    if [ $rc -gt 1 ]; then # a usage error, a crash, no grader (127): a failure
        printf '%s\n' "$said" | tail -n 3 >&2
        echo "bench: the grader exited $rc for $label" >&2
        failed=$rc
    fi
}
failed=0
only=() # -c NAME for each case a rung of a GROUP is timed on

# the timed cases (speed and bench) of GROUP, as the grader's -c options
group_cases() {
    "$grade" "$lab" --list 2>/dev/null |
        awk -v g="$1:" '($2 == "speed" || $2 == "bench") && index($1, g) == 1 { print "-c"; print $1 }'
}

if [ "$variant" = solution ] && [ -f solutions/"$lab"-*/LADDER ]; then
    ladder=$(echo solutions/"$lab"-*/LADDER)
    declare -A names=()
    while read -r kw var k name; do
        [ "$kw" = name ] || continue
        name=${name#\"}
        name=${name%\"}
        # no commas (CSV) and no single quotes (gnuplot's titles)
        names["$var=$k"]=$(printf '%s' "$name" | tr ",'" ";_")
    done < "$ladder"
    while read -r var first last group; do
        [ -n "$var" ] && [ "$var" != name ] || continue
        only=()
        # a rung of one group is timed on that group's cases alone
        [ -z "$group" ] || mapfile -t only < <(group_cases "$group")
        if [ -n "$group" ] && [ ${#only[@]} -eq 0 ]; then
            echo "bench: $ladder names group $group, but lab $lab has no timed case $group:..." >&2
            failed=2
            continue
        fi
        for k in $(seq "$first" "$last"); do
            label=${names["$var=$k"]:-$var=$k}
            run "$label" "$var=$k"
        done
    done < "$ladder"
else
    run "$variant"
fi

echo "| code | case | time (ms) | baseline (ms) | speedup | rate | baseline rate | ceiling rate |"
echo "|---|---|---|---|---|---|---|---|"
awk -F, '!/^#/ && $1 != "lab" {
    printf "| %s | %s | %.4f | %.4f | %.2fx | %.1f | %.1f | %s |\n",
        $2, $3, $5, $6, $6 / $5, $8, $9, ($10 > 0 ? sprintf("%.1f", $10) : "-") }' "$csv"
exit "$failed"
