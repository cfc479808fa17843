#!/usr/bin/env bash
# Time every rung of each reference ladder through the grader's speed cases.
# Each solution reads its rung from an environment variable named in
# solutions/NN-name/LADDER (one line: VARIABLE first last).
set -uo pipefail
for f in solutions/[0-9][0-9]-*/LADDER; do
    [ -f "$f" ] || continue
    dir=$(dirname "$f")
    id=$(basename "$dir"); id=${id%%-*}
    read -r var first last < "$f"
    for k in $(seq "$first" "$last"); do
        echo "== lab $id rung $k ($var=$k)"
        env "$var=$k" build/bin/grade "$id" --solution --no-color --seed 1 \
            | grep -E '\(speed\)|^score'
    done
done
