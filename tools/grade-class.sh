#!/usr/bin/env bash
# Grade a whole class for one lab.
#
#   tools/grade-class.sh LAB SUBMISSIONS [OUT]      every submission
#   tools/grade-class.sh --list LAB SUBMISSIONS OUT list them (OUT/entries)
#   tools/grade-class.sh --one LAB N OUT            the Nth listed (0-based;
#                                                   the Slurm tasks)
#
# SUBMISSIONS is a folder, or a .zip of one, in one of three layouts:
#
# - plain: one entry per student: NAME.cu, a folder NAME/ with the lab's
#   source file somewhere inside, or NAME.tar.gz / .tgz / .tar / .zip.
#   NAME may hold spaces, quotes and any letters ("mary o'neil/", "Zoë.cu").
# - Canvas ("Download Submissions"): files named
#   lastfirst[_LATE]_USERID_SUBMISSIONID_FILE. A student's files share the
#   prefix and are graded together under their own names (FILE-1.cu, a
#   resubmission, counts as FILE.cu); the student is lastfirst, with
#   Canvas's user id.
# - Gradescope ("Export Submissions"): submission_metadata.yml and one
#   folder submission_ID per submission, possibly inside one
#   assignment_*_export folder; the students (a group has several), their
#   SIDs and emails come from the metadata.
#
# Plain and Canvas are told apart per entry: a file named as Canvas names
# them is a Canvas submission, any other folder, source file or archive a
# plain one, so a Canvas download keeps its user ids whatever else lies
# beside it. Other files (notes.txt, a grades.csv) are skipped with a
# note, and the litter of archivers and desktops (__MACOSX/, .DS_Store,
# Thumbs.db, desktop.ini, ._*) silently, here and inside submissions.
#
# Each submission gets a KEY safe in file names (a readable slug and a
# short hash of what identifies it, so that no two collide: "Zoë Ä" and
# "Zoé Ä" differ) and OUT/results/KEY.student naming the student(s). It is
# built in its own folder (OUT/work/KEY), graded in isolation by the
# grader with a wall-clock limit, and leaves OUT/results/KEY.json (the
# grader's results.json) or OUT/results/KEY.status (compile-error,
# no-source, timeout: decided without the grader). OUT/gradebook.csv is
# rebuilt from results/ at the end, so an interrupted batch loses nothing
# and a re-run skips what is graded unless FORCE=1 (results that say no GPU
# was visible are graded again, and so are results with a case that was
# not the submission's doing: `unconfirmed` (a speed case timed while
# another process used the GPU) or `internal-error` (the grader or the host
# failed). Those at the end of the queues are graded again at once, one at
# a time: with a GPU named twice in GPUS ("0 0": two queues on one GPU, so
# that one's builds and checks overlap the other's), the queues time each
# other, and one's memory hog can starve the other.
#
# Environment: FORCE=1, QUICK=1 (grade only the lab's quick cases: a
# rehearsal of the batch, marked "(only the quick cases)" in the gradebook
# and graded again by a later run without QUICK=1), TIMEOUT (seconds per
# submission, default 1800),
# SEED (one seed for the class; default random, kept in OUT/seed), GPUS ("0 1 ...":
# one submission at a time on each; default the GPUs CUDA_VISIBLE_DEVICES
# names, else every GPU nvidia-smi lists, else none),
# FORMAT (canvas or gradescope: also write that LMS's import layout),
# ASSIGNMENT (the Canvas grade column's title), POLICY (a course's grading
# policy file: checked, kept as OUT/policy.json and used for every
# submission and the gradebook; a batch keeps the policy it started with,
# and refuses another one until FORCE=1 grades everyone again with it).
# OUT/lab names the lab, so that collecting it as another lab's fails.
set -uo pipefail
grade=${GRADE:-build/bin/grade}
interrupted=0 # set by on_interrupt (Ctrl-C): see below
grade_pid=
tools=$(cd "$(dirname "$0")" && pwd)

lab_facts() { # sets LAB_ID LAB_SLUG LAB_SRC LAB_EXT from the grader
    local facts
    facts=$("$grade" "$1" --which) || exit 2
    read -r LAB_ID LAB_SLUG LAB_SRC <<< "$facts"
    LAB_EXT=${LAB_SRC##*.} # cu (the self-test lab 00: c)
}

# the policy options for the grader: OUT/policy.json, once recorded
policy_args() { # policy_args OUT
    [ ! -e "$1/policy.json" ] || printf '%s\n' --policy "$1/policy.json"
}

# POLICY (when set) checked by the grader and recorded as OUT/policy.json;
# a batch with results keeps the policy it was graded with unless FORCE=1
record_policy() { # record_policy OUT
    local out=$1
    [ -n "${POLICY:-}" ] || return 0
    if ! "$grade" "$LAB_ID" --policy "$POLICY" --list > /dev/null; then
        echo "grade-class: POLICY=$POLICY is refused (above): nothing graded" >&2
        exit 2
    fi
    if [ -e "$out/policy.json" ] && ! cmp -s "$POLICY" "$out/policy.json" &&
        [ "${FORCE:-0}" != 1 ] && [ -n "$(ls -A "$out/results" 2> /dev/null)" ]; then
        echo "grade-class: $out was graded with another policy ($out/policy.json);" >&2
        echo "             FORCE=1 grades everyone again with POLICY=$POLICY" >&2
        exit 2
    fi
    mkdir -p "$out"
    cp "$POLICY" "$out/policy.json.tmp" && mv "$out/policy.json.tmp" "$out/policy.json"
}

status() { # status OUT KEY WORD MESSAGE
    printf '%s\t%s\n' "$3" "$4" > "$1/results/$2.status.tmp" &&
        mv "$1/results/$2.status.tmp" "$1/results/$2.status"
    rm -f "$1/results/$2.json"
}

# ---- listing: layouts, keys, who submitted -------------------------------

# KEY for a submission: slug of NAME (ASCII, file-safe, at most 40
# characters) and 8 hex digits of the SHA-256 of IDENTITY
key_of() { # key_of NAME IDENTITY
    local slug
    slug=$(printf '%s' "$1" | LC_ALL=C.UTF-8 iconv -f UTF-8 -t ASCII//TRANSLIT 2>/dev/null) ||
        slug=$1
    slug=$(printf '%s' "$slug" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_' |
        LC_ALL=C tr -s '_' | sed -e 's/^[-._]*//' -e 's/_*$//' | cut -c1-40)
    printf '%s-%s\n' "${slug:-student}" "$(printf '%s' "$2" | sha256sum | cut -c1-8)"
}

# a name as one field of a tab-separated line: no tabs, no line breaks
one_line() { printf '%s' "$1" | tr '\t\r\n' '   '; }

# add_entry KEY SOURCE LATE: start OUT/entries/KEY.paths and results/KEY.student
add_entry() {
    local key=$1
    if grep -qxF -- "$key" "$ent/list" 2>/dev/null; then
        echo "grade-class: two submissions have the key $key ($2)" >&2
        exit 2
    fi
    echo "$key" >> "$ent/list"
    : > "$ent/$key.paths"
    {
        printf 'source\t%s\n' "$(one_line "$2")"
        [ "$3" = 1 ] && printf 'late\t1\n'
    } > "$out/results/$key.student.tmp"
}
add_person() { # add_person KEY NAME ID EMAIL
    printf 'person\t%s\t%s\t%s\n' "$(one_line "$2")" "$(one_line "$3")" \
        "$(one_line "$4")" >> "$out/results/$1.student.tmp"
}
add_path() { # add_path KEY PATH [NAME]: stage PATH (as NAME, for a file)
    printf '%s\t%s\n' "$2" "${3:-}" >> "$ent/$1.paths"
}
end_entry() { mv "$out/results/$1.student.tmp" "$out/results/$1.student"; }

# lastfirst[_LATE]_USERID_SUBMISSIONID_FILE
canvas_re='^([^_]+)(_LATE)?_([0-9]+)_([0-9]+)_(.+)$'

# the litter of archivers and desktops: never a submission, never a file
# of one
is_litter() { # is_litter NAME
    case $1 in
    __MACOSX | .DS_Store | Thumbs.db | desktop.ini | ._*) return 0 ;;
    *) return 1 ;;
    esac
}
# find(1) tests that leave the litter out
no_litter=(-not -path '*/__MACOSX/*' -not -name '.DS_Store' -not -name 'Thumbs.db'
    -not -name 'desktop.ini' -not -name '._*')

# what an entry of the folder is: canvas (a file named as Canvas names
# them), plain (a folder, a source file or an archive), litter, or other
# (a file that cannot be a submission: skipped with a note)
entry_kind() { # entry_kind PATH
    local b
    b=$(basename "$1")
    if is_litter "$b"; then
        echo litter
    elif [ -f "$1" ] && [[ "$b" =~ $canvas_re ]]; then
        echo canvas
    elif [ -d "$1" ]; then
        echo plain
    else
        case $b in
        *.tar.gz | *.tgz | *.tar | *.zip | *.ZIP | *."$LAB_EXT") echo plain ;;
        *) echo other ;;
        esac
    fi
}

layout_of() { # layout_of DIR: gradescope, canvas, plain or canvas+plain
    local d=$1 f canvas=0 plain=0
    [ -f "$d/submission_metadata.yml" ] && { echo gradescope; return; }
    for f in "$d"/*; do
        [ -e "$f" ] || continue
        case $(entry_kind "$f") in
        canvas) canvas=1 ;;
        plain) plain=1 ;;
        esac
    done
    if [ $canvas = 1 ] && [ $plain = 1 ]; then
        echo canvas+plain
    elif [ $canvas = 1 ]; then
        echo canvas
    else
        echo plain
    fi
}

# Gradescope's submission_metadata.yml (Ruby YAML) as lines of
# "FOLDER<TAB>NAME<TAB>SID<TAB>EMAIL", one per submitter
gradescope_people() {
    awk '
    function unq(v) {
        sub(/^[ \t]+/, "", v); sub(/[ \t\r]+$/, "", v)
        if (v ~ /^'\''.*'\''$/) {
            v = substr(v, 2, length(v) - 2); gsub(/'\'''\''/, "'\''", v)
        } else if (v ~ /^".*"$/) {
            v = substr(v, 2, length(v) - 2); gsub(/\\"/, "\"", v)
            gsub(/\\\\/, "\\", v)
        }
        return v
    }
    function flush() {
        if (have) print folder "\t" name "\t" sid "\t" email
        have = 0; name = sid = email = ""
    }
    /^[^ #-][^:]*:[ \t]*$/ { flush(); folder = $0; sub(/:[ \t]*$/, "", folder); insub = 0; next }
    /^  :submitters:/ { flush(); insub = 1; next }
    /^  [^ -]/ { flush(); insub = 0; next }
    insub && /^  - :name:/ { flush(); have = 1; v = $0; sub(/^  - :name:/, "", v); name = unq(v); next }
    insub && /^  - / { flush(); have = 1; next }
    insub && have && /^    :name:/ { v = $0; sub(/^    :name:/, "", v); name = unq(v); next }
    insub && have && /^    :sid:/ { v = $0; sub(/^    :sid:/, "", v); sid = unq(v); next }
    insub && have && /^    :email:/ { v = $0; sub(/^    :email:/, "", v); email = unq(v); next }
    END { flush() }
    ' "$1"
}

# list_entries SUBMISSIONS: OUT/entries/{list,KEY.paths}, results/KEY.student
list_entries() {
    local subs=$1 layout f base name key id late folder
    rm -rf "$ent" && mkdir -p "$ent" "$out/results" && : > "$ent/list"
    if [ -f "$subs" ]; then # a .zip of the whole class
        rm -rf "$out/export" && mkdir -p "$out/export"
        unpack "$subs" "$out/export" || {
            echo "grade-class: cannot unpack $subs" >&2
            exit 2
        }
        subs=$out/export
    fi
    # an export unpacked with its one top folder (and an archiver's litter)
    local tops=() t
    for t in "$subs"/*; do
        [ -e "$t" ] && ! is_litter "$(basename "$t")" && tops+=("$t")
    done
    if [ ! -f "$subs/submission_metadata.yml" ] && [ ${#tops[@]} = 1 ] &&
        [ -f "${tops[0]}/submission_metadata.yml" ]; then
        subs=${tops[0]}
    fi
    layout=$(layout_of "$subs")
    echo "$layout" > "$ent/layout"
    # what is neither a submission nor litter: said, and left out
    if [ "$layout" != gradescope ]; then
        for f in "$subs"/*; do
            [ -e "$f" ] && [ "$(entry_kind "$f")" = other ] || continue
            echo "grade-class: skipping '$(basename "$f")': not a submission (a folder, a .$LAB_EXT file or an archive)" >&2
        done
    fi
    case $layout in
    gradescope)
        local people
        people=$(gradescope_people "$subs/submission_metadata.yml")
        for f in "$subs"/*/; do
            folder=$(basename "$f")
            ! is_litter "$folder" || continue
            name=$(printf '%s\n' "$people" | awk -F'\t' -v f="$folder" '$1 == f { print $2; exit }')
            key=$(key_of "${name:-$folder}" "$folder")
            add_entry "$key" "$folder" 0
            add_path "$key" "${f%/}"
            if [ -n "$name" ]; then
                printf '%s\n' "$people" | awk -F'\t' -v f="$folder" '$1 == f' |
                    while IFS=$'\t' read -r _ pn ps pe; do
                        add_person "$key" "$pn" "$ps" "$pe"
                    done
            else
                add_person "$key" "$folder" "" ""
            fi
            end_entry "$key"
        done
        ;;
    *)
        # Canvas's files: one entry per lastfirst_USERID, its files in
        # name order
        local ids
        ids=$(for f in "$subs"/*; do
            [ "$(entry_kind "$f")" = canvas ] || continue
            [[ "$(basename "$f")" =~ $canvas_re ]] &&
                printf '%s_%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"
        done | sort -u)
        while IFS= read -r id; do
            [ -n "$id" ] || continue
            name=${id%_*}
            late=0
            for f in "$subs/${name}"_*; do
                [ "$(entry_kind "$f")" = canvas ] || continue
                [[ "$(basename "$f")" =~ $canvas_re ]] || continue
                [ "${BASH_REMATCH[1]}_${BASH_REMATCH[3]}" = "$id" ] || continue
                [ -n "${BASH_REMATCH[2]}" ] && late=1
            done
            key=$(key_of "$name" "$id")
            add_entry "$key" "$id" "$late"
            add_person "$key" "$name" "${id##*_}" ""
            for f in "$subs/${name}"_*; do
                [ "$(entry_kind "$f")" = canvas ] || continue
                [[ "$(basename "$f")" =~ $canvas_re ]] || continue
                [ "${BASH_REMATCH[1]}_${BASH_REMATCH[3]}" = "$id" ] || continue
                # FILE-1.cu, a resubmission, is FILE.cu again
                add_path "$key" "$f" "$(printf '%s' "${BASH_REMATCH[5]}" |
                    sed -E 's/-[0-9]+(\.[A-Za-z0-9]+)$/\1/')"
            done
            end_entry "$key"
        done <<< "$ids"
        # and every other folder, source file or archive: one student each
        for f in "$subs"/*; do
            [ -e "$f" ] && [ "$(entry_kind "$f")" = plain ] || continue
            base=$(basename "$f")
            case $base in
            *$'\n'* | *$'\t'*)
                echo "grade-class: skipping '$base': a tab or line break in the name" >&2
                continue
                ;;
            esac
            name=${base%.tar.gz}; name=${name%.tgz}; name=${name%.tar}
            name=${name%.zip}; name=${name%.ZIP}; name=${name%."$LAB_EXT"}
            key=$(key_of "$name" "$base")
            add_entry "$key" "$base" 0
            add_person "$key" "$name" "" ""
            add_path "$key" "$f"
            end_entry "$key"
        done
        ;;
    esac
}

unpack() { # unpack ARCHIVE DIR: tar or zip into DIR
    case $1 in
    *.tar.gz | *.tgz | *.tar) tar -xf "$1" -C "$2" ;;
    *.zip | *.ZIP)
        python3 "$tools/unzip.py" "$1" "$2"
        ;;
    *) return 1 ;;
    esac
}

# ---- grading one ---------------------------------------------------------

# does KEY need grading? A result stands unless FORCE=1, it says no GPU
# was there to grade, or it was a quick rehearsal and this run is not
# a result with a case the submission did not decide: timed while another
# process used the GPU, or failed in the grader or the host
not_theirs() { # not_theirs KEY OUT
    grep -Eq '"status":[[:space:]]*"(unconfirmed|internal-error)"' "$2/results/$1.json" 2> /dev/null
}

to_grade() { # to_grade KEY OUT
    local key=$1 out=$2
    ! { [ "${FORCE:-0}" != 1 ] && { [ -e "$out/results/$key.status" ] ||
        { [ -e "$out/results/$key.json" ] &&
          ! grep -q '"not graded: no GPU"' "$out/results/$key.json" &&
          ! grep -q '"not graded: interrupted"' "$out/results/$key.json" &&
          ! not_theirs "$key" "$out" &&
          { [ "${QUICK:-0}" = 1 ] ||
            ! grep -q '"subset":' "$out/results/$key.json"; }; }; }; }
}

# The build cache, OUT/cache/KEY: what building a file came to (lab.so,
# or the exit status of a file that reads outside the build) and the
# build's log. KEY is the SHA-256 of the file's bytes and of the recipe:
# the lab and its headers, the build command and its flags, the
# compiler's version and cl-build itself. A submission resubmitted
# unchanged, a copy of another, a batch run again (FORCE=1, after an
# interruption) is not compiled again. Only grade-class writes it, from
# outputs the confined build made; rm -rf OUT/cache builds everything
# again.
build_recipe() { # the recipe's digest, once a batch
    local recipe compiler
    recipe=$(SRC=@ SO=@ make -s -n build-submission LABDIR="$LAB_ID-$LAB_SLUG" 2>&1)
    if [ "$LAB_EXT" = c ]; then
        compiler=$(printf '%s\n' "$recipe" | sed -n 's/.* -- \([^ ]*\) -std=gnu11.*/\1/p' | head -n 1)
    else
        compiler=$(printf '%s\n' "$recipe" | grep -o '[^ ]*nvcc' | head -n 1)
    fi
    {
        echo "$LAB_ID-$LAB_SLUG ${CL_BUILD_STRICT:-1} ${CL_BUILD_UNCONFINED:-} ${CL_BUILD_TEST_NO_LANDLOCK:-}"
        cat labs/"$LAB_ID-$LAB_SLUG"/*.h 2> /dev/null
        printf '%s\n' "$recipe"
        "${compiler:-false}" --version 2>&1
        cat "$(dirname "$grade")/cl-build" 2> /dev/null
    } | sha256sum | cut -c1-64
}
cache_key() { # cache_key FILE
    { echo "$BUILD_RECIPE"; sha256sum < "$1"; } | sha256sum | cut -c1-64
}
cache_put() { # cache_put DIR LOG SO EXIT: atomically (builds run side by side)
    local tmp
    tmp=$(mktemp -d "$(dirname "$1")/.put-XXXXXX") || return 0
    cp "$2" "$tmp/build.txt" && echo "$4" > "$tmp/exit" &&
        { [ -z "$3" ] || cp "$3" "$tmp/lab.so"; } &&
        mv -T "$tmp" "$1" 2> /dev/null || rm -rf "$tmp"
}

# stage KEY's files and build its source into OUT/work/KEY/lab.so; the
# outcome goes to OUT/work/KEY/prepared: "built SRC", or "no-source MSG"
# or "compile-error MSG". No GPU, nothing printed: the batch builds every
# submission side by side before it grades (prepare_all)
prepare_one() { # prepare_one KEY OUT
    local key=$1 out=$2 work src
    work="$out/work/$key"
    rm -rf "$work" && mkdir -p "$work/in" "$out/logs"
    local p as
    while IFS=$'\t' read -r p as; do
        [ -n "$p" ] || continue
        if [ -d "$p" ]; then
            cp -R "$p/." "$work/in/"
        elif unpack "$p" "$work/in" 2>> "$work/unpack.log"; then
            :
        else
            cp "$p" "$work/in/${as:-$(basename "$p")}"
        fi
    done < "$out/entries/$key.paths"
    src=$(find "$work/in" -type f -name "$(basename "$LAB_SRC")" "${no_litter[@]}" | sort | head -n 1)
    if [ -z "$src" ]; then # a single .cu of another name will do
        [ "$(find "$work/in" -type f -name "*.$LAB_EXT" "${no_litter[@]}" | wc -l)" = 1 ] &&
            src=$(find "$work/in" -type f -name "*.$LAB_EXT" "${no_litter[@]}")
    fi
    if [ -z "$src" ]; then
        printf 'no-source\tno %s in the submission\n' "$(basename "$LAB_SRC")" > "$work/prepared"
        return 0
    fi
    # the same bytes built before by the same recipe: its outcome again
    local cached
    cached="$out/cache/$(cache_key "$src")"
    if [ -s "$cached/build.txt" ]; then
        cp "$cached/build.txt" "$out/logs/$key.build.txt"
        if [ -e "$cached/lab.so" ]; then
            cp "$cached/lab.so" "$work/lab.so"
            printf 'built\t%s\n' "$src" > "$work/prepared"
            return 0
        fi
        cp "$cached/exit" "$work/lab.so.exit"
    # the confined build (cl-build, through make build-submission: a
    # scratch copy of the file, the lab's headers and the toolkit, nothing
    # else); the paths go through the environment: make leaves them alone
    elif SRC=$src SO=$work/lab.so CL_BUILD_STRICT=${CL_BUILD_STRICT:-1} \
            make -s build-submission LABDIR="$LAB_ID-$LAB_SLUG" \
            > "$out/logs/$key.build.txt" 2>&1; then
        cache_put "$cached" "$out/logs/$key.build.txt" "$work/lab.so" 0
        printf 'built\t%s\n' "$src" > "$work/prepared"
        return 0
    else
        # the file's own doing, whatever the machine: it reads outside
        # the build (4); a compile error or a limit (1) and the grader's
        # failures (6) are built again next time
        [ "$(cat "$work/lab.so.exit" 2> /dev/null)" != 4 ] ||
            cache_put "$cached" "$out/logs/$key.build.txt" "" 4
    fi
    local why
    case $(cat "$work/lab.so.exit" 2> /dev/null) in
    4) # it reads a file outside the build: cl-build's own line
        why=$(grep -m 1 'cl-build: your file reads' "$out/logs/$key.build.txt" | sed 's/^cl-build: //')
        printf 'forbidden include\t%s\n' "$(printf '%s' "$why" | cut -c1-300 | tr '\t' ' ')" > "$work/prepared"
        ;;
    6) # the grader's: the build could not be confined or run
        why=$(grep -m 1 '^cl-build: ' "$out/logs/$key.build.txt" | sed 's/^cl-build: //')
        printf 'internal error\t%s\n' "$(printf '%s' "${why:-the build failed}" | cut -c1-300 | tr '\t' ' ')" > "$work/prepared"
        ;;
    *)
        printf 'compile-error\t%s\n' \
            "$(grep -m 1 -i -E 'error|cl-build: ' "$out/logs/$key.build.txt" | cut -c1-300 | tr '\t' ' ')" \
            > "$work/prepared"
        ;;
    esac
}

# build every submission that needs grading, BUILD_JOBS at a time (default:
# one per core): the compiler needs no GPU, and a class's builds one after
# the other would keep the GPUs waiting
prepare_all() { # prepare_all OUT KEY...
    local out=$1 running=0 jobs=${BUILD_JOBS:-$(nproc 2>/dev/null || echo 1)}
    shift
    for key in "$@"; do
        [ "$interrupted" = 0 ] || break
        to_grade "$key" "$out" || continue
        if [ "$running" -ge "$jobs" ]; then
            wait -n
            running=$((running - 1))
        fi
        prepare_one "$key" "$out" &
        running=$((running + 1))
    done
    wait
    # (a signal ends the wait at once: the builds under way end too)
    # shellcheck disable=SC2046
    [ "$interrupted" = 0 ] || { kill $(jobs -p) 2> /dev/null; wait; }
}

grade_one() { # grade_one KEY OUT: grade it (prepared already, or here)
    local key=$1 out=$2 work src who what msg
    who=$(awk -F'\t' '$1 == "person" { printf "%s%s", (n++ ? ", " : ""), $2 }' \
        "$out/results/$key.student" 2>/dev/null)
    who="${who:-$key} [$key]"
    [ "$interrupted" = 0 ] || return 0
    if ! to_grade "$key" "$out"; then
        echo "skip   $who (graded; FORCE=1 to grade again)"
        return 0
    fi
    work="$out/work/$key"
    [ -e "$work/prepared" ] || prepare_one "$key" "$out"
    IFS=$'\t' read -r what msg < "$work/prepared"
    rm -f "$work/prepared" # a later run builds again
    case $what in
    no-source | compile-error | "forbidden include" | "internal error")
        status "$out" "$key" "$what" "$msg"
        echo "done   $who: $what"
        return 0
        ;;
    esac
    src=$msg
    # in the background, so that a signal reaches the trap at once (a
    # foreground command would hold it until it ends): the grade is told,
    # ends its case at once and writes what it did, marked incomplete
    # shellcheck disable=SC2046
    timeout -k 10 "${TIMEOUT:-1800}" "$grade" "$LAB_ID" --lib "$work/lab.so" \
        --source "$src" --json "$out/results/$key.json" --seed "$SEED" \
        $(policy_args "$out") $([ "${QUICK:-0}" = 1 ] && echo --quick) \
        --no-color > "$out/logs/$key.txt" 2>&1 &
    grade_pid=$!
    local rc=0
    wait "$grade_pid" || rc=$?
    while kill -0 "$grade_pid" 2> /dev/null; do # the wait a signal ended
        rc=0
        wait "$grade_pid" || rc=$?
    done
    grade_pid=
    if [ "$interrupted" != 0 ]; then
        echo "stop   $who: interrupted (exit $rc): graded again next time"
        return 0
    fi
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        status "$out" "$key" timeout "the whole submission ran past ${TIMEOUT:-1800} s"
    elif [ ! -e "$out/results/$key.json" ]; then
        status "$out" "$key" "internal error" "the grader exited $rc without results"
    fi
    echo "done   $who: exit $rc"
}

collect() { # collect OUT: the gradebook(s)
    # shellcheck disable=SC2046
    "$grade" "$LAB_ID" --collect "$1" ${FORMAT:+--format "$FORMAT"} \
        ${ASSIGNMENT:+--assignment "$ASSIGNMENT"} $(policy_args "$1")
}

# OUT/lab: the lab this batch is of (--collect refuses another lab's)
record_lab() { # record_lab OUT
    if [ -e "$1/lab" ] && [ "$(cut -d' ' -f1 "$1/lab")" != "$LAB_ID" ]; then
        echo "grade-class: $1 is a batch of lab $(cut -d' ' -f1 "$1/lab"), not of lab $LAB_ID: choose another OUT" >&2
        exit 2
    fi
    echo "$LAB_ID $LAB_SLUG" > "$1/lab"
}

case ${1:-} in
--one)
    lab_facts "${2:?LAB}"
    out=${4:?OUT}
    n=${3:?N}
    mkdir -p "$out/results"
    SEED=${SEED:-$(cat "$out/seed" 2>/dev/null || echo 1)}
    key=$(sed -n "$((n + 1))p" "$out/entries/list")
    [ -n "$key" ] || { echo "grade-class: no submission $n in $out/entries/list" >&2; exit 2; }
    # (the build cache is the batch's: shared by the array's tasks)
    mkdir -p "$out/cache"
    BUILD_RECIPE=$(build_recipe)
    grade_one "$key" "$out"
    exit 0
    ;;
--list)
    lab_facts "${2:?LAB}"
    out=${4:?OUT}
    ent=$out/entries
    [ -e "${3:?SUBMISSIONS}" ] || { echo "grade-class: SUBMISSIONS=$3 does not exist" >&2; exit 2; }
    mkdir -p "$out/results"
    record_lab "$out"
    record_policy "$out"
    list_entries "$3"
    echo "grade-class: $(wc -l < "$ent/list") submissions ($(cat "$ent/layout") layout)"
    exit 0
    ;;
esac

[ -n "${1:-}" ] || { echo "usage: make grade-class LAB=NN SUBMISSIONS=DIR [OUT=DIR]" >&2; exit 2; }
lab_facts "$1"
subs=${2:-}
if [ ! -d "$subs" ] && [[ "$subs" != *.zip ]]; then
    echo "grade-class: SUBMISSIONS=$subs is not a directory (or a .zip of one)" >&2
    exit 2
fi
out=${3:-}
[ -n "$out" ] || out=build/class/$LAB_ID-$LAB_SLUG
# OUT inside SUBMISSIONS would be listed as a student (graded 0)
sub_real=$(cd "$subs" 2> /dev/null && pwd -P) || sub_real=
out_real=$(realpath -m "$out")
if [ -n "$sub_real" ] && [[ "$out_real/" == "$sub_real/"* ]]; then
    echo "grade-class: OUT=$out is inside SUBMISSIONS=$subs, where it would be taken for a student: choose an OUT outside it" >&2
    exit 2
fi
ent=$out/entries
mkdir -p "$out/results" "$out/logs"
record_lab "$out"
record_policy "$out"
# a random seed by default: a published or guessable one (the date) lets
# a submission know the inputs of the correctness round in advance
[ -e "$out/seed" ] || echo "${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}" > "$out/seed"
SEED=$(cat "$out/seed")
export SEED

list_entries "$subs"
mapfile -t entries < "$ent/list"
if [ ${#entries[@]} = 0 ]; then
    echo "grade-class: no submissions in $subs (a file or folder per student, or an LMS export): nothing graded" >&2
    exit 2
fi
echo "grade-class: lab $LAB_ID$([ "${QUICK:-0}" = 1 ] && echo ", quick cases only"), ${#entries[@]} submissions ($(cat "$ent/layout") layout), seed $SEED, policy $([ -e "$out/policy.json" ] && echo "$out/policy.json" || echo default), results in $out"
# the GPUs: GPUS, else those CUDA_VISIBLE_DEVICES leaves (a Slurm
# allocation's, say: nvidia-smi would list every GPU of the node), else
# every GPU nvidia-smi lists
if [ -n "${GPUS+set}" ]; then
    gpus=$GPUS
elif [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    gpus=${CUDA_VISIBLE_DEVICES//,/ }
else
    gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2> /dev/null | tr '\n' ' ')
fi
set -- $gpus
twice=$(printf '%s\n' "$@" | sort | uniq -d | tr '\n' ' ')
if [ -n "$twice" ]; then
    echo "grade-class: GPUS names GPU ${twice% } more than once: its queues share it, so one's speed cases may be timed while another runs (unconfirmed); those students are graded again at the end, one at a time"
fi
# the first GPU: one queue's (GPUS=1 is GPU 1, not the first), and the
# regrades' at the end (several queues each set their own)
[ $# = 0 ] || export CUDA_VISIBLE_DEVICES=$1
# Ctrl-C (or a kill): the grade under way is told (it ends its case at
# once and keeps what it did), no other starts, and the batch says how
# far it got; a run again resumes (the interrupted student is graded
# again). A second Ctrl-C ends the batch outright.
on_interrupt() {
    interrupted=1
    # a second Ctrl-C ends the batch; a GPU's queue ignores it, to say
    # what it stopped
    if [ "${in_queue:-0}" = 1 ]; then trap '' INT TERM HUP; else trap - INT TERM HUP; fi
    [ -z "${grade_pid:-}" ] || kill -INT "$grade_pid" 2> /dev/null
    # shellcheck disable=SC2086
    [ -z "${queues:-}" ] || kill -TERM $queues 2> /dev/null
}
trap on_interrupt INT TERM HUP
mkdir -p "$out/cache"
BUILD_RECIPE=$(build_recipe)
prepare_all "$out" "${entries[@]}"
if [ $# -le 1 ]; then
    for e in "${entries[@]}"; do grade_one "$e" "$out"; done
else
    # one queue per GPU, one submission at a time on each (its lines
    # marked with the GPU through a process substitution: the grade stays
    # in the queue's shell, where its trap can reach it)
    i=0
    queues=
    for g in "$@"; do
        (
            in_queue=1
            trap on_interrupt TERM INT HUP
            queues=
            export CUDA_VISIBLE_DEVICES=$g
            for ((k = i; k < ${#entries[@]}; k += $#)); do
                grade_one "${entries[$k]}" "$out" > >(
                    trap '' INT TERM HUP # its lines outlive a Ctrl-C
                    exec sed -u "s/^/[gpu $g] /"
                )
            done
            wait
        ) &
        queues="$queues $!"
        i=$((i + 1))
    done
    while ! wait; do :; done 2> /dev/null
    wait
fi
# a case the submission did not decide (a speed case timed while another
# process used the GPU: another queue on the same GPU, or someone else's
# job; or the grader failed, the GPU's memory taken by a neighbour, say):
# those students are graded again now, one at a time, on the first GPU
again=()
if [ "$interrupted" = 0 ]; then
    for e in "${entries[@]}"; do not_theirs "$e" "$out" && again+=("$e"); done
fi
if [ ${#again[@]} -gt 0 ]; then
    echo "grade-class: ${#again[@]} graded again, one at a time: a case of theirs was timed while another process used the GPU (unconfirmed) or failed in the grader (internal-error)"
    for e in "${again[@]}"; do grade_one "$e" "$out"; done
    still=0
    for e in "${again[@]}"; do not_theirs "$e" "$out" && still=$((still + 1)); done
    [ "$interrupted" != 0 ] || [ $still = 0 ] ||
        echo "grade-class: $still still unconfirmed or internal-error: another process kept the GPU busy, or the grader fails on them (their logs say which); run the same command again on an idle GPU (it grades only them)" >&2
fi
if [ "$interrupted" != 0 ]; then
    graded=0
    for e in "${entries[@]}"; do to_grade "$e" "$out" || graded=$((graded + 1)); done
    echo "grade-class: interrupted: $graded of ${#entries[@]} graded; run again to resume (the results so far are in $out/results)" >&2
    exit 130
fi
collect "$out"
