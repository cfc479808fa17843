#!/bin/sh
# Print the function names that the solution libraries define and the
# skeleton libraries do not: what must never appear in a handout.
# usage: solution-symbols.sh "SOLUTION_LIBS" "SKELETON_LIBS"
set -eu
names() {
    nm --defined-only $1 | awk '$2 ~ /^[tT]$/' | cut -d' ' -f3- | c++filt |
        sed 's/(.*//; s/<.*//; s/.* //; s/.*:://' |
        grep -E '^[A-Za-z_][A-Za-z0-9_]{3,}$' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names "$1" > "$tmp/sol"
names "$2" > "$tmp/stu"
comm -23 "$tmp/sol" "$tmp/stu"
