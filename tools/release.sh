#!/bin/sh
# tools/release.sh handout DIST VERSION
# tools/release.sh solutions DIST VERSION [NN-name ...]
#
# handout: every file git does not ignore, except solutions/ (and .ci/), as
#   DIST/cuda-labs-handout-VERSION.tar.gz with one top folder.
# solutions: solutions/ of the named labs (all when none), with their
#   ladders, the performance notes and the lab write-ups, as
#   DIST/cuda-labs-solutions-VERSION[-labs].tar.gz.
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
    files | grep -v -E '^(solutions/|\.ci/)' | while read -r f; do
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
*)
    echo "usage: release.sh handout|solutions DIST VERSION [labs]" >&2
    exit 2
    ;;
esac
tar -C "$stage" -czf "$dist/$name.tar.gz" "$name"
echo "$what: $dist/$name.tar.gz"
