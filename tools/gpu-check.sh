#!/usr/bin/env bash
# One batch for the GPU host: build, run every suite with the GPU, grade
# every lab with the skeleton and the solution, run compute-sanitizer on the
# solutions, and time each rung of each ladder. Logs and a summary go to
# $OUT (default: build/gpu-check): summary.txt, and every log and
# results.json in logs.tar.gz. Usage, from the project's root:
#
#     source .deps/env.sh          # offline host only (see the README)
#     bash tools/gpu-check.sh         # build, tests, grading, tools, batch
#     bash tools/gpu-check.sh bench   # the ladders' sweeps (make bench)
#     bash tools/gpu-check.sh lab 05 [06]  # one lab in depth: solution,
#                                     # skeleton, fixtures, ladder, sanitizers
#     bash tools/gpu-check.sh rung 05 GRU_KERNEL=5 [VAR=V...]  # a rung on
#                                     # trial: two full gradings with the
#                                     # variables and one without, the
#                                     # sanitizers on the quick cases with
#                                     # them, the bench with and without;
#                                     # steps past RUNG_DEADLINE (480 s) are
#                                     # skipped and named
#     bash tools/gpu-check.sh batch2  # a class batch on two GPUs (GPUS="0 1"),
#                                     # names with spaces, quotes, accents
#     bash tools/gpu-check.sh class3  # one class of 13 (LMS names, a Canvas
#                                     # download, references, honest slow
#                                     # code, a hang, a fault, a memory hog)
#                                     # graded with GPUS="0 1", "0 0" and 0:
#                                     # wall times, scores side by side, the
#                                     # GPU each queue graded on (one GPU:
#                                     # "0 0" and 0; CLASS3_RUNS="0-0 0"
#                                     # picks runs, CLASS3_TABLE="0-1 0-0 0"
#                                     # the table's, across two calls)
#     bash tools/gpu-check.sh soak [N] [sanitize]  # make soak: N rounds
#                                     # (default 3) of every reference and
#                                     # honest fixture, stopping before the
#                                     # 10-minute window ends; rows add up
#                                     # in $SOAK_OUT (carry it to resume);
#                                     # "sanitize": the SANITIZE=1 build;
#                                     # SOAK_TOTAL=N instead grades each
#                                     # until $SOAK_OUT holds N of it
#     bash tools/gpu-check.sh boundary  # the runner's mount namespace on
#                                     # every reference (the default),
#                                     # the confined build on a course
#                                     # file, one soak round (the frame)
#     bash tools/gpu-check.sh targets  # ncu on the reference's speed
#                                     # cases short of their targets, every
#                                     # kernel summed (TARGETS="05:t32-b8";
#                                     # each stops at TARGET_TIMEOUT, 180 s)
#     bash tools/gpu-check.sh data    # make data (docs/performance.md's
#                                     # run: peers then bench, every lab or
#                                     # LAB=, one card) until the window's
#                                     # end (DATA_DEADLINE, default 540 s
#                                     # from the start); call again at once
#                                     # on the same card to go on (exit 7
#                                     # in the summary: not done yet); the
#                                     # CSVs, MANIFEST and logs of DATA_OUT
#                                     # in $OUT/data.tar.gz each time
#     bash tools/gpu-check.sh autograder [01 06]  # the Gradescope bundle:
#                                     # setup.sh, then run_autograder on the
#                                     # reference and the skeleton, and on
#                                     # the reference again with a bundle
#                                     # whose course policy gives the speed
#                                     # cases no points
#
# Each phase fits a 10-minute window on one GPU.
set -uo pipefail
OUT=${OUT:-build/gpu-check}
grade=${GRADE:-build/bin/grade}
mkdir -p "$OUT/logs"
sum="$OUT/summary.txt"
final="$OUT"
OUT="$OUT/logs"
: > "$sum"
note() { echo "$*" | tee -a "$sum"; }
step() { # step NAME CMD...: run, log to $OUT/NAME.log, note the exit code
    local name=$1; shift
    local t0=$SECONDS
    "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    note "$(printf '%-34s exit %-3s %4ss' "$name" "$rc" $((SECONDS - t0)))"
    return $rc
}

phase=${1:-check}
note "gpu-check $phase $(date -u +%Y-%m-%dT%H:%MZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | tee -a "$sum"
make info 2>&1 | tee -a "$sum"
step build make -j"$(nproc)" all fixtures || { tail -30 "$OUT/build.log"; exit 1; }
if [ "$phase" = soak ]; then
    rounds=${2:-3}
    san=0
    [ "${3:-}" = sanitize ] && san=1
    [ $san = 1 ] && step build-sanitize make -j"$(nproc)" SANITIZE=1 all fixtures
    # the soak's own deadline ends it between gradings, inside the window
    step soak env SOAK_OUT="${SOAK_OUT:-$final/soak}" python3 tools/soak.py \
        $([ -n "${SOAK_TOTAL:-}" ] && echo --total "$SOAK_TOTAL" || echo --rounds "$rounds") --build "$([ $san = 1 ] && echo build/sanitize || echo build)" \
        --deadline "${SOAK_DEADLINE:-540}" $([ "${HOSTILE:-0}" = 1 ] && echo --hostile)
    tee -a "$sum" < "$OUT/soak.log" > /dev/null
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = boundary ]; then
    # what only the GPU host can show of the trust boundary: a reference
    # under the runner's own mount namespace (the default), quick
    # cases and one speed case each; the confined build refusing a course
    # file on a real lab; the references' frame before the load against
    # their events (one round of the soak: timing.tsv)
    for id in 01 02 03 04 05 06; do
        read -r _ slug _ < <("$grade" "$id" --which)
        speed=$("$grade" "$id" --list | awk '$2 == "speed" { print $1; exit }')
        step "jail-$id" "$grade" "$id" --solution \
            --no-color --seed 1 --quick --case "$speed" \
            $("$grade" "$id" --list | awk '$5 == "(quick)" { printf "--case %s ", $1 }')
        grep -E '^  sandbox:|^score|^  [a-zA-Z0-9:^=,-]+ +(pass|wrong|crash|forbidden|cuda-error|timeout|internal-error)' \
            "$OUT/jail-$id.log" | head -n 4 | tee -a "$sum"
    done
    printf '#include "%s/solutions/03-matmul/matmul.cu"\n' "$PWD" > "$OUT/include_course.cu"
    step include-course env SRC="$OUT/include_course.cu" SO="$OUT/ic.so" \
        CL_BUILD_STRICT=1 make -s build-submission LABDIR=03-matmul
    note "  include of the course's Lab 3 reference: cl-build exit $(cat "$OUT/ic.so.exit" 2>/dev/null || echo 0) (4 expected): $(grep -m 1 'cl-build: your file reads' "$OUT/include-course.log")"
    step soak-1 env SOAK_OUT="$final/soak" python3 tools/soak.py --rounds 1 \
        --deadline "${SOAK_DEADLINE:-420}"
    tee -a "$sum" < "$OUT/soak-1.log" > /dev/null
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = data ]; then
    # the deadline counts from this script's start: the build is in it
    data_out=${DATA_OUT:-build/data}
    dl=${DATA_DEADLINE:-540}
    [[ $dl =~ ^[0-9]+$ ]] || { note "data: DATA_DEADLINE must be seconds, not '$dl'"; exit 2; }
    left=$((dl - SECONDS))
    [ "$left" -gt 0 ] || left=1
    step data env DATA_OUT="$data_out" DEADLINE="$left" make -s data ${LAB:+LAB="$LAB"}
    rc=$?
    # make exits 2 for any failed recipe: the tool's own status is its
    # "Error N"
    err=$(sed -n 's/^make: \*\*\* \[.*data\] Error \([0-9]*\)$/\1/p' "$OUT/data.log" | tail -n 1)
    [ -z "$err" ] || rc=$err
    tee -a "$sum" < "$OUT/data.log" > /dev/null
    if [ -f "$data_out/MANIFEST" ]; then
        note "MANIFEST:"
        tee -a "$sum" < "$data_out/MANIFEST" > /dev/null
    fi
    case $rc in
    0) note "data: every step done: copy the CSVs and MANIFEST to docs/data, then make tables plots" ;;
    7) note "data: stopped at the deadline: call again at once, on the same card" ;;
    3) note "data: no GPU here: nothing was timed" ;;
    4) note "data: $data_out holds another card's or commit's run (DATA_OUT=a new folder)" ;;
    *) note "data: exit $rc (see $data_out/logs/ in data.tar.gz)" ;;
    esac
    tar -C "$data_out" -czf "$final/data.tar.gz" . 2>/dev/null
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = bench ]; then
    step ladders make bench SOLUTION=1
    tee -a "$sum" < "$OUT/ladders.log" > /dev/null
    cp build/bench/*.csv "$final/" 2>/dev/null # for docs/data and make plots
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = rung ]; then
    # a rung that is not the default yet, chosen by its variables (each
    # *_KERNEL or *_KERNEL_*: what reaches the runner): is it right, clean
    # under the sanitizers, and faster than the default on the same card
    id=${2:?usage: gpu-check.sh rung LAB VAR=VALUE...}
    shift 2
    [ $# -gt 0 ] || { note "rung: name the rung's variables (GRU_KERNEL=5)"; exit 2; }
    # in the order that matters most, each step only while the window
    # lasts (RUNG_DEADLINE seconds from the start, default 480): what did
    # not fit is named, never cut off half-way
    deadline=${RUNG_DEADLINE:-480}
    due() { # due NAME: is there time left for step NAME?
        [ $SECONDS -lt "$deadline" ] && return 0
        note "$(printf '%-34s skipped: past %s s' "$1" "$deadline")"
        return 1
    }
    graded() { # graded NAME SEED [VAR=V...]: one full grading
        local name=$1 seed=$2
        shift 2
        due "$name" || return 0
        step "$name" env "$@" "$grade" "$id" --solution --no-color --seed "$seed"
        grep -E '^score|\(speed\)' "$OUT/$name.log" | tee -a "$sum"
    }
    graded "rung-$id-seed11" 11 "$@"
    graded "default-$id-seed11" 11
    bench=$final/bench-$id.csv
    "$grade" --csv-header > "$bench"
    due "bench-$id-default" && step "bench-$id-default" "$grade" "$id" --solution \
        --bench --no-color --seed 1 --csv "$bench" --label default
    due "bench-$id-rung" && step "bench-$id-rung" env "$@" "$grade" "$id" --solution \
        --bench --no-color --seed 1 --csv "$bench" --label "$*"
    for tool in memcheck racecheck synccheck; do
        due "rung-$id-$tool" || continue
        step "rung-$id-$tool" env "$@" timeout $((deadline + 60 - SECONDS)) \
            "${COMPUTE_SANITIZER:-compute-sanitizer}" --tool $tool \
            --error-exitcode 9 "$grade" "$id" --solution --tool-mode --quick \
            --no-color --seed 1 --timeout 600
        note "  $(grep -E '(ERROR|RACECHECK) SUMMARY' "$OUT/rung-$id-$tool.log" | tail -n 1 | sed 's/^=* *//') ($(grep -cE ' pass ' "$OUT/rung-$id-$tool.log") cases passed)"
    done
    graded "rung-$id-seed12" 12 "$@"
    python3 - "$bench" << 'PY' | tee -a "$sum"
import csv, sys
rows = list(csv.DictReader(line for line in open(sys.argv[1]) if not line.startswith("#")))
if not rows:
    sys.exit("bench: nothing was timed")
cases = []
for r in rows:
    if r["case"] not in cases:
        cases.append(r["case"])
t = {(r["code"], r["case"]): float(r["time_ms"]) for r in rows}
codes = sorted({r["code"] for r in rows}, key=lambda c: c != "default")
print("| case | " + " | ".join(codes) + " |")
print("|---|" + "---|" * len(codes))
for c in cases:
    print("| %s | %s |" % (c, " | ".join("%.4f ms" % t[(k, c)] if (k, c) in t else "-" for k in codes)))
PY
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = lab ]; then
    shift
    for id in "$@"; do
        step "grade-$id-solution" "$grade" "$id" --solution --no-color \
            --seed 1 --json "$OUT/results-$id-solution.json"
        grep -vE '^Lab ' "$OUT/grade-$id-solution.log" | tee -a "$sum"
        step "grade-$id-skeleton" "$grade" "$id" --no-color --seed 1
        grep -E '^score' "$OUT/grade-$id-skeleton.log" | tee -a "$sum"
        for f in build/fixtures/lab"$id"/*.so; do
            [ -e "$f" ] || continue
            name=$(basename "$f" .so)
            step "fixture-$id-$name" "$grade" "$id" --lib "$f" --no-color --seed 1
            grep -E '^score|not graded|^  [a-z0-9-]+: ' "$OUT/fixture-$id-$name.log" | head -n 4 | tee -a "$sum"
        done
        step "memcheck-$id" make memcheck LAB="$id" SOLUTION=1
        grep -E '^(##|memcheck|racecheck|synccheck)' "$OUT/memcheck-$id.log" | tee -a "$sum"
        step "bench-$id" make bench LAB="$id" SOLUTION=1
        grep -E '^\|' "$OUT/bench-$id.log" | tee -a "$sum"
        cp build/bench/lab"$id".csv "$final/" 2>/dev/null
    done
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = batch2 ]; then
    ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
    [ "$ngpu" -ge 2 ] || { note "batch2: needs two GPUs, this host has $ngpu"; exit 1; }
    subs=build/gpu-check-subs/batch2
    out=build/class/gpu-check-batch2
    rm -rf "$subs" "$out" && mkdir -p "$subs/mary o'neil"
    ref=solutions/01-vector-add/vector_add.cu
    cp "$ref" "$subs/john smith.cu"
    cp "$ref" "$subs/mary o'neil/vector_add.cu"
    cp "$ref" "$subs/Zoë Ä.cu"
    cp "$ref" "$subs/Zoé Ä.cu"
    cp labs/01-vector-add/vector_add.cu "$subs/skeleton.cu"
    for f in short_by_one crash_kernel cublas; do
        cp "grader/tests/fixtures/lab01/$f.cu" "$subs/"
    done
    step batch2 env GPUS="0 1" TIMEOUT=300 make grade-class LAB=01 \
        SUBMISSIONS="$subs" OUT="$out"
    note "queues: gpu 0 graded $(grep -c '^\[gpu 0\] done' "$OUT/batch2.log"), gpu 1 graded $(grep -c '^\[gpu 1\] done' "$OUT/batch2.log") (8 in all expected)"
    note "GPUs seen in the results (2 expected): $(cat "$out"/results/*.json | grep -o '"uuid":[^,]*' | sort -u | wc -l)"
    note "rows: $(($(wc -l < "$out/gradebook.csv") - 1)) (8 expected), not graded: $(grep -c 'not graded' "$out/gradebook.csv") (0 expected)"
    cut -d, -f1-7 "$out/gradebook.csv" | tee -a "$sum"
    cp -R "$out" "$OUT/batch2-out"
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = class3 ]; then
    # one class graded three ways on one host, one after the other: two
    # queues on two GPUs (GPUS="0 1"), two queues on one (GPUS="0 0"), one
    # (GPUS=0); the wall times, each student's score in the three, and the
    # GPU each queue graded on (docs/instructor.md records the run). On a
    # host of one GPU, the last two; CLASS3_RUNS="0-0 0" names the runs
    # (a GPUS value with "-" for its spaces). The table compares the runs
    # named in CLASS3_TABLE (default: this call's), so the three can span
    # two calls on a warm host: each run's gradebook stays in build/class
    ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
    runs=${CLASS3_RUNS:-}
    if [ -z "$runs" ] && [ "$ngpu" -ge 2 ]; then
        runs="0-1 0-0 0"
    elif [ -z "$runs" ]; then
        runs="0-0 0"
        note "class3: this host has $ngpu GPU(s): GPUS=\"0 1\" needs two, so only \"0 0\" and 0"
    fi
    subs=build/gpu-check-subs/class3
    rm -rf "$subs" && mkdir -p "$subs/mary o'neil"
    ref=solutions/01-vector-add/vector_add.cu
    fx=grader/tests/fixtures/lab01
    # LMS-style names: spaces, a quote, accents (two that differ only so)
    cp "$ref" "$subs/john smith.cu"
    cp "$ref" "$subs/mary o'neil/vector_add.cu"
    cp "$ref" "$subs/Zoë Ä.cu"
    cp "$fx/naive.cu" "$subs/Zoé Ä.cu"
    # Canvas's download names (lastfirst[_LATE]_USERID_SUBMISSIONID_file)
    cp "$ref" "$subs/doejane_1001_5001_vector_add.cu"
    cp "$fx/naive.cu" "$subs/roedick_LATE_1002_5002_vector_add.cu"
    # honest but slower, and the skeleton
    cp "$fx/thrust.cu" "$subs/thrust user.cu"
    cp "$fx/syscall_bytes.cu" "$subs/syscall bytes.cu"
    cp labs/01-vector-add/vector_add.cu "$subs/skeleton.cu"
    # hostile: a hang, a kernel fault, and one that takes all the GPU's
    # memory it can get (256 MiB at a time, kept) before it adds
    cp "$fx/hang.cu" "$subs/hang.cu"
    cp "$fx/crash_kernel.cu" "$subs/crash kernel.cu"
    cp "$fx/short_by_one.cu" "$subs/short by one.cu"
    cat > "$subs/hog.cu" << 'CU'
#include "vector_add.h"

#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n,
                           cudaStream_t s)
{
    static int held;
    void *p;
    while (!held && cudaMalloc(&p, 256u << 20) == cudaSuccess)
        cudaMemsetAsync(p, 1, 256u << 20, s);
    held = 1;
    cudaGetLastError();
    add<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
CU
    for tag in $runs; do
        g=${tag//-/ }
        out=build/class/gpu-check-class3-$tag
        rm -rf "$out"
        t0=$SECONDS
        step "class3-$tag" env GPUS="$g" SEED=1 TIMEOUT=600 make grade-class \
            LAB=01 SUBMISSIONS="$subs" OUT="$out"
        note "GPUS=\"$g\": $((SECONDS - t0)) s wall for $(($(wc -l < "$out/gradebook.csv") - 1)) students; $(grep -h '^grade-class: .* graded again\|still unconfirmed' "$OUT/class3-$tag.log" | tr '\n' ' ')"
        cp "$out/gradebook.csv" "$OUT/gradebook-$tag.csv"
        cp "$OUT/class3-$tag.log" "$out/queue.log"
    done
    # each student's score three ways; the GPUs each queue graded on
    python3 - ${CLASS3_TABLE:-$runs} >> "$sum" << 'PY'
import csv, glob, os, re, sys
runs = sys.argv[1:]
books = {}
for r in runs:
    with open("build/class/gpu-check-class3-%s/gradebook.csv" % r, newline="") as f:
        books[r] = {row["student"]: row for row in csv.DictReader(f)}
print("| student | " + " | ".join("GPUS=%s score (correctness, speed, status)" % r for r in runs) + " | same correctness |")
print("|---|" + "---|" * (len(runs) + 1))
differ = 0
for who in sorted(books[runs[0]]):
    cells, corr = [], set()
    for r in runs:
        row = books[r].get(who)
        if not row:
            cells.append("missing")
            corr.add(None)
            continue
        cells.append("%s (%s, %s, %s)" % (row["score"], row["correctness"], row["speed"], row["status"]))
        corr.add((row["correctness"], row["status"]))
    same = len(corr) == 1
    differ += not same
    print("| %s | %s | %s |" % (who, " | ".join(cells), "yes" if same else "NO"))
print("students whose correctness or status differ across the runs: %d" % differ)
for r in runs:
    d = "build/class/gpu-check-class3-" + r
    queue = {}
    for line in open(os.path.join(d, "queue.log"), errors="replace"):
        m = re.match(r"^\[gpu (\S+)\] done .*\[([^\]]+)\]: ", line)
        if m:
            queue[m.group(2)] = m.group(1)
    seen = {}
    for path in glob.glob(os.path.join(d, "results", "*.json")):
        key = os.path.basename(path)[:-5]
        try:
            text = open(path).read()
        except OSError:
            text = ""
        m = re.search(r'"uuid":\s*"([^"]*)"', text)
        uuid = m.group(1) if m else "no GPU named"
        seen.setdefault(queue.get(key, "one queue"), set()).add(uuid)
    print("GPUS=%s: %s" % (r, "; ".join("queue %s graded on %s" % (q, ", ".join(sorted(u))) for q, u in sorted(seen.items()))))
PY
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = targets ]; then
    # Nsight Compute on the references' speed cases that miss their targets
    # (docs/performance.md): every kernel of one call, summed by kernel,
    # with the sections that name the limiter and the warps' stalls; the
    # reports go to logs.tar.gz, their key lines to summary.txt.
    # TARGETS="LAB:CASE ..." picks others. (Lab 6's b64 and b256 met
    # theirs on 2026-11-27, their ~300 launches take ncu past 100 s; Lab
    # 2's R = 8 met its on 2026-11-28, and Lab 5's t32-b8 at 8d9e2b3. At
    # t32-b8, the host's Nsight Compute (CUDA 13.0's) cannot profile rung
    # 6's cluster kernel: it fails at its first pass, LaunchFailed or,
    # under application replay, a misaligned address, where the
    # sanitizers find nothing (879c0ab and 8d9e2b3 alike, with the GEMM
    # or without); profile its GEMM (-k regex:ck_gemm0), or the rung
    # below (GRU_KERNEL=5).
    # Lab 3's FP32 ladder: MATMUL_KERNEL=7 TARGETS="03:4096^3".)
    sections="SpeedOfLight ComputeWorkloadAnalysis MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats SchedulerStats"
    for t in ${TARGETS:-02:B:8x1024x4096,K=128 05:t32-b64}; do
        id=${t%%:*} case=${t#*:}
        so=$(ls build/solution/"$id"-*.so 2>/dev/null | head -n 1)
        name=profile-$id-$(echo "$case" | tr -c 'A-Za-z0-9.\n-' '_')
        [ -n "$so" ] || { note "$name: no build/solution/$id-*.so"; continue; }
        # one that stalls is named, and the others still run
        step "$name" timeout "${TARGET_TIMEOUT:-180}" env PROFILE_DIR="$OUT/$name" PROFILE_CASE="$case" \
            PROFILE_SECTIONS="$sections" PROFILE_SUMMARY=1 \
            bash tools/profile.sh "$id" "$so"
        grep -E '^  [A-Za-z_].*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|No Eligible|Warp Cycles Per Issued' \
            "$OUT/$name"/*.txt | head -n 80 | tee -a "$sum"
    done
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
if [ "$phase" = autograder ]; then
    shift
    [ $# -gt 0 ] || set -- 01
    for id in "$@"; do
        read -r _ slug file < <("$grade" "$id" --which)
        dist=build/gpu-check-dist
        r=$PWD/build/gpu-check-ag/$id
        rm -rf "$r" && mkdir -p "$r/source" "$r/submission"
        step "autograder-zip-$id" make autograder LAB="$id" DIST="$dist"
        python3 tools/unzip.py "$dist/autograder-$id-$slug.zip" "$r/source"
        cp "$r/source/run_autograder" "$r/"
        # the host has CUDA and the libraries: setup.sh only builds
        step "autograder-setup-$id" env NO_APT=1 bash "$r/source/setup.sh"
        for who in reference skeleton; do
            rm -rf "$r/submission" "$r/results" && mkdir -p "$r/submission"
            if [ $who = reference ]; then
                cp "solutions/$id-$slug/$(basename "$file")" "$r/submission/"
            else
                cp "$file" "$r/submission/"
            fi
            step "autograder-run-$id-$who" env AUTOGRADER_ROOT="$r" "$r/run_autograder"
            cp "$r/results/results.json" "$OUT/autograder-$id-$who.json"
            note "  $id $who: $(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("valid results.json: score %s, %d tests, visibility %s, status %s" % (d.get("score"),
      len(d.get("tests", [])), d.get("visibility", "visible"),
      d.get("extra_data", {}).get("status")))' "$r/results/results.json" 2>&1 | tail -n 1)"
        done
        # a course policy in the bundle: the speed cases worth 0 points, so
        # the reference must score exactly the correctness points
        pol=$r/course-policy.json
        speed=$("$grade" "$id" --list | awk '$2 == "speed" { printf "%s\"%s\": 0", (n++ ? ", " : ""), $1 }')
        printf '{"name": "gpu-check: no speed points", "labs": {"%s": {"cases": {%s}}}}\n' "$id" "$speed" > "$pol"
        want=$("$grade" "$id" --policy "$pol" --list | awk '{ s += $3 } END { print s }')
        step "autograder-zip-$id-policy" make autograder LAB="$id" DIST="$dist" POLICY="$pol"
        # the same grader tree: only the files at the top change
        python3 tools/unzip.py "$dist/autograder-$id-$slug.zip" "$r/source" autograder.env policy.json
        rm -rf "$r/submission" "$r/results" && mkdir -p "$r/submission"
        cp "solutions/$id-$slug/$(basename "$file")" "$r/submission/"
        step "autograder-run-$id-policy" env AUTOGRADER_ROOT="$r" "$r/run_autograder"
        cp "$r/results/results.json" "$OUT/autograder-$id-policy.json"
        note "  $id reference, policy without speed points: $(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
want = float(sys.argv[2])
ok = d.get("score") == want and d.get("max_score") == want and d.get("extra_data", {}).get("policy") == "gpu-check: no speed points"
print("score %s of %s, policy %r: %s (expected %s of %s)" % (d.get("score"), d.get("max_score"),
      d.get("extra_data", {}).get("policy"), "OK" if ok else "WRONG", want, want))' "$r/results/results.json" "$want" 2>&1 | tail -n 1)"
    done
    note "done"
    tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
    exit 0
fi
step test make test
grep -E '^(tests:|[0-9]+%: Checks|SKIPPED|.*:[FE]:)' "$OUT/test.log" | tee -a "$sum"

labs=$(ls -d labs/[0-9][0-9]-* | xargs -n1 basename)
for lab in $labs; do
    id=${lab%%-*}
    step "grade-$id-solution" "$grade" "$id" --solution --no-color \
        --seed 1 --json "$OUT/results-$id-solution.json"
    grep -E '^score|^\s+n=|\(speed\)|^  [a-z]' "$OUT/grade-$id-solution.log" | tee -a "$sum"
    step "grade-$id-skeleton" "$grade" "$id" --no-color --seed 1
    grep -E '^score' "$OUT/grade-$id-skeleton.log" | tee -a "$sum"
done
# the student tools, on every lab's solution and on the skeletons
step memcheck make memcheck SOLUTION=1
grep -E '^(##|memcheck|racecheck|synccheck)' "$OUT/memcheck.log" | tee -a "$sum"
step memcheck-skeleton make memcheck
grep -E '^(##|memcheck|racecheck|synccheck)' "$OUT/memcheck-skeleton.log" | tee -a "$sum"
step profile make profile SOLUTION=1
grep -E '^##|Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|^profile:' "$OUT/profile.log" | tee -a "$sum"
# a class batch over two labs: solutions (full marks) and known-bad fixtures
for lab in 01 03; do
    subs=build/gpu-check-subs/$lab
    rm -rf "$subs" "build/class/gpu-check-$lab" && mkdir -p "$subs"
    cp solutions/"$lab"-*/*.cu "$subs/reference.cu"
    for f in grader/tests/fixtures/lab"$lab"/*.cu; do
        [ "$(basename "$f")" = no_symbol.cu ] || cp "$f" "$subs/"
    done
    [ -d grader/tests/fixtures/lab"$lab" ] && cp grader/tests/fixtures/lab"$lab"/*.cuh "$subs/" 2>/dev/null
    step "batch-$lab" env TIMEOUT=300 make grade-class LAB=$lab SUBMISSIONS="$subs" OUT="build/class/gpu-check-$lab"
    cut -d, -f1-7 "build/class/gpu-check-$lab/gradebook.csv" | tee -a "$sum"
done
# the Makefile's own paths
step make-grade-solution make grade LAB=01 SOLUTION=1 ARGS="--no-color --quick"
step make-grade-unknown make grade LAB=no-such-lab
grep -E 'unknown lab' "$OUT/make-grade-unknown.log" | tee -a "$sum"
note "done"
tar -C "$final" -czf "$final/logs.tar.gz" logs && rm -rf "$final/logs"
