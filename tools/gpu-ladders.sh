#!/usr/bin/env bash
# Time every rung of each reference ladder through the grader's speed cases.
# solutions/NN-name/LADDER has one line per ladder: VARIABLE first last.
# LABS="02 03" limits the run to those labs.
set -uo pipefail
for f in solutions/[0-9][0-9]-*/LADDER; do
    [ -f "$f" ] || continue
    dir=$(dirname "$f")
    id=$(basename "$dir"); id=${id%%-*}
    [ -z "${LABS:-}" ] || [[ " $LABS " == *" $id "* ]] || continue
    while read -r var first last; do
        [ -n "$var" ] || continue
        for k in $(seq "$first" "$last"); do
            echo "== lab $id rung $k ($var=$k)"
            env "$var=$k" build/bin/grade "$id" --solution --no-color --seed 1 \
                | grep -E '\(speed\)|^score'
        done
    done < "$f"
done
