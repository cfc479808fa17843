#!/usr/bin/env bash
# make profile LAB=NN [SOLUTION=1]: Nsight Compute on the student's kernels
# for the lab's representative case. The grader's --profile mode brackets
# only the student's call, so ncu (--profile-from-start off) sees nothing
# else. Clocks are left alone (--clock-control none): a shared GPU should
# not have them locked. PROFILE_CASE="NAME..." profiles those cases instead
# (their report in build/profile/labNN-NAME.txt); PROFILE_SECTIONS="..."
# names ncu's sections (default: SpeedOfLight MemoryWorkloadAnalysis
# Occupancy); PROFILE_SUMMARY=1 also sums each kernel's launches (ncu's
# --print-summary per-kernel: a case of many launches in one table).
set -uo pipefail
lab=${1:?usage: profile.sh LAB LIB}
lib=${2:?usage: profile.sh LAB LIB}
out=${PROFILE_DIR:-build/profile}
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -z "$ncu" ]; then
    echo "profile: Nsight Compute (ncu) is not installed. It ships with the CUDA"
    echo "toolkit (package cuda-nsight-compute) or from NVIDIA's site; put ncu on PATH."
    exit 1
fi
mkdir -p "$out"
log="$out/lab$lab.txt"
cases=()
if [ -n "${PROFILE_CASE:-}" ]; then
    for c in $PROFILE_CASE; do cases+=(--case "$c"); done
    log="$out/lab$lab-$(echo "$PROFILE_CASE" | tr -c 'A-Za-z0-9.\n-' '_').txt"
fi
sections=()
for s in ${PROFILE_SECTIONS:-SpeedOfLight MemoryWorkloadAnalysis Occupancy}; do
    sections+=(--section "$s")
done
summary=()
[ "${PROFILE_SUMMARY:-0}" = 1 ] && summary=(--print-summary per-kernel)
"$ncu" --clock-control none --profile-from-start off --target-processes all \
    "${sections[@]}" "${summary[@]}" \
    "${GRADE:-build/bin/grade}" "$lab" --lib "$lib" --profile --no-color --seed 1 \
    --timeout 900 "${cases[@]}" > "$log" 2>&1
rc=$?
if grep -q "ERR_NVGPUCTRPERM" "$log"; then
    echo "profile: the driver does not let this user read GPU performance counters."
    echo "An administrator can allow it (NVreg_RestrictProfilingToAdminUsers=0, see"
    echo "NVIDIA's ERR_NVGPUCTRPERM page), or run the profile as root."
    exit 1
fi
if ! grep -q "Section: GPU Speed Of Light" "$log"; then
    echo "profile: ncu captured no kernel (exit $rc); its output is in $log"
    tail -n 20 "$log"
    exit 1
fi
# the report, then where to look
sed -n '/^  [A-Za-z_].*(.*)x(.*)/,$p' "$log" | grep -v '^==PROF==' | head -n 200
cat <<TXT

profile: full report in $log. Where to look:
  - Speed Of Light: Memory Throughput near 90% = bandwidth-bound (move fewer
    bytes); Compute (SM) Throughput high = arithmetic-bound; both low = too
    little work in flight.
  - Memory Workload Analysis: bank conflicts, L1/L2 hit rates, DRAM bytes.
  - Occupancy: achieved vs theoretical warps, and what limits them.
TXT
