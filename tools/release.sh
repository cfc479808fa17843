#!/bin/sh
# tools/release.sh handout DIST VERSION
# tools/release.sh solutions DIST VERSION [NN-name ...]
# tools/release.sh autograder DIST VERSION NN-name
#
# handout: every file git does not ignore, except solutions/, the grader's
#   and the common code's own tests (grader/tests/: known-good and
#   near-miss fixtures, the batch samples; common/tests/) and .ci/, as
#   DIST/cuda-labs-handout-VERSION.tar.gz with one top folder. No file in
#   it defines a lab's entry points but the skeletons (test_release checks).
# solutions: solutions/ of the named labs (all when none), with their
#   ladders, the performance notes and the lab write-ups, as
#   DIST/cuda-labs-solutions-VERSION[-labs].tar.gz.
# autograder: Gradescope's autograder for one lab, DIST/autograder-NN-name.zip:
#   setup.sh and run_autograder (tools/autograder/) at the top, autograder.env
#   naming the lab, and cuda-labs/: what building the grader and a
#   submission needs (the Makefile, common/, grader/ without its tests,
#   every lab's interface header, the lab's data files). No skeleton, no
#   solution, no test.
set -eu
what=${1:?usage: release.sh handout|solutions DIST VERSION [labs]}
dist=${2:?DIST}
version=${3:?VERSION}
shift 3
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

files() { # the working tree's files git does not ignore (or every file)
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard |
            while read -r f; do [ -f "$f" ] && echo "$f"; done
    else
        find . -type f ! -path './build/*' ! -path './dist/*' | sed 's|^\./||'
    fi
}

case $what in
handout)
    name=cuda-labs-handout-$version
    mkdir -p "$stage/$name"
    files | grep -v -E '^(solutions/|grader/tests/|common/tests/|\.ci/)' | while read -r f; do
        mkdir -p "$stage/$name/$(dirname "$f")"
        cp -p "$f" "$stage/$name/$f"
    done
    ;;
solutions)
    labs="$*"
    [ -n "$labs" ] || labs=$(ls solutions)
    suffix=""
    [ $# -eq 0 ] || suffix="-$(echo "$labs" | tr ' ' '\n' | cut -d- -f1 | tr '\n' '-' | sed 's/-$//')"
    name=cuda-labs-solutions-$version$suffix
    mkdir -p "$stage/$name"
    for lab in $labs; do
        [ -d "solutions/$lab" ] || { echo "release: no solutions/$lab" >&2; exit 2; }
        mkdir -p "$stage/$name/solutions" "$stage/$name/labs"
        cp -pR "solutions/$lab" "$stage/$name/solutions/"
        cp -pR "labs/$lab" "$stage/$name/labs/"
    done
    mkdir -p "$stage/$name/docs"
    cp -p docs/performance.md "$stage/$name/docs/"
    cat > "$stage/$name/README.md" <<TXT
# CUDA Labs $version: reference solutions

Labs: $labs

Copy solutions/ into your CUDA Labs tree and run
\`make grade LAB=NN SOLUTION=1\` to grade a reference, or
\`make bench LAB=NN SOLUTION=1\` to time every rung of its ladder (each
solution's LADDER file names the environment variable that picks a rung).
The write-ups (labs/) explain each rung; docs/performance.md has the
figures measured on the GPU named there.
TXT
    ;;
autograder)
    lab=${1:-}
    [ -n "$lab" ] && [ -d "labs/$lab" ] || {
        echo "autograder: no lab '$lab' (make autograder LAB=NN)" >&2
        exit 2
    }
    name=autograder-$lab
    top=$stage/$name
    mkdir -p "$top/cuda-labs"
    files | grep -E "^(Makefile|VERSION|common/[^/]+|grader/.+|tools/deps\.sh|labs/[^/]+/[^/]+\.h|labs/$lab/data/.+)\$" |
        grep -v -E '^grader/tests/' | while read -r f; do
        mkdir -p "$top/cuda-labs/$(dirname "$f")"
        cp -p "$f" "$top/cuda-labs/$f"
    done
    cp tools/autograder/setup.sh tools/autograder/run_autograder "$top/"
    chmod 755 "$top/setup.sh" "$top/run_autograder"
    printf 'LAB=%s\nVERSION=%s\n' "${lab%%-*}" "$version" > "$top/autograder.env"
    rm -f "$dist/$name.zip"
    if command -v zip >/dev/null 2>&1; then
        (cd "$top" && zip -qr "$dist/$name.zip" .)
    else # the files at the top of the archive, as Gradescope wants them
        python3 -c 'import shutil, sys; shutil.make_archive(sys.argv[1], "zip", sys.argv[2])' \
            "$dist/$name" "$top"
    fi
    echo "autograder: $dist/$name.zip"
    exit 0
    ;;
*)
    echo "usage: release.sh handout|solutions|autograder DIST VERSION [labs]" >&2
    exit 2
    ;;
esac
tar -C "$stage" -czf "$dist/$name.tar.gz" "$name"
echo "$what: $dist/$name.tar.gz"
