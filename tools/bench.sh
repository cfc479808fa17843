#!/usr/bin/env bash
# make bench LAB=NN [SOLUTION=1]: the speed cases as one Markdown table.
# With SOLUTION=1, one row per rung of each ladder in solutions/NN-*/LADDER
# (VARIABLE first last per line); otherwise the student's build.
set -uo pipefail
lab=${1:?usage: bench.sh LAB [solution]}
variant=${2:-student}
grade=${GRADE:-build/bin/grade}
rows() { # rows LABEL [env...]: one table row per speed case
    local label=$1; shift
    env "$@" "$grade" "$lab" $([ "$variant" = solution ] && echo --solution) \
        --no-color --seed 1 2>/dev/null |
        awk -v r="$label" '/\(speed\)/ {
            sub(/ \(speed\)/, "");
            printf "| %s | %s | %s | %s | %s | %s | %s |\n", r, $1, $3, $5, $7, $8, $9 }'
}
echo "| code | case | status | time (ms) | baseline (ms) | speedup | rate | % of ceiling |" | sed 's/status | //'
echo "|---|---|---|---|---|---|---|"
if [ "$variant" = solution ]; then
    dir=$(ls -d solutions/"$lab"-* solutions/0"$lab"-* solutions/*-"$lab" 2>/dev/null | head -n 1)
    if [ -f "$dir/LADDER" ]; then
        while read -r var first last; do
            [ -n "$var" ] || continue
            for k in $(seq "$first" "$last"); do
                rows "$var=$k" "$var=$k"
            done
        done < "$dir/LADDER"
        exit 0
    fi
    rows "reference"
else
    rows "your code"
fi
