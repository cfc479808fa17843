#!/usr/bin/env python3
"""make tables: write the reference solutions' speed tables into the docs
from one GPU run's data, so that no figure in them can drift from it.

Each table sits between two markers in a Markdown file:

    <!-- perf NN -->
    (the table of lab NN: rewritten here, never by hand)
    <!-- /perf -->

and is built from

    docs/data/ref-NN.csv    the grader's rows for the reference's default
                            code on the lab's speed cases (tools/peers.py
                            writes them as grader-NN.csv: `make peers
                            LAB=NN SOLUTION=1`)
    docs/data/peers-NN.csv  PyTorch's best op on the same cases, timed in
                            the same run (peers.py's peers.csv); its first
                            line names the GPU, the date and PyTorch
    grade NN --list         each speed case's full-credit rule, from the
                            grader's built-in policy

Usage, from the project's root (make tables passes the grader it built):

    python3 tools/perf-tables.py [--grade build/bin/grade] [--data DIR]
                                 [--check] [FILE ...]

With no FILE: docs/performance.md and every labs/*/README.md. --check
rewrites nothing and exits 1 when a table differs from what the data
gives (make test runs it). Exit status: 0 done, 1 a table is stale
(--check), 2 usage or data error (a missing or malformed file, a marker
without its end, a case without data).
"""

import argparse
import csv
import glob
import os
import re
import subprocess
import sys

EXIT_STALE, EXIT_USAGE = 1, 2
BEGIN = re.compile(r"^<!-- perf (\d\d) -->$")
END = "<!-- /perf -->"


class DataError(Exception):
    pass


def read_csv(path):
    """rows of a CSV whose leading '# ...' lines are its provenance"""
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise DataError("cannot read %s: %s" % (path, e.strerror))
    notes = [l[2:] for l in lines if l.startswith("# ")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    if not rows:
        raise DataError("%s has no rows" % path)
    return notes, rows


def speed_rules(grade, lab):
    """{case: full-credit rule} from `grade NN --list` (speed lines only)"""
    try:
        out = subprocess.run([grade, lab, "--list"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise DataError("%s %s --list failed: %s" % (grade, lab, e))
    rules = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+speed\s+[\d.]+ points\s+full credit at (.+)$",
                     line)
        if m:
            rules[m.group(1)] = m.group(2)
    if not rules:
        raise DataError("%s %s --list names no speed case" % (grade, lab))
    return rules


def num(row, key, path):
    try:
        return float(row[key])
    except (KeyError, TypeError, ValueError):
        raise DataError("%s: case %s has no number in column %s"
                        % (path, row.get("case", "?"), key))


def scored(ratio, rule):
    """the ratio in the rule's own terms"""
    m = re.match(r"^(\d+)% of the (.+?) ceiling", rule)
    if m:
        return "%.1f%% of the %s ceiling" % (100 * ratio, m.group(2))
    m = re.match(r"^[\d.]+x (.+)$", rule)
    return "%.2fx %s" % (ratio, m.group(1) if m else "the baseline")


def table(lab, data, grade):
    ref_path = os.path.join(data, "ref-%s.csv" % lab)
    peers_path = os.path.join(data, "peers-%s.csv" % lab)
    _, ref = read_csv(ref_path)
    notes, peers = read_csv(peers_path)
    if not notes:
        raise DataError("%s lacks its first line '# GPU, date, PyTorch "
                        "version'" % peers_path)
    rules = speed_rules(grade, lab)
    # the grader's CSV writes a case's commas as semicolons
    ref = {r["case"].replace(";", ","): r for r in ref}
    peers = {r["case"]: r for r in peers}
    lines = ["| speed case | reference | library baseline | best PyTorch | "
             "scored | PyTorch / reference | full credit at |",
             "|---|---|---|---|---|---|---|"]
    beaten = []  # cases where PyTorch is faster than the library baseline
    for case, rule in rules.items():
        if case not in ref:
            raise DataError("%s has no row for speed case %s" %
                            (ref_path, case))
        r = ref[case]
        t = num(r, "time_ms", ref_path)
        base = num(r, "baseline_ms", ref_path)
        ratio = num(r, "ratio", ref_path)
        p = peers.get(case)
        torch_ms = num(p, "pytorch_ms", peers_path) if p else None
        lines.append("| %s | %.4f ms | %.4f ms | %s | %s | %s | %s |" % (
            case, t, base,
            "%.4f ms (%s)" % (torch_ms, p["pytorch_op"]) if p else "-",
            scored(ratio, rule),
            "%.2fx" % (torch_ms / t) if p and t > 0 else "-", rule))
        if p and torch_ms < base:
            beaten.append("%s (%.4f ms against %.4f ms)" % (case, torch_ms,
                                                            base))
    if beaten:
        lines.append("")
        lines.append("PyTorch is faster than the library baseline on %s."
                     % ", ".join(beaten))
    lines.append("")
    lines.append("%s: the reference's default code, `make peers LAB=%s "
                 "SOLUTION=1` (seed 1). Generated by `make tables` from "
                 "docs/data/ref-%s.csv and peers-%s.csv: edit the data, "
                 "not this table." % (notes[0], lab, lab, lab))
    return lines


def rewrite(path, data, grade):
    """the file's text with every table rebuilt"""
    with open(path) as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        out.append(lines[i])
        m = BEGIN.match(lines[i])
        i += 1
        if not m:
            continue
        try:
            end = lines.index(END, i)
        except ValueError:
            raise DataError("%s:%d: '%s' has no '%s' after it"
                            % (path, i, lines[i - 1], END))
        out.extend(table(m.group(1), data, grade))
        out.append(END)
        i = end + 1
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(
        description="Write the speed tables into the docs from docs/data.")
    ap.add_argument("--grade", default="build/bin/grade")
    ap.add_argument("--data", default="docs/data")
    ap.add_argument("--check", action="store_true",
                    help="rewrite nothing; exit 1 if a table is stale")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    files = a.files or (["docs/performance.md"] +
                        sorted(glob.glob("labs/*/README.md")))
    stale = []
    try:
        for path in files:
            with open(path) as f:
                old = f.read()
            new = rewrite(path, a.data, a.grade)
            if new == old:
                continue
            if a.check:
                stale.append(path)
            else:
                with open(path + ".tmp", "w") as f:
                    f.write(new)
                os.replace(path + ".tmp", path)
                print("tables: rewrote %s" % path)
    except (DataError, OSError) as e:
        print("tables: %s" % e, file=sys.stderr)
        return EXIT_USAGE
    if stale:
        print("tables: stale against %s: %s (run make tables)"
              % (a.data, ", ".join(stale)), file=sys.stderr)
        return EXIT_STALE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
