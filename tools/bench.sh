#!/usr/bin/env bash
# make bench LAB=NN [SOLUTION=1]: time the speed cases and the size sweep
# (the grader's --bench) and print them as a Markdown table. The rows also
# go to $BENCH_DIR/labNN.csv (default build/bench), which `make plots`
# draws. With SOLUTION=1, one run per rung of each ladder listed in
# solutions/NN-*/LADDER (lines of "VARIABLE first last").
set -uo pipefail
lab=${1:?usage: bench.sh LAB [student|solution]}
variant=${2:-student}
grade=${GRADE:-build/bin/grade}
dir=${BENCH_DIR:-build/bench}
mkdir -p "$dir"
csv="$dir/lab$lab.csv"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo "# ${gpu:-unknown GPU}, $(date -u +%Y-%m-%d), $variant" > "$csv"

run() { # run LABEL [VAR=value]
    local label=$1; shift
    env "$@" "$grade" "$lab" $([ "$variant" = solution ] && echo --solution) \
        --bench --no-color --seed 1 --csv "$csv" --label "$label" >/dev/null 2>&1
    local rc=$?
    [ $rc -le 1 ] || echo "bench: the grader exited $rc for $label" >&2
}

if [ "$variant" = solution ] && [ -f solutions/"$lab"-*/LADDER ]; then
    while read -r var first last; do
        [ -n "$var" ] || continue
        for k in $(seq "$first" "$last"); do
            run "$var=$k" "$var=$k"
        done
    done < solutions/"$lab"-*/LADDER
else
    run "$variant"
fi

echo "| code | case | time (ms) | baseline (ms) | speedup | rate | baseline rate | ceiling rate |"
echo "|---|---|---|---|---|---|---|---|"
awk -F, '!/^#/ && $1 != "lab" {
    printf "| %s | %s | %.4f | %.4f | %.2fx | %.1f | %.1f | %s |\n",
        $2, $3, $5, $6, $6 / $5, $8, $9, ($10 > 0 ? sprintf("%.1f", $10) : "-") }' "$csv"
