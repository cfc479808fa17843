#!/usr/bin/env bash
# make data [LAB=..] (maintainers): the data of docs/performance.md from one
# card. For each lab, `make peers LAB=NN SOLUTION=1` (the reference's graded
# rows and PyTorch's, into DATA_OUT/ref-NN.csv and peers-NN.csv); then for
# each lab `make bench LAB=NN SOLUTION=1` (every rung, DATA_OUT/labNN.csv).
#
# A run is one card's: DATA_OUT/MANIFEST names the GPU (its UUID) and the
# commit, and a step when it is done. Run again on the same card, it goes on
# where it stopped (a step cut short is done again); on another card, or at
# another commit, it refuses to add to DATA_OUT. DEADLINE=S stops starting
# steps S seconds after the start and gives the step under way what is left
# (a machine lent for a while: run again to go on). Copy DATA_OUT's CSVs
# and MANIFEST to docs/data/, then `make tables plots` where gnuplot is.
#
# Usage: tools/data-run.sh LAB...   (01 to 06; make passes its labs)
# Environment: DATA_OUT (default build/data), DEADLINE, MAKE (default
# make), NVIDIA_SMI (default nvidia-smi).
# Exit status: 0 every step done; 3 no GPU; 4 DATA_OUT holds another card's
# or commit's data; 7 stopped at the deadline with steps left; 2 usage;
# otherwise the failed step's tool's status (make's "Error N"), or 1 when
# it passed but left no CSV (its log is DATA_OUT/logs/).
set -uo pipefail
out=${DATA_OUT:-build/data}
make=${MAKE:-make}
smi=${NVIDIA_SMI:-nvidia-smi}
deadline=${DEADLINE:-0}
[ $# -gt 0 ] || { echo "usage: data-run.sh LAB... (01 to 06)" >&2; exit 2; }
for l in "$@"; do
    [[ $l =~ ^0[1-6]$ ]] || { echo "data-run: no lab '$l' (01 to 06)" >&2; exit 2; }
done
[[ $deadline =~ ^[0-9]+$ ]] || { echo "data-run: DEADLINE must be seconds, not '$deadline'" >&2; exit 2; }

# the card the grader times on: CUDA_VISIBLE_DEVICES's first, else the first
sel=()
[ -z "${CUDA_VISIBLE_DEVICES:-}" ] || sel=(-i "${CUDA_VISIBLE_DEVICES%%,*}")
gpu=$("$smi" "${sel[@]}" --query-gpu=name,uuid,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$gpu" ] || { echo "data-run: no NVIDIA GPU (nvidia-smi found none): nothing was timed" >&2; exit 3; }
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit+edits"

mkdir -p "$out/logs" || exit 2
manifest=$out/MANIFEST
if [ -f "$manifest" ]; then
    had_gpu=$(sed -n 's/^gpu: //p' "$manifest")
    had_commit=$(sed -n 's/^commit: //p' "$manifest")
    if [ "$had_gpu" != "$gpu" ] || [ "$had_commit" != "$commit" ]; then
        echo "data-run: $out holds the data of another card or commit" >&2
        echo "  there:  $had_gpu at $had_commit" >&2
        echo "  here:   $gpu at $commit" >&2
        echo "  a run is one card's at one commit: set DATA_OUT to a new folder, or remove $out" >&2
        exit 4
    fi
else
    printf 'gpu: %s\ncommit: %s\nstarted: %s\n' "$gpu" "$commit" "$(date -u +%FT%TZ)" > "$manifest"
fi

done_step() { grep -q "^done: $1 " "$manifest"; }
left() { # seconds the next step may take (0: none left); no deadline: a day
    if [ "$deadline" -eq 0 ]; then echo 86400; else echo $((deadline - SECONDS)); fi
}

# step NAME LAB: one make run, its CSVs moved into DATA_OUT when it is done
step() {
    local name=$1 lab=$2 tmp rc t=$SECONDS
    done_step "$name $lab" && { echo "data-run: $name $lab already done"; return 0; }
    local budget
    budget=$(left)
    if [ "$budget" -le 0 ]; then
        echo "data-run: deadline: $name $lab not started" >&2
        return 7
    fi
    tmp=$(mktemp -d "$out/.step.XXXXXX") || return 2
    echo "data-run: $name $lab (at most ${budget} s)"
    if [ "$name" = peers ]; then
        timeout "$budget" "$make" -s peers LAB="$lab" SOLUTION=1 PEERS_OUT="$tmp" > "$out/logs/$name-$lab.log" 2>&1
    else
        BENCH_DIR="$tmp" timeout "$budget" "$make" -s bench LAB="$lab" SOLUTION=1 > "$out/logs/$name-$lab.log" 2>&1
    fi
    rc=$?
    # make exits 2 for any failed recipe; the tool's own status is in its
    # "Error N" line
    if [ "$rc" -eq 2 ]; then
        local n
        n=$(sed -n 's/^make.*\] Error \([0-9][0-9]*\)$/\1/p' "$out/logs/$name-$lab.log" | tail -n 1)
        [ -z "$n" ] || rc=$n
    fi
    if [ "$rc" -eq 0 ]; then
        local ok
        if [ "$name" = peers ]; then
            mv "$tmp/grader-$lab.csv" "$out/ref-$lab.csv" && mv "$tmp/peers.csv" "$out/peers-$lab.csv"
        else
            mv "$tmp/lab$lab.csv" "$out/lab$lab.csv"
        fi
        ok=$?
        rm -rf "$tmp"
        if [ $ok -ne 0 ]; then
            echo "data-run: $name $lab passed but wrote no CSV (log: $out/logs/$name-$lab.log)" >&2
            return 1
        fi
        echo "done: $name $lab $((SECONDS - t)) s $(date -u +%FT%TZ)" >> "$manifest"
        return 0
    fi
    rm -rf "$tmp"
    tail -n 5 "$out/logs/$name-$lab.log" >&2
    if [ "$rc" -eq 124 ]; then
        echo "data-run: deadline: $name $lab cut short after $((SECONDS - t)) s (run again on this card to go on)" >&2
        return 7
    fi
    echo "data-run: $name $lab failed (make exited $rc; log: $out/logs/$name-$lab.log)" >&2
    return "$rc"
}

for name in peers bench; do
    for l in "$@"; do
        step "$name" "$l"
        rc=$?
        [ "$rc" -eq 0 ] || exit $rc
    done
done
echo "data-run: every step done on $gpu at $commit: $out"
