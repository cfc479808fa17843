#!/bin/sh
# tools/release.sh handout DIST VERSION
# tools/release.sh solutions DIST VERSION [NN-name ...]
# tools/release.sh autograder DIST VERSION NN-name
#
# handout: the files of the shipped paths below (the labs, the grader, the
#   common code, the tools, the docs and the top-level files), less the
#   grader's and the common code's own tests (known-good and near-miss
#   fixtures, the batch samples) and the maintainers' tools (the soak, the
#   data run, the GPU host's check, the census, the trainer of Lab 6's
#   model), as
#   DIST/cuda-labs-handout-VERSION.tar.gz with one top folder. Nothing else of the tree: not solutions/, not .ci/,
#   not a submissions/ folder or a build. In a git work tree it packs the
#   tracked files of those paths and refuses (exit 2, naming them) any
#   untracked file inside them that git does not ignore: a class's
#   submissions or a scratch answer must never ship; commit, remove or
#   ignore it. A tracked file that differs from the last commit refuses it
#   too (exit 2, named) unless EDITS=1 (the environment), which packs it
#   as it is and names it; and so does a skeleton that is its lab's
#   solution, or defines a name only the solution defines (with
#   solutions/ beside). Without git (a copy of the tree) it packs the
#   shipped folders as they are, less what .gitignore names, and says so.
#   CLASSROOM=NN-name (the environment) adds .github/workflows/classroom.yml
#   for that lab (tools/classroom/classroom.yml). No file in it defines a
#   lab's entry points but the skeletons (test_release checks).
# solutions: solutions/ of the named labs (all when none), with their
#   ladders, the performance notes and the lab write-ups, as
#   DIST/cuda-labs-solutions-VERSION[-labs].tar.gz.
# autograder: Gradescope's autograder for one lab, DIST/autograder-NN-name.zip:
#   setup.sh and run_autograder (tools/autograder/) at the top, autograder.env
#   naming the lab, and cuda-labs/: what building the grader and a
#   submission needs (the Makefile, common/, grader/ without its tests,
#   every lab's interface header, the lab's data files). No skeleton, no
#   solution, no test. POLICY=FILE (the environment) puts a course's
#   grading policy beside them as policy.json, which run_autograder passes
#   to the grader. Lab 00 (the CPU self-test) is for the tests only.
set -eu
what=${1:?usage: release.sh handout|solutions|autograder DIST VERSION [labs]}
dist=${2:?DIST}
version=${3:?VERSION}
shift 3
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# what a handout ships: these paths, whole, less the tests under them
SHIPPED="README.md VERSION Makefile .clang-format .editorconfig .gitignore
         labs common grader tools docs"
# and the maintainers' tools, which need the tests' fixtures, every lab's
# solution or PyTorch: run from the course's own tree, never a student's
NOT_SHIPPED='^(grader/tests/|common/tests/|tools/(soak\.py|data-run\.sh|gpu-check\.sh|syscall-census\.sh|train-seq2seq\.py)$)'

# this tree is a git work tree of its own (not a copy inside another one)
in_git() {
    top=$(git rev-parse --show-toplevel 2> /dev/null) && [ "$top" = "$(pwd -P)" ]
}

# the tracked files of the shipped paths (git), or every file of them but
# what .gitignore's patterns name (no git), one a line
shipped_files() {
    if in_git; then
        # shellcheck disable=SC2086
        git ls-files --cached -- $SHIPPED | while IFS= read -r f; do
            [ -f "$f" ] && printf '%s\n' "$f"
        done
    else
        # shellcheck disable=SC2086
        find $SHIPPED -type f 2> /dev/null | sed 's|^\./||' > "$stage/.found"
        ignored_out "$stage/.found"
    fi | grep -v -E "$NOT_SHIPPED" || true
}

# drop the lines that .gitignore's patterns name (folders "/x/" and "x/",
# globs "*.tmp.*": enough for this project's own .gitignore), and editors'
# and Python's leftovers
ignored_out() {
    { cat .gitignore 2> /dev/null; printf '%s\n' '__pycache__/' '*.pyc' '*~' '.*.swp' '.DS_Store'; } |
        awk 'BEGIN { n = 0 }
             NR == FNR {
             p = $0; sub(/^[ \t]+/, "", p); sub(/[ \t]+$/, "", p)
             if (p == "" || p ~ /^#/) next
             dir = p ~ /\/$/; sub(/\/$/, "", p)
             anchored = p ~ /^\//; sub(/^\//, "", p)
             gsub(/\./, "\\.", p); gsub(/\*/, "[^/]*", p); gsub(/\?/, "[^/]", p)
             pat[n] = (anchored ? "^" : "(^|/)") p (dir ? "/" : "($|/)")
             n++
             next
         }
         { for (i = 0; i < n; i++) if ($0 ~ pat[i]) next; print }' - "$1"
}

# untracked files inside the shipped paths that git does not ignore (and
# that match the extended regex $1, when given)
strays() {
    # shellcheck disable=SC2086
    git ls-files --others --exclude-standard -- $SHIPPED | grep -v -E "$NOT_SHIPPED" |
        grep -E "${1:-.}" || true
}

# the files listed in $1 (one a line), indented: 20 at most, then a count
name_some() {
    printf '%s\n' "$1" | head -n 20 | sed 's/^/    /'
    k=$(printf '%s\n' "$1" | wc -l)
    [ "$k" -le 20 ] || echo "    ... and $((k - 20)) more"
}

# refuse to pack while strays (matching $2) are there: name them (20 at
# most) and exit 2
refuse_strays() { # refuse_strays WHAT [REGEX]
    s=$(strays "${2:-}")
    [ -n "$s" ] || return 0
    n=$(printf '%s\n' "$s" | wc -l)
    echo "$1: refused: $n untracked file(s) inside the shipped folders, which must not ship:" >&2
    name_some "$s" >&2
    echo "$1: commit them, move them out of the tree (a class's submissions), or list them in .gitignore" >&2
    exit 2
}

# tracked files of the shipped paths that differ from the last commit
# (edited, staged or deleted)
edited() {
    # shellcheck disable=SC2086
    git diff --name-only HEAD -- $SHIPPED 2> /dev/null | grep -v -E "$NOT_SHIPPED" || true
}

# refuse to pack uncommitted edits unless EDITS=1: name them (20 at most)
# and exit 2; with EDITS=1, name them and pack them as they are
refuse_edits() {
    e=$(edited)
    [ -n "$e" ] || return 0
    n=$(printf '%s\n' "$e" | wc -l)
    if [ "${EDITS:-0}" = 1 ]; then
        echo "handout: EDITS=1: packing $n file(s) as they are, not as last committed:"
        name_some "$e"
        return 0
    fi
    echo "handout: refused: $n tracked file(s) differ from the last commit, and would ship as they are now:" >&2
    name_some "$e" >&2
    echo "handout: commit them (git status shows them), undo them (git restore FILE), or pack them as they are with 'make handout EDITS=1'" >&2
    exit 2
}

# the names a C or CUDA file defines or declares at file scope: the last
# identifier before the first parenthesis of a line that starts in column
# 0 with a word (this project's clang-format style), 4 characters or more,
# not one of the compiler's own (__launch_bounds__ and kin)
defined_names() {
    sed 's/__launch_bounds__ *([^)]*)//; s/__attribute__ *((.*))//' "$@" |
        awk '/^[A-Za-z_]/ && !/^(return|typedef|enum|union)[^A-Za-z0-9_]/ {
                 i = index($0, "(")
                 if (i < 2) next
                 pre = substr($0, 1, i - 1)
                 n = split(pre, w, /[^A-Za-z0-9_]+/)
                 while (n > 0 && w[n] == "") n--
                 if (n && length(w[n]) >= 4 && w[n] !~ /^__/) print w[n]
             }' | sort -u
}

# a lab's skeleton in the handout must not be its solution: refuse (exit 2)
# a skeleton whose text is a solution's, or that defines a name only the
# solution defines (its kernels and helpers). Needs solutions/ (a
# maintainer's tree); the skeleton is the one file of the lab's folder that
# its solution's folder holds too.
refuse_solution_skeletons() {
    [ -d solutions ] || return 0
    bad=""
    for sol in solutions/*/; do
        lab=$(basename "$sol")
        [ -d "labs/$lab" ] || continue
        for f in "$sol"*.cu; do
            [ -f "$f" ] || continue
            sk="labs/$lab/$(basename "$f")"
            [ -f "$sk" ] || continue
            if cmp -s "$f" "$sk"; then
                bad="$bad\n    $sk is $f"
                continue
            fi
            # what the solution defines and the committed skeleton does not
            committed=$(git show "HEAD:$sk" 2> /dev/null || true)
            printf '%s\n' "$committed" > "$stage/.committed.cu"
            defined_names "$f" > "$stage/.sol"
            defined_names "$stage/.committed.cu" > "$stage/.skel"
            defined_names "$sk" > "$stage/.now"
            only=$(comm -23 "$stage/.sol" "$stage/.skel" | comm -12 - "$stage/.now" | tr '\n' ' ')
            [ -z "$only" ] || bad="$bad\n    $sk defines what only $f defines: $only"
        done
    done
    [ -n "$bad" ] || return 0
    printf 'handout: refused: a skeleton holds its solution:%b\n' "$bad" >&2
    echo "handout: restore the skeleton (git restore, or git show HEAD:FILE) before packing" >&2
    exit 2
}

# copy the list of files on stdin into DIR, keeping their paths
stage_files() { # stage_files DIR
    while IFS= read -r f; do
        mkdir -p "$1/$(dirname "$f")"
        cp -p "$f" "$1/$f"
    done
}

case $what in
handout)
    name=cuda-labs-handout-$version
    mkdir -p "$stage/$name"
    if in_git; then
        refuse_strays handout
        refuse_edits
        refuse_solution_skeletons
        # top-level entries left out of the handout, said once
        left=$(git ls-files --others --exclude-standard --directory |
            grep -v -E '^(labs|common|grader|tools|docs)/' | head -n 5 | tr '\n' ' ')
        [ -z "$left" ] || echo "handout: not shipped (outside the shipped paths): $left"
    else
        echo "handout: no git here: packing the shipped paths as they are ($(echo $SHIPPED | tr '\n' ' ')), less what .gitignore names"
    fi
    shipped_files | stage_files "$stage/$name"
    if [ -n "${CLASSROOM:-}" ]; then
        [ -d "labs/$CLASSROOM" ] || {
            echo "handout: CLASSROOM: no lab '$CLASSROOM'" >&2
            exit 2
        }
        mkdir -p "$stage/$name/.github/workflows"
        sed "s/^  LAB: \"01\"\$/  LAB: \"${CLASSROOM%%-*}\"/" tools/classroom/classroom.yml \
            > "$stage/$name/.github/workflows/classroom.yml"
        grep -q "^  LAB: \"${CLASSROOM%%-*}\"\$" "$stage/$name/.github/workflows/classroom.yml" || {
            echo "handout: tools/classroom/classroom.yml has no '  LAB: \"01\"' line to set" >&2
            exit 2
        }
        echo "handout: with .github/workflows/classroom.yml grading lab ${CLASSROOM%%-*}"
    fi
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
    case $lab in
    00 | 00-selftest) lab=00-selftest ;; # the CPU self-test: tests only
    *)
        [ -n "$lab" ] && [ -d "labs/$lab" ] || {
            echo "autograder: no lab '$lab' (make autograder LAB=NN)" >&2
            exit 2
        }
        ;;
    esac
    if [ -n "${POLICY:-}" ] && [ ! -r "$POLICY" ]; then
        echo "autograder: cannot read POLICY=$POLICY" >&2
        exit 2
    fi
    # what building the grader and a submission needs
    bundle="^(Makefile|VERSION|common/[^/]+|grader/.+|tools/deps\.sh|labs/[^/]+/[^/]+\.h|labs/$lab/data/.+)\$"
    ! in_git || refuse_strays autograder "$bundle"
    name=autograder-$lab
    top=$stage/$name
    mkdir -p "$top/cuda-labs"
    shipped_files | grep -E "$bundle" | stage_files "$top/cuda-labs"
    cp tools/autograder/setup.sh tools/autograder/run_autograder "$top/"
    chmod 755 "$top/setup.sh" "$top/run_autograder"
    printf 'LAB=%s\nVERSION=%s\n' "${lab%%-*}" "$version" > "$top/autograder.env"
    if [ -n "${POLICY:-}" ]; then
        cp "$POLICY" "$top/policy.json"
        echo "POLICY=policy.json" >> "$top/autograder.env"
    fi
    rm -f "$dist/$name.zip"
    if command -v zip > /dev/null 2>&1; then
        (cd "$top" && zip -qr "$dist/$name.zip" .)
    else # the files at the top of the archive, as Gradescope wants them
        python3 -c 'import shutil, sys; shutil.make_archive(sys.argv[1], "zip", sys.argv[2])' \
            "$dist/$name" "$top"
    fi
    echo "autograder: $dist/$name.zip${POLICY:+ (policy: $(basename "$POLICY") as policy.json)}"
    exit 0
    ;;
*)
    echo "usage: release.sh handout|solutions|autograder DIST VERSION [labs]" >&2
    exit 2
    ;;
esac
tar -C "$stage" -czf "$dist/$name.tar.gz" "$name"
echo "$what: $dist/$name.tar.gz"
