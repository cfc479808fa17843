#!/usr/bin/env bash
# The system calls and files a runner needs, measured: every reference
# solution (and the honest fixtures) graded with `grade --syscall-census`,
# which has the runner trap nothing and name on stderr each call its
# seccomp allow-list (grader/runner/sandbox.c) lacks and each file it
# opens. The sum per lab goes to stdout; an empty "calls" line for every
# lab means the list is complete for them. Maintainers only: the census
# turns the sandbox off, so never run it on a submission.
#
#   bash tools/syscall-census.sh [LAB ...]      (default: every lab)
#   CENSUS_ARGS="--quick" to grade fewer cases
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
grade=${GRADE:-build/bin/grade}
[ -x "$grade" ] || { echo "census: no $grade (make first)" >&2; exit 2; }
labs=${*:-01 02 03 04 05 06}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for lab in $labs; do
    id=${lab%%-*}
    read -r _ slug _ < <("$grade" "$id" --which)
    libs="build/solution/$id-$slug.so"
    [ "$id" != 00 ] || libs=build/selftest/honest.so
    for f in grader/tests/fixtures/lab"$id"/{correct,naive,good,per_tensor,stream_query}.cu; do
        [ -e "$f" ] && libs="$libs build/fixtures/lab$id/$(basename "$f" .cu).so"
    done
    : > "$tmp/$id"
    for lib in $libs; do
        [ -e "$lib" ] || continue
        # shellcheck disable=SC2086
        "$grade" "$id" --lib "$lib" --syscall-census --no-color --seed 1 \
            ${CENSUS_ARGS:-} 2>&1 >/dev/null | grep -o 'census: .*' >> "$tmp/$id"
    done
    calls=$(grep 'census: stage [12] call' "$tmp/$id" | awk '{print $6}' | sort -u | tr '\n' ' ')
    echo "lab $id calls off the list: ${calls:-none}"
    grep 'census: stage [12] open' "$tmp/$id" | awk '{print "lab '"$id"' stage " $3 " open " $6}' | sort | uniq -c | sort -rn
    [ -z "$calls" ] || status=1
done
exit $status
