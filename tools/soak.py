#!/usr/bin/env python3
"""The soak: honest code graded many times must never lose a point.

Grades every reference solution ROUNDS times with random seeds, and every
honest fixture (code written the way a student would, correct, sometimes
slow) as often, each as a whole lab, and keeps one row per grading in
OUT/soak.tsv. Rows add up across runs, commands and sessions (the file is
appended to, never rewritten): run it again with more rounds and the table
counts them all. At the end it prints, and writes to OUT/soak.md, one line
per lab and submission: gradings, gradings that lost any point they should
not have, the statuses seen, judge deaths, sanitizer reports. Every timed
case's figures (the scored time, the judge's clock, the runner's events,
the frame and its noise) go to OUT/timing.tsv.

A false verdict is any of: a reference below full marks; an honest fixture
with a case neither pass nor (speed cases) timed; internal-error or
unconfirmed anywhere; a judge that died; a sanitizer's report (a build of
make SANITIZE=1).

The other direction, with --hostile: every other fixture of the labs
(build/fixtures/labNN/*.so: wrong code, and code that lies, hooks, forges
or hides) is graded once per round too, one row each in OUT/hostile.tsv,
and must be caught: refused, or below full marks. A fixture listed in
NO_GAIN may instead earn full marks by doing the honest work when its
trick finds nothing to exploit ("no gain"); full marks otherwise is
"fooled". The summary ends with both error rates side by side
(OUT/rates.md): honest gradings with a false verdict, hostile gradings
not caught.

The exit status is 1 when a table holds a false verdict or a fooled
grading, 0 when not, 2 on a usage error.

With --gpus 0,1,2,3 the gradings run one per GPU at a time, each GPU
taking the next grading of one queue (CUDA_VISIBLE_DEVICES), as
make grade-class GPUS="0 1 2 3" grades a class; each line of the log
names the GPU.

    python3 tools/soak.py [--rounds N | --total N] [--out DIR] [--grade PATH]
                          [--labs 01,05] [--deadline SECONDS] [--hostile]
                          [--no-honest] [--gpus 0,1] [--summary]
"""
import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# honest fixtures: correct code a student could write; the speed cases may
# earn part of their points, nothing else may be lost
HONEST = {
    "01": ["naive", "syscall_bytes", "thrust"],
    "02": [],
    "03": [],
    "04": ["per_tensor"],
    "05": ["correct"],
    "06": ["correct"],
}
# hostile fixtures that do the honest work when their trick finds nothing
# to exploit (stream_query skips work only while its stream is busy): full
# marks from them is no gain, not a fooled grader
NO_GAIN = {("01", "stream_query")}
BAD = ("internal-error", "unconfirmed")
SANITIZER = re.compile(r"ERROR: AddressSanitizer|runtime error:|"
                       r"ERROR: LeakSanitizer|UndefinedBehaviorSanitizer")


def lab_slug(grade, lab):
    out = subprocess.run([grade, lab, "--which"], capture_output=True,
                         text=True, check=True).stdout.split()
    return out[1]


def grade_once(grade, build, lab, who, lib, seed, gpu=None):
    """One grading (on GPU @gpu when given): its row (a dict)."""
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "r.json")
        t0 = time.time()
        # a hostile fixture may hang: 20 s a case is plenty for the rest
        extra = ["--timeout", "20"] if who.startswith("hostile:") else []
        env = dict(os.environ)
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        p = subprocess.run([grade, lab, "--lib", lib, "--seed", str(seed),
                            "--json", js, "--no-color"] + extra,
                           capture_output=True, text=True, env=env)
        wall = time.time() - t0
        row = {"lab": lab, "who": who, "seed": seed, "exit": p.returncode,
               "wall_s": round(wall, 1), "score": 0.0, "max": 0.0,
               "statuses": "", "judge_deaths": 0, "sanitizer": 0,
               "false": ""}
        text = p.stdout + p.stderr
        row["judge_deaths"] = text.count("the grader's judge died")
        row["sanitizer"] = len(SANITIZER.findall(text))
        try:
            with open(js) as f:
                d = json.load(f)
        except (OSError, ValueError):
            row["false"] = "no results.json (exit %d)" % p.returncode
            return row
        # the runner's sandbox steps, as the report states them
        row["sandbox"] = d.get("extra_data", {}).get("sandbox", "")
        row["score"] = d.get("score", 0.0)
        row["max"] = d.get("max_score", 0.0)
        cases = d.get("extra_data", {}).get("cases", [])
        row["timing"] = [
            "\t".join(str(x) for x in (
                lab, who, c["name"], c.get("time_ms"), c.get("judge_ms"),
                c.get("event_ms"), c.get("frame_ms"), c.get("noise_ms"),
                c.get("baseline_ms"), c.get("ratio"), c.get("samples"),
                c.get("wall_s"), c.get("frame_loaded_ms"), c.get("looks", 1),
                c.get("first_look_ms", "")))
            for c in cases if c.get("timed")]
        row["statuses"] = ",".join(sorted({c["status"] for c in cases}))
        if who.startswith("hostile:"):
            return row  # judged by hostile_verdict
        why = []
        for c in cases:
            st = c["status"]
            if st in BAD:
                why.append("%s %s" % (c["name"], st))
            elif st != "pass":
                why.append("%s %s" % (c["name"], st))
        if who == "reference" and row["score"] < row["max"] - 1e-6:
            why.append("%.1f of %.1f" % (row["score"], row["max"]))
        if row["judge_deaths"]:
            why.append("%d judge deaths" % row["judge_deaths"])
        if row["sanitizer"]:
            why.append("%d sanitizer reports" % row["sanitizer"])
        row["false"] = "; ".join(why)
        if why:  # keep the evidence
            with open(os.path.join(tmp, "log"), "w") as f:
                f.write(text)
            row["log"] = text[-4000:]
        return row


FIELDS = ["lab", "who", "seed", "exit", "wall_s", "score", "max", "statuses",
          "judge_deaths", "sanitizer", "false"]
HOSTILE_FIELDS = ["lab", "fixture", "seed", "exit", "wall_s", "score", "max",
                  "statuses", "verdict", "why"]


def hostile_verdict(lab, fixture, row):
    """caught, no gain, fooled, or false verdict (the grader failed)"""
    statuses = set(row["statuses"].split(",")) - {""}
    if statuses & set(BAD) or row["judge_deaths"] or row["sanitizer"]:
        return "false verdict", "%s%s" % (
            ",".join(sorted(statuses & set(BAD))),
            " judge died" if row["judge_deaths"] else "")
    if row["exit"] not in (0, 1):
        return "caught", "refused (exit %d)" % row["exit"]
    if row["score"] < row["max"] - 1e-6:
        return "caught", "%.1f of %.1f" % (row["score"], row["max"])
    if (lab, fixture) in NO_GAIN:
        return "no gain", "full marks for the honest work it then did"
    return "fooled", "full marks"


def append_hostile(out, lab, fixture, row):
    verdict, why = hostile_verdict(lab, fixture, row)
    path = os.path.join(out, "hostile.tsv")
    new = not os.path.exists(path)
    append_sandbox(out, row)
    vals = dict(row, fixture=fixture, verdict=verdict, why=why)
    with open(path, "a") as f:
        if new:
            f.write("\t".join(HOSTILE_FIELDS) + "\n")
        f.write("\t".join(str(vals[k]).replace("\t", " ")
                          for k in HOSTILE_FIELDS) + "\n")
    return verdict, why


def append_sandbox(out, row):
    """the sandbox line of every grading (sandbox.tsv): which steps the
    runners took on this host, the mount namespace among them"""
    path = os.path.join(out, "sandbox.tsv")
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("lab\twho\tseed\tsandbox\n")
        f.write("\t".join(str(row.get(k, "")).replace("\t", " ")
                          for k in ("lab", "who", "seed", "sandbox")) + "\n")


def append(out, row):
    append_sandbox(out, row)
    path = os.path.join(out, "soak.tsv")
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("\t".join(FIELDS) + "\n")
        f.write("\t".join(str(row[k]).replace("\t", " ") for k in FIELDS) +
                "\n")
    if row.get("timing"):
        tpath = os.path.join(out, "timing.tsv")
        new = not os.path.exists(tpath)
        with open(tpath, "a") as f:
            if new:
                f.write("lab\twho\tcase\ttime_ms\tjudge_ms\tevent_ms\t"
                        "frame_ms\tnoise_ms\tbaseline_ms\tratio\tsamples\t"
                        "wall_s\tframe_loaded_ms\tlooks\tfirst_look_ms\n")
            f.write("\n".join(row["timing"]) + "\n")
    if row.get("log"):
        with open(os.path.join(out, "false-verdicts.log"), "a") as f:
            f.write("==== lab %s %s seed %s: %s\n%s\n" % (
                row["lab"], row["who"], row["seed"], row["false"],
                row["log"]))


def read_tsv(path):
    """the rows of a table this script wrote, as dicts (none: [])"""
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                rows.append(dict(zip(head, line.rstrip("\n").split("\t"))))
    return rows


def summary(out):
    rows = read_tsv(os.path.join(out, "soak.tsv"))
    table = {}
    for r in rows:
        key = (r["lab"], r["who"])
        t = table.setdefault(key, {"runs": 0, "lost": 0, "statuses": set(),
                                   "deaths": 0, "san": 0, "wall": 0.0})
        t["runs"] += 1
        t["lost"] += 1 if r.get("false") else 0
        t["statuses"].update(s for s in r["statuses"].split(",") if s)
        t["deaths"] += int(r["judge_deaths"])
        t["san"] += int(r["sanitizer"])
        t["wall"] += float(r["wall_s"])
    lines = ["| lab | submission | gradings | with a false verdict | "
             "statuses seen | judge deaths | sanitizer reports | "
             "mean wall (s) |",
             "|---|---|---|---|---|---|---|---|"]
    bad = 0
    for (lab, who), t in sorted(table.items()):
        bad += t["lost"]
        lines.append("| %s | %s | %d | %d | %s | %d | %d | %.1f |" % (
            lab, who, t["runs"], t["lost"], " ".join(sorted(t["statuses"])),
            t["deaths"], t["san"], t["wall"] / max(t["runs"], 1)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "soak.md"), "w") as f:
        f.write(text)
    # the hostile fixtures, and both rates
    hrows = read_tsv(os.path.join(out, "hostile.tsv"))
    fooled = 0
    if hrows:
        per = {}
        for r in hrows:
            t = per.setdefault((r["lab"], r["fixture"]),
                               {"runs": 0, "v": {}, "statuses": set()})
            t["runs"] += 1
            t["v"][r["verdict"]] = t["v"].get(r["verdict"], 0) + 1
            t["statuses"].update(x for x in r["statuses"].split(",") if x)
        hl = ["| lab | fixture | gradings | caught | no gain | fooled | "
              "false verdict | statuses seen |", "|---|---|---|---|---|---|---|---|"]
        for (lab, fx), t in sorted(per.items()):
            hl.append("| %s | %s | %d | %d | %d | %d | %d | %s |" % (
                lab, fx, t["runs"], t["v"].get("caught", 0),
                t["v"].get("no gain", 0), t["v"].get("fooled", 0),
                t["v"].get("false verdict", 0),
                " ".join(sorted(t["statuses"])) or "-"))
        htext = "\n".join(hl) + "\n"
        with open(os.path.join(out, "hostile.md"), "w") as f:
            f.write(htext)
        text += "\n" + htext
        fooled = sum(t["v"].get("fooled", 0) + t["v"].get("false verdict", 0)
                     for t in per.values())
    statuses = set()
    for r in rows:
        statuses.update(x for x in r["statuses"].split(",") if x)
    caught = sum(1 for r in hrows if r["verdict"] == "caught")
    nogain = sum(1 for r in hrows if r["verdict"] == "no gain")
    rates = ["| direction | gradings | wrong verdicts | rate | seen |",
             "|---|---|---|---|---|",
             "| honest code (references, honest fixtures) | %d | %d lost a "
             "point or died | %s | %s |" % (
                 len(rows), bad, pct(bad, len(rows)),
                 " ".join(sorted(statuses)) or "-"),
             "| hostile fixtures (%d distinct) | %d | %d not caught | %s | "
             "%d caught, %d no gain |" % (
                 len({(r["lab"], r["fixture"]) for r in hrows}), len(hrows),
                 fooled, pct(fooled, len(hrows)), caught, nogain)]
    srows = read_tsv(os.path.join(out, "sandbox.tsv"))
    if srows:
        seen = collections.Counter(r.get("sandbox", "") for r in srows)
        rates += ["", "| the runners' sandbox line | gradings |", "|---|---|"]
        rates += ["| %s | %d |" % (line or "(none)", k)
                  for line, k in seen.most_common()]
    rtext = "\n".join(rates) + "\n"
    with open(os.path.join(out, "rates.md"), "w") as f:
        f.write(rtext)
    text += "\n" + rtext
    return text, bad + fooled, len(rows) + len(hrows)


def plan(a, grade, labs):
    """the gradings to run, in order, as (round, lab, who, lib): --rounds
    rounds of every submission; or, with --total N, round r holds each
    submission the tables hold fewer than r + 1 gradings of (so a soak cut
    by its deadline resumes where it stopped). None when a build is
    missing."""
    subs = []
    for lab in labs:
        ref = os.path.join(a.build, "solution", "%s-%s.so" % (
            lab, lab_slug(grade, lab)))
        if lab == "00":  # the self-test lab's honest sum
            ref = os.path.join(a.build, "selftest", "honest.so")
        subs.append((lab, "reference", ref))
        if not a.no_honest:
            subs += [(lab, h, os.path.join(a.build, "fixtures", "lab" + lab,
                                           h + ".so"))
                     for h in HONEST.get(lab, [])]
        fdir = os.path.join(a.build, "fixtures", "lab" + lab)
        if a.hostile and os.path.isdir(fdir):
            honest = set(HONEST.get(lab, []))
            subs += [(lab, "hostile:" + f[:-3], os.path.join(fdir, f))
                     for f in sorted(os.listdir(fdir))
                     if f.endswith(".so") and f[:-3] not in honest]
    for _, _, lib in subs:
        if not os.path.exists(lib):
            print("soak: no %s (make all fixtures)" % lib, file=sys.stderr)
            return None
    have = {}
    if a.total:
        for r in read_tsv(os.path.join(a.out, "soak.tsv")):
            k = (r.get("lab"), r.get("who"))
            have[k] = have.get(k, 0) + 1
        for r in read_tsv(os.path.join(a.out, "hostile.tsv")):
            k = (r.get("lab"), "hostile:" + r.get("fixture", ""))
            have[k] = have.get(k, 0) + 1
    work = []
    for rnd in range(a.total or a.rounds):
        work += [(rnd, lab, who, lib) for lab, who, lib in subs
                 if not a.total or have.get((lab, who), 0) <= rnd]
    return work


def pct(k, n):
    return "%.1f%%" % (100.0 * k / n) if n else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--total", type=int, default=0,
                    help="instead of --rounds: grade each submission until "
                    "the tables hold N gradings of it (resumes a soak cut "
                    "by a deadline without favouring the first labs)")
    ap.add_argument("--out", default=os.environ.get("SOAK_OUT",
                                                    "build/soak"))
    # the tree make builds into: BUILD, or build/sanitize under SANITIZE=1
    # (what make exports to the tests of make SANITIZE=1 test)
    ap.add_argument("--build", default=os.environ.get("BUILD") or (
        "build/sanitize" if os.environ.get("SANITIZE") == "1" else "build"))
    ap.add_argument("--grade", default=None)
    ap.add_argument("--labs", default="01,02,03,04,05,06")
    ap.add_argument("--deadline", type=float, default=0,
                    help="stop starting gradings after this many seconds")
    ap.add_argument("--no-honest", action="store_true",
                    help="the references only")
    ap.add_argument("--hostile", action="store_true",
                    help="also every other fixture of the labs, once a round")
    ap.add_argument("--gpus", default=os.environ.get("SOAK_GPUS", ""),
                    help="grade on these GPUs side by side, one grading "
                    "each at a time (0,1,2,3)")
    ap.add_argument("--summary", action="store_true",
                    help="only print the table of what is recorded")
    a = ap.parse_args()
    os.chdir(ROOT)
    os.makedirs(a.out, exist_ok=True)
    # a sanitizer build needs what the Makefile exports for it (with CUDA,
    # ASan must leave the shadow gap alone, or the GPU looks out of memory)
    os.environ.setdefault("ASAN_OPTIONS", "protect_shadow_gap=0:"
                          "detect_leaks=0:abort_on_error=1")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:"
                          "halt_on_error=1")
    if not a.summary:
        grade = a.grade or os.path.join(a.build, "bin", "grade")
        if not os.access(grade, os.X_OK):
            print("soak: no %s (make first)" % grade, file=sys.stderr)
            return 2
        labs = [l.strip() for l in a.labs.split(",") if l.strip()]
        t0 = time.time()
        rng = random.SystemRandom()
        work = plan(a, grade, labs)
        if work is None:
            return 2
        gpus = [g for g in re.split(r"[,\s]+", a.gpus) if g] or [None]
        queue = list(work)
        lock = threading.Lock()  # the queue, the tables and the log

        def worker(gpu):
            while True:
                with lock:
                    if not queue or (a.deadline and
                                     time.time() - t0 > a.deadline):
                        return
                    rnd, lab, who, lib = queue.pop(0)
                    seed = rng.randrange(1, 2**31)
                row = grade_once(grade, a.build, lab, who, lib, seed, gpu)
                on = " gpu %s" % gpu if gpu is not None else ""
                with lock:
                    if who.startswith("hostile:"):
                        v, why = append_hostile(a.out, lab, who[8:], row)
                        print("round %d lab %s %-22s seed %-10s %5.1f/%-5.1f "
                              "%5.1fs%s %s: %s" % (
                                  rnd + 1, lab, who[8:], row["seed"],
                                  row["score"], row["max"], row["wall_s"],
                                  on, v, why), flush=True)
                        continue
                    append(a.out, row)
                    print("round %d lab %s %-14s seed %-10s %5.1f/%-5.1f "
                          "%5.1fs%s %s" % (rnd + 1, lab, who, row["seed"],
                                           row["score"], row["max"],
                                           row["wall_s"], on,
                                           row["false"] or "ok"), flush=True)

        threads = [threading.Thread(target=worker, args=(g,)) for g in gpus]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if queue:
            print("soak: deadline reached (%d gradings left)" % len(queue))
    text, bad, n = summary(a.out)
    print(text + "%d gradings, %d with a false verdict or fooled" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
