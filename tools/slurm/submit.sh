#!/usr/bin/env bash
# make grade-class-slurm LAB=NN SUBMISSIONS=DIR [OUT=DIR] [SBATCH_ARGS=...]
# Grade a class on a Slurm cluster: one array task per submission (one GPU
# each, --gres=gpu:1), then a collect job that writes OUT/gradebook.csv
# once every task has ended, however it ended. OUT must be on storage the
# compute nodes share with this one. SBATCH_ARGS go to both sbatch calls
# (a partition, an account). Each grading task asks for --gres=$SLURM_GRES
# (default gpu:1); SLURM_GRES= (empty) asks for none, as CI does; and
# SLURM_CPUS CPUs (default 4, or fewer when no node of the partition has
# as many: sinfo says; a SLURM_CPUS more than any node has is refused).
# SUBMISSIONS may be in any layout tools/grade-class.sh reads (plain,
# Canvas, Gradescope); FORMAT and ASSIGNMENT go to the collect job. POLICY
# (a course's policy file) is checked and kept as OUT/policy.json, which
# every task and the collect job grade with.
set -euo pipefail
lab=${1:?usage: submit.sh LAB SUBMISSIONS [OUT] [sbatch args]}
subs=${2:?SUBMISSIONS}
out=${3:-}
shift 3 || shift $#
root=$(pwd)
read -r id slug _ < <("${GRADE:-build/bin/grade}" "$lab" --which)
[ -n "$out" ] || out=build/class/$id-$slug
mkdir -p "$out/results" "$out/logs"
out=$(cd "$out" && pwd)
[ -e "$subs" ] || { echo "submit: SUBMISSIONS=$subs does not exist" >&2; exit 2; }
bash tools/grade-class.sh --list "$id" "$subs" "$out"
n=$(wc -l < "$out/entries/list")
[ "$n" -gt 0 ] || { echo "submit: no submissions in $subs" >&2; exit 2; }
[ -e "$out/seed" ] || echo "${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}" > "$out/seed"
export CUDA_LABS_ROOT=$root
gres=${SLURM_GRES-gpu:1}
# CPUs a task asks for: SLURM_CPUS (default 4), no more than the largest
# node of the partition has (sinfo), or the tasks would wait for good
partition=
prev=
for a in "$@"; do
    case $a in
    --partition=*) partition=${a#--partition=} ;;
    -p*) [ "$a" = -p ] || partition=${a#-p} ;;
    esac
    [ "$prev" != -p ] && [ "$prev" != --partition ] || partition=$a
    prev=$a
done
cpus=${SLURM_CPUS:-4}
[[ $cpus =~ ^[1-9][0-9]*$ ]] || { echo "submit: SLURM_CPUS=$cpus is not a number of CPUs" >&2; exit 2; }
most=$(sinfo -h -o '%c' ${partition:+-p "$partition"} 2> /dev/null | tr -dc '0-9\n' | sort -n | tail -n 1)
if [ -n "$most" ] && [ "$most" -gt 0 ] && [ "$cpus" -gt "$most" ]; then
    if [ -n "${SLURM_CPUS:-}" ]; then
        echo "submit: SLURM_CPUS=$cpus, but no node of ${partition:-the default partition} has more than $most CPUs: the tasks would wait for ever; ask for $most or fewer" >&2
        exit 2
    fi
    echo "submit: ${partition:-the default partition}'s nodes have at most $most CPUs: each task asks for $most (SLURM_CPUS sets it)"
    cpus=$most
fi
array=$(sbatch --parsable --export=ALL --chdir="$root" --array=0-$((n - 1)) \
    ${gres:+--gres=$gres} --cpus-per-task="$cpus" \
    --output="$out/logs/slurm-%A_%a.out" "$@" \
    tools/slurm/grade-class.sbatch "$id" "$out")
policy=()
[ ! -e "$out/policy.json" ] || policy=(--policy "$out/policy.json")
wrap=$(printf '%q ' "${GRADE:-build/bin/grade}" "$id" --collect "$out" \
    ${FORMAT:+--format "$FORMAT"} ${ASSIGNMENT:+--assignment "$ASSIGNMENT"} \
    "${policy[@]}")
collect=$(sbatch --parsable --export=ALL --chdir="$root" \
    --dependency=afterany:"${array%%;*}" --job-name=cuda-labs-collect \
    --output="$out/logs/slurm-collect-%j.out" "$@" --wrap="$wrap")
echo "submit: $n submissions, array job $array, collect job $collect${policy[1]:+, policy ${policy[1]}}"
echo "submit: the gradebook will be $out/gradebook.csv"
echo "$array $collect" > "$out/jobs"
