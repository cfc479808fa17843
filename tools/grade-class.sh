#!/usr/bin/env bash
# Grade a whole class for one lab.
#
#   tools/grade-class.sh LAB SUBMISSIONS [OUT]      every submission
#   tools/grade-class.sh --one LAB ENTRY OUT        one (the Slurm tasks)
#
# SUBMISSIONS holds one entry per student: NAME.cu, a folder NAME/ with the
# lab's source file somewhere inside, or NAME.tar.gz / NAME.tgz / NAME.tar.
# Each is built in its own folder (OUT/work/NAME), graded in isolation by
# the grader with a wall-clock limit, and leaves OUT/results/NAME.json (the
# grader's results.json) or OUT/results/NAME.status (compile-error,
# no-source, timeout: decided without the grader). OUT/gradebook.csv is
# rebuilt from results/ at the end, so an interrupted batch loses nothing
# and a re-run skips what is graded unless FORCE=1 (results that say no GPU
# was visible are graded again).
#
# Environment: FORCE=1, TIMEOUT (seconds per submission, default 1800),
# SEED (one seed for the class; default from the date), GPUS ("0 1 ...":
# one submission at a time on each; default every visible GPU, or none).
set -uo pipefail
grade=${GRADE:-build/bin/grade}

lab_facts() { # sets LAB_ID LAB_SLUG LAB_SRC from the grader
    local facts
    facts=$("$grade" "$1" --which) || exit 2
    read -r LAB_ID LAB_SLUG LAB_SRC <<< "$facts"
}

status() { # status OUT NAME WORD MESSAGE
    printf '%s\t%s\n' "$3" "$4" > "$1/results/$2.status.tmp" &&
        mv "$1/results/$2.status.tmp" "$1/results/$2.status"
    rm -f "$1/results/$2.json"
}

grade_one() { # grade_one ENTRY OUT
    local entry=$1 out=$2 base name work src
    base=$(basename "$entry")
    name=${base%.tar.gz}; name=${name%.tgz}; name=${name%.tar}; name=${name%.cu}
    name=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_')
    # a result stands unless FORCE=1, or it says no GPU was there to grade
    if [ "${FORCE:-0}" != 1 ] && { [ -e "$out/results/$name.status" ] ||
        { [ -e "$out/results/$name.json" ] &&
          ! grep -q '"not graded: no GPU"' "$out/results/$name.json"; }; }; then
        echo "skip   $name (graded; FORCE=1 to grade again)"
        return 0
    fi
    work="$out/work/$name"
    rm -rf "$work" && mkdir -p "$work/in" "$out/logs"
    case $base in
        *.tar.gz|*.tgz|*.tar) tar -xf "$entry" -C "$work/in" 2>"$work/untar.log" ;;
        *.cu) cp "$entry" "$work/in/" ;;
        *) [ -d "$entry" ] && cp -R "$entry/." "$work/in/" ;;
    esac
    src=$(find "$work/in" -type f -name "$(basename "$LAB_SRC")" | head -n 1)
    if [ -z "$src" ]; then # a single .cu of another name will do
        [ "$(find "$work/in" -type f -name '*.cu' | wc -l)" = 1 ] &&
            src=$(find "$work/in" -type f -name '*.cu')
    fi
    if [ -z "$src" ]; then
        status "$out" "$name" no-source "no $(basename "$LAB_SRC") in the submission"
        echo "done   $name: no-source"
        return 0
    fi
    if ! make -s build-submission SRC="$src" SO="$work/lab.so" \
            LABDIR="$LAB_ID-$LAB_SLUG" > "$out/logs/$name.build.txt" 2>&1; then
        status "$out" "$name" compile-error \
            "$(grep -m 1 -i -E 'error' "$out/logs/$name.build.txt" | cut -c1-300)"
        echo "done   $name: compile-error"
        return 0
    fi
    timeout -k 10 "${TIMEOUT:-1800}" "$grade" "$LAB_ID" --lib "$work/lab.so" \
        --source "$src" --json "$out/results/$name.json" --seed "$SEED" \
        --no-color > "$out/logs/$name.txt" 2>&1
    local rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        status "$out" "$name" timeout "the whole submission ran past ${TIMEOUT:-1800} s"
    elif [ ! -e "$out/results/$name.json" ]; then
        status "$out" "$name" "internal error" "the grader exited $rc without results"
    fi
    echo "done   $name: exit $rc"
}

if [ "${1:-}" = --one ]; then
    lab_facts "${2:?LAB}"
    out=${4:?OUT}
    mkdir -p "$out/results"
    SEED=${SEED:-$(cat "$out/seed" 2>/dev/null || echo 1)}
    grade_one "${3:?ENTRY}" "$out"
    exit 0
fi

[ -n "${1:-}" ] || { echo "usage: make grade-class LAB=NN SUBMISSIONS=DIR [OUT=DIR]" >&2; exit 2; }
lab_facts "$1"
subs=${2:-}
[ -d "$subs" ] || { echo "grade-class: SUBMISSIONS=$subs is not a directory" >&2; exit 2; }
out=${3:-}
[ -n "$out" ] || out=build/class/$LAB_ID-$LAB_SLUG
mkdir -p "$out/results" "$out/logs"
[ -e "$out/seed" ] || echo "${SEED:-$(date -u +%Y%m%d)}" > "$out/seed"
SEED=$(cat "$out/seed")
export SEED

mapfile -t entries < <(find "$subs" -mindepth 1 -maxdepth 1 ! -name '.*' | sort)
echo "grade-class: lab $LAB_ID, ${#entries[@]} submissions, seed $SEED, results in $out"
gpus=${GPUS-$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr '\n' ' ')}
set -- $gpus
if [ $# -le 1 ]; then
    for e in "${entries[@]}"; do grade_one "$e" "$out"; done
else
    # one queue per GPU, one submission at a time on each
    i=0
    for g in "$@"; do
        (
            export CUDA_VISIBLE_DEVICES=$g
            for ((k = i; k < ${#entries[@]}; k += $#)); do
                grade_one "${entries[$k]}" "$out" | sed "s/^/[gpu $g] /"
            done
        ) &
        i=$((i + 1))
    done
    wait
fi
"$grade" "$LAB_ID" --collect "$out"
