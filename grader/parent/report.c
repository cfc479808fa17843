/* report.c: the terminal table and results.json. */
#define _POSIX_C_SOURCE 200809L
#include "parent/report.h"

#include "fileio.h"
#include "parent/policy.h"
#include "runner/sandbox.h"
#include "parent/score.h"
#include "judge/trace.h"

#include <cjson/cJSON.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define GREEN  "\033[32m"
#define RED    "\033[31m"
#define YELLOW "\033[33m"
#define BOLD   "\033[1m"
#define RESET  "\033[0m"

static const char *metric_unit(const struct cl_lab *lab)
{
    return lab->metric == CL_METRIC_GBPS ? "GB/s" : "TFLOP/s";
}

/* throughput of the student's call in the lab's unit */
static double throughput(const struct cl_lab *lab, const struct cl_result *r)
{
    double scale = lab->metric == CL_METRIC_GBPS ? 1e9 : 1e12;
    return r->t_ms > 0 ? r->work / (r->t_ms * 1e-3) / scale : 0.0;
}

/* the ceiling's rate: measured in this case, else the calibrated peak */
static double ceiling_rate(const struct cl_grade *g, const struct cl_result *r)
{
    const struct cl_lab *lab = g->lab;
    double scale = lab->metric == CL_METRIC_GBPS ? 1e9 : 1e12;
    if (r->ceil_ms > 0 && r->ceil_work > 0)
        return r->ceil_work / (r->ceil_ms * 1e-3) / scale;
    if (!g->have_gpu)
        return 0.0;
    return lab->metric == CL_METRIC_GBPS ? g->gpu.memcpy_gbps
                                         : g->gpu.sgemm_tflops;
}

static const struct cl_policy *policy_of(const struct cl_grade *g)
{
    return g->policy ? g->policy : cl_policy_default();
}

/* what the sandbox did, or that there was none, for the header */
static void sandbox_line(const struct cl_grade *g, char *buf, size_t len)
{
    char what[256];
    if (!g->sandbox) {
        snprintf(buf, len, "sandbox: none recorded (nothing ran)");
        return;
    }
    cl_sandbox_describe(g->sandbox, g->runner_uid, what, sizeof what);
    const char *who = "";
    if (!(g->sandbox & CL_SBX_SECCOMP1))
        who = "; NO SECCOMP: the runner is not confined (tool mode?)";
    else if (!(g->sandbox & CL_SBX_USER) && g->runner_uid != 0)
        who = "; same user as the grader (not root: no user change)";
    else if (!(g->sandbox & CL_SBX_USER))
        who = "; RUNS AS ROOT: could not change user";
    /* without Landlock the runner reads what its user can: the course's
     * answers must then be off this host (docs/grading.md) */
    const char *files =
        (g->sandbox & CL_SBX_SECCOMP1) &&
                !(g->sandbox & (CL_SBX_FILES | CL_SBX_JAIL))
            ? "; FILES NOT CONFINED (no Landlock, no mount namespace here): "
              "keep solutions/ and build/ off this host"
            : "";
    snprintf(buf, len, "sandbox: %s%s%s", what, who, files);
}

void cl_report_platform(const struct cl_grade *g, char *buf, size_t len)
{
    if (!g->have_gpu) { /* the CPU lab, none found, or rejected before */
        snprintf(buf, len, "%s",
                 !g->lab->needs_gpu               ? "on the CPU"
                 : g->exit_code == CL_EXIT_NO_GPU ? "no GPU"
                                                  : "nothing run");
        return;
    }
    char cuda[16], blas[16], dnn[16];
    cl_version_string(g->gpu.runtime, 0, cuda, sizeof cuda);
    cl_version_string(g->gpu.cublas, 0, blas, sizeof blas);
    cl_version_string(g->gpu.cudnn, 1, dnn, sizeof dnn);
    snprintf(buf, len, "%s (sm_%d%d, %d SMs), CUDA %s, cuBLAS %s, cuDNN %s",
             g->gpu.name, g->gpu.cc_major, g->gpu.cc_minor, g->gpu.sm_count,
             cuda, blas, dnn);
}

int cl_find_marker(const char *source, const char *marker, int *count)
{
    if (count)
        *count = 0;
    if (!source || !marker)
        return 0;
    char *text = cl_read_file(source, NULL);
    if (!text)
        return 0;
    int line = 1, first = 0, n = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (strstr(p, marker)) {
            if (!first)
                first = line;
            n++;
        }
        if (!nl)
            break;
        p = nl + 1;
        line++;
    }
    free(text);
    if (count)
        *count = n;
    return first;
}

static const char *kind_suffix(const struct cl_case *c)
{
    return c->kind == CL_CASE_SPEED   ? " (speed)"
           : c->kind == CL_CASE_BENCH ? " (bench)"
           : c->kind == CL_CASE_DEMO  ? " (demo)"
                                      : "";
}

static void fmt_ms(char *buf, size_t len, double ms, int valid)
{
    if (valid && ms > 0)
        snprintf(buf, len, "%.4f ms", ms);
    else
        snprintf(buf, len, "-");
}

int cl_bonus_cases(const struct cl_grade *g, int *which, int max)
{
    const struct cl_lab *lab = g->lab;
    double bonus = cl_policy_bonus(policy_of(g), lab);
    int n = 0;
    if (bonus <= 0 || !g->all_correct)
        return 0;
    for (int k = 0; k < g->n; k++) {
        const struct cl_result *r = &g->r[k];
        if (lab->cases[r->index].kind == CL_CASE_CORRECT || !r->timed ||
            r->status != CL_ST_PASS || r->speedup < bonus)
            continue;
        if (n < max)
            which[n] = k;
        n++;
    }
    return n;
}

/* no points, only a line: the cases beyond the lab's bonus speedup */
static void print_bonus(FILE *f, const struct cl_grade *g, int color)
{
    int which[CL_MAX_CASES];
    int n = cl_bonus_cases(g, which, CL_MAX_CASES);
    if (!n)
        return;
    fprintf(f, "%sbonus:%s %.1fx %s or better on", color ? GREEN : "",
            color ? RESET : "", cl_policy_bonus(policy_of(g), g->lab),
            g->lab->baseline);
    for (int i = 0; i < n; i++) {
        const struct cl_result *r = &g->r[which[i]];
        fprintf(f, "%s %s (%.2fx)", i ? "," : "", g->lab->cases[r->index].name,
                r->speedup);
    }
    fprintf(f, "\n");
}

/* the cases that ran before an interruption */
static int cases_done(const struct cl_grade *g)
{
    int done = 0;
    for (int k = 0; k < g->n; k++)
        done += g->r[k].status != CL_ST_NOT_RUN;
    return done;
}

void cl_report_print(FILE *f, const struct cl_grade *g, int color,
                     const char *source)
{
    const struct cl_lab *lab = g->lab;
    char plat[256];
    cl_report_platform(g, plat, sizeof plat);
    fprintf(f, "%sLab %s: %s%s  (seed %" PRIu64 ", %s, policy %s)\n",
            color ? BOLD : "", lab->id, lab->title, color ? RESET : "", g->seed,
            plat, g->policy_name ? g->policy_name : "default");
    if (g->sandbox) {
        char sb[512];
        sandbox_line(g, sb, sizeof sb);
        fprintf(f, "  %s\n", sb);
    }
    if (g->exit_code == CL_EXIT_NO_GPU || g->exit_code == CL_EXIT_LOAD ||
        g->exit_code == CL_EXIT_FORBIDDEN || g->exit_code == CL_EXIT_INTERNAL ||
        g->exit_code == CL_EXIT_DATA) {
        fprintf(f, "%snot graded: %s%s\n", color ? RED : "", g->summary,
                color ? RESET : "");
        return;
    }

    char pct_head[32];
    snprintf(pct_head, sizeof pct_head, "%% %s", cl_ceiling_name(lab));
    fprintf(f, "  %-26s %-14s %11s %14s %8s %9s %10s %13s\n", "case", "status",
            "time", lab->baseline, "speedup", metric_unit(lab), pct_head,
            "points");
    for (int k = 0; k < g->n; k++) {
        const struct cl_result *r = &g->r[k];
        const struct cl_case *c = &lab->cases[r->index];
        char t[24], b[24], sp[16] = "-", tp[16] = "-", pc[16] = "-";
        fmt_ms(t, sizeof t, r->t_ms, r->timed);
        fmt_ms(b, sizeof b, r->base_ms, r->timed);
        if (r->timed && r->t_ms > 0) {
            double peak = ceiling_rate(g, r);
            snprintf(sp, sizeof sp, "%.2fx", r->speedup);
            snprintf(tp, sizeof tp, "%.1f", throughput(lab, r));
            if (peak > 0)
                snprintf(pc, sizeof pc, "%.1f%%",
                         100.0 * throughput(lab, r) / peak);
        }
        const char *col = "";
        if (color)
            col = r->status != CL_ST_PASS          ? RED
                  : r->score < r->max_score - 1e-9 ? YELLOW
                                                   : GREEN;
        char name[40];
        snprintf(name, sizeof name, "%s%s", c->name, kind_suffix(c));
        fprintf(f, "  %-26s %s%-14s%s %11s %14s %8s %9s %10s %6.1f/%-6g\n",
                name, col, cl_status_name(r->status), color ? RESET : "", t, b,
                sp, tp, pc, r->score, r->max_score);
    }

    int first_fail = -1;
    for (int k = 0; k < g->n; k++) {
        const struct cl_result *r = &g->r[k];
        if (r->msg[0])
            fprintf(f, "  %s: %s\n", lab->cases[r->index].name, r->msg);
        if (r->timed && r->trace.on && r->trace.n > 0) {
            char lines[4096];
            cl_trace_describe(&r->trace, "      ", 6, lines, sizeof lines);
            fprintf(f, "  %s: your call launched (one timed call):\n%s",
                    lab->cases[r->index].name, lines);
        }
        if (first_fail < 0 && r->status != CL_ST_PASS)
            first_fail = k;
    }
    if (g->interrupted) {
        fprintf(f,
                "%sinterrupted: %d of %d cases graded; the rest not run, so "
                "this is not a score: grade again%s\n",
                color ? RED : "", cases_done(g), g->n, color ? RESET : "");
        return;
    }
    fprintf(f, "%sscore: %.1f / %.1f%s  (correctness %.1f/%g, speed %.1f/%g)\n",
            color ? BOLD : "", g->score, g->max_score, color ? RESET : "",
            g->correct_score, g->correct_max, g->speed_score, g->speed_max);
    print_bonus(f, g, color);
    if (first_fail >= 0) {
        int count = 0;
        int line = cl_find_marker(source, lab->todo, &count);
        fprintf(f, "hint: start with case '%s'.",
                lab->cases[g->r[first_fail].index].name);
        if (line)
            fprintf(f, " %s still has %d %s marker%s; the first is at line %d.",
                    source, count, lab->todo, count == 1 ? "" : "s", line);
        fprintf(f, " labs/%s-%s/README.md explains each task.\n", lab->id,
                lab->slug);
    } else if (g->speed_score < g->speed_max - 1e-9) {
        for (int k = 0; k < g->n; k++) {
            const struct cl_result *r = &g->r[k];
            if (lab->cases[r->index].kind != CL_CASE_SPEED ||
                r->score >= r->max_score - 1e-9)
                continue;
            if (r->vs_ceiling)
                fprintf(f,
                        "hint: correct everywhere; '%s' reaches %.0f%% of "
                        "the %s ceiling, and full speed credit needs %.0f%% "
                        "(see the README's grading table).\n",
                        lab->cases[r->index].name, 100 * r->ratio,
                        cl_ceiling_name(lab), 100 * r->target);
            else
                fprintf(f,
                        "hint: correct everywhere; '%s' runs at %.2fx %s, "
                        "and full speed credit needs %.2fx (see the README's "
                        "grading table).\n",
                        lab->cases[r->index].name, r->ratio, lab->baseline,
                        r->target);
            break;
        }
    }
}

static const char *grade_status(const struct cl_grade *g)
{
    if (g->interrupted)
        return "not graded: interrupted";
    switch (g->exit_code) {
    case CL_EXIT_OK: return "graded";
    case CL_EXIT_FAILED: return "graded";
    case CL_EXIT_NO_GPU: return "not graded: no GPU";
    case CL_EXIT_DATA: return "not graded: lab data missing or corrupt";
    case CL_EXIT_FORBIDDEN: return "forbidden library";
    case CL_EXIT_LOAD: return "cannot load";
    case CL_EXIT_USAGE: return "usage error";
    default: return "internal error";
    }
}

char *cl_report_json(const struct cl_grade *g)
{
    const struct cl_lab *lab = g->lab;
    cJSON *o = cJSON_CreateObject();
    char buf[256];
    cJSON_AddNumberToObject(o, "score", g->score);
    cJSON_AddNumberToObject(o, "max_score", g->max_score);
    cJSON_AddNumberToObject(o, "execution_time", (int)(g->elapsed_s + 0.5));
    char out[1400];
    if (g->summary[0])
        snprintf(out, sizeof out, "Lab %s %s: %s", lab->id, lab->slug,
                 g->summary);
    else
        snprintf(out, sizeof out,
                 "Lab %s %s: %.1f / %.1f (correctness %.1f, speed %.1f)",
                 lab->id, lab->slug, g->score, g->max_score, g->correct_score,
                 g->speed_score);
    if (g->interrupted) {
        /* what was done, kept; never a score (no gradebook counts it) */
        snprintf(out, sizeof out,
                 "Lab %s %s: interrupted (signal %d) after %d of %d cases: "
                 "not a score; grade again",
                 lab->id, lab->slug, g->interrupted, cases_done(g), g->n);
        cJSON_AddTrueToObject(o, "incomplete");
    }
    cJSON_AddStringToObject(o, "output", out);

    cJSON *tests = cJSON_AddArrayToObject(o, "tests");
    cJSON *cases = cJSON_CreateArray();
    cJSON *board = cJSON_AddArrayToObject(o, "leaderboard");
    for (int k = 0; k < g->n; k++) {
        const struct cl_result *r = &g->r[k];
        const struct cl_case *c = &lab->cases[r->index];
        cJSON *t = cJSON_CreateObject();
        snprintf(buf, sizeof buf, "%s%s", c->name, kind_suffix(c));
        cJSON_AddStringToObject(t, "name", buf);
        cJSON_AddNumberToObject(t, "score", r->score);
        cJSON_AddNumberToObject(t, "max_score", r->max_score);
        cJSON_AddStringToObject(t, "status",
                                r->status == CL_ST_PASS ? "passed" : "failed");
        char msg[1400];
        snprintf(msg, sizeof msg, "%s%s%s", cl_status_name(r->status),
                 r->msg[0] ? ": " : "", r->msg);
        cJSON_AddStringToObject(t, "output", msg);
        cJSON_AddItemToArray(tests, t);

        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", c->name);
        cJSON_AddStringToObject(e, "status", cl_status_name(r->status));
        cJSON_AddBoolToObject(e, "timed", r->timed);
        cJSON_AddNumberToObject(e, "wall_s", r->wall_s);
        if (r->timed) {
            cJSON_AddNumberToObject(e, "time_ms", r->t_ms);
            cJSON_AddNumberToObject(e, "baseline_ms", r->base_ms);
            cJSON_AddNumberToObject(e, "speedup", r->speedup);
            cJSON_AddNumberToObject(e, "ratio", r->ratio);
            cJSON_AddNumberToObject(e, "target", r->target);
            cJSON_AddStringToObject(e, "vs",
                                    r->vs_ceiling ? "ceiling" : "baseline");
            cJSON_AddNumberToObject(e, "throughput", throughput(lab, r));
            cJSON_AddNumberToObject(e, "samples", r->samples);
            /* how the time was measured: the judge's clock less the empty
             * frame, and beside it what the runner reported */
            cJSON_AddNumberToObject(e, "judge_ms", r->judge_ms);
            cJSON_AddNumberToObject(e, "event_ms", r->event_ms);
            cJSON_AddNumberToObject(e, "frame_ms", r->frame_ms);
            cJSON_AddNumberToObject(e, "noise_ms", r->noise_ms);
            cJSON_AddNumberToObject(e, "frame_loaded_ms", r->frame_loaded_ms);
            /* 2: graded twice, its first look's time set by the judge's
             * clock above the events (cl_second_look_due()) */
            cJSON_AddNumberToObject(e, "looks", r->looks > 1 ? r->looks : 1);
            if (r->looks > 1)
                cJSON_AddNumberToObject(e, "first_look_ms", r->first_look_ms);
            if (r->ceil_ms > 0)
                cJSON_AddNumberToObject(e, "ceiling_ms", r->ceil_ms);
            if (r->status == CL_ST_PASS && r->t_ms > 0) {
                cJSON *l = cJSON_CreateObject();
                snprintf(buf, sizeof buf, "speedup vs %s, %s", lab->baseline,
                         c->name);
                cJSON_AddStringToObject(l, "name", buf);
                cJSON_AddNumberToObject(l, "value", r->speedup);
                cJSON_AddStringToObject(l, "order", "desc");
                cJSON_AddItemToArray(board, l);
            }
        }
        if (r->trace.on) {
            cJSON *tr = cJSON_AddArrayToObject(e, "trace");
            for (int i = 0; i < r->trace.n && i < CL_TRACE_MAX; i++) {
                const struct cl_trace_rec *tc = &r->trace.rec[i];
                cJSON *one = cJSON_CreateObject();
                char name[128];
                if (tc->kind == 0)
                    cl_trace_name(tc->name, name, sizeof name);
                else
                    snprintf(name, sizeof name, "%s",
                             tc->kind == 1 ? "memcpy" : "memset");
                cJSON_AddStringToObject(one, "name", name);
                cJSON_AddItemToObject(one, "grid",
                                      cJSON_CreateIntArray(tc->grid, 3));
                cJSON_AddItemToObject(one, "block",
                                      cJSON_CreateIntArray(tc->block, 3));
                cJSON_AddNumberToObject(one, "count", tc->count);
                cJSON_AddNumberToObject(one, "ms", tc->ms);
                cJSON_AddStringToObject(one, "stream",
                                        tc->stream == CL_ON_OTHER ? "other"
                                        : tc->stream == CL_ON_LEGACY
                                            ? "legacy default"
                                            : "given");
                cJSON_AddItemToArray(tr, one);
            }
            cJSON_AddNumberToObject(e, "trace_busy_ms", r->trace.busy_ms);
        }
        cJSON_AddItemToArray(cases, e);
    }

    cJSON *x = cJSON_AddObjectToObject(o, "extra_data");
    cJSON_AddStringToObject(x, "lab", lab->id);
    cJSON_AddStringToObject(x, "slug", lab->slug);
    snprintf(buf, sizeof buf, "%" PRIu64, g->seed);
    cJSON_AddStringToObject(x, "seed", buf);
    cJSON_AddStringToObject(x, "status", grade_status(g));
    if (g->subset) /* a rehearsal: never a grade of the whole lab */
        cJSON_AddStringToObject(x, "subset", g->subset);
    cJSON_AddNumberToObject(x, "exit_code", g->exit_code);
    cJSON_AddBoolToObject(x, "all_correct", g->all_correct);
    cJSON_AddNumberToObject(x, "correctness_score", g->correct_score);
    cJSON_AddNumberToObject(x, "speed_score", g->speed_score);
    cJSON_AddStringToObject(x, "metric", metric_unit(lab));
    cJSON_AddStringToObject(x, "baseline", lab->baseline);
    cJSON_AddStringToObject(x, "policy",
                            g->policy_name ? g->policy_name : "default");
    if (g->sandbox) {
        char sb[512];
        sandbox_line(g, sb, sizeof sb);
        cJSON_AddStringToObject(x, "sandbox", sb);
    }
    if (g->have_gpu) {
        cJSON *gp = cJSON_AddObjectToObject(x, "gpu");
        cJSON_AddStringToObject(gp, "name", g->gpu.name);
        cJSON_AddStringToObject(gp, "uuid", g->gpu.uuid);
        snprintf(buf, sizeof buf, "%d.%d", g->gpu.cc_major, g->gpu.cc_minor);
        cJSON_AddStringToObject(gp, "compute_capability", buf);
        cJSON_AddNumberToObject(gp, "sms", g->gpu.sm_count);
        cJSON_AddNumberToObject(gp, "memcpy_gbps", g->gpu.memcpy_gbps);
        cJSON_AddNumberToObject(gp, "sgemm_tflops", g->gpu.sgemm_tflops);
        /* the theory the physical floor is drawn from: a too-fast can be
         * checked against it */
        cJSON_AddNumberToObject(gp, "bw_theory_gbps", g->gpu.bw_theory_gbps);
        cJSON_AddNumberToObject(gp, "fp32_theory_tflops",
                                g->gpu.fp32_theory_tflops);
        cJSON *v = cJSON_AddObjectToObject(x, "versions");
        cl_version_string(g->gpu.driver, 0, buf, sizeof buf);
        cJSON_AddStringToObject(v, "driver", buf);
        cl_version_string(g->gpu.runtime, 0, buf, sizeof buf);
        cJSON_AddStringToObject(v, "cuda", buf);
        cl_version_string(g->gpu.cublas, 0, buf, sizeof buf);
        cJSON_AddStringToObject(v, "cublas", buf);
        cl_version_string(g->gpu.cudnn, 1, buf, sizeof buf);
        cJSON_AddStringToObject(v, "cudnn", buf);
    }
    cJSON_AddItemToObject(x, "cases", cases);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}

void cl_report_csv_header(FILE *f)
{
    fprintf(f, "lab,code,case,work,time_ms,baseline_ms,ceiling_ms,rate,"
               "baseline_rate,ceiling_rate,ratio\n");
}

void cl_report_csv(FILE *f, const struct cl_grade *g, const char *label,
                   int header)
{
    const struct cl_lab *lab = g->lab;
    double scale = lab->metric == CL_METRIC_GBPS ? 1e9 : 1e12;
    if (header)
        cl_report_csv_header(f);
    for (int k = 0; k < g->n; k++) {
        const struct cl_result *r = &g->r[k];
        if (!r->timed || r->t_ms <= 0 || r->status != CL_ST_PASS)
            continue;
        double br =
            r->base_ms > 0 ? r->work / (r->base_ms * 1e-3) / scale : 0.0;
        double cr =
            r->ceil_ms > 0 ? r->ceil_work / (r->ceil_ms * 1e-3) / scale : 0.0;
        char name[64]; /* commas in case names become ';' in CSV */
        snprintf(name, sizeof name, "%s", lab->cases[r->index].name);
        for (char *p = name; *p; p++)
            if (*p == ',')
                *p = ';';
        fprintf(f, "%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                lab->id, label ? label : "student", name, r->work, r->t_ms,
                r->base_ms, r->ceil_ms, throughput(lab, r), br, cr, r->ratio);
    }
}

int cl_report_write_json(const struct cl_grade *g, const char *path)
{
    char *text = cl_report_json(g);
    if (!text)
        return -1;
    size_t n = strlen(text);
    text[n] = '\0';
    int rc = cl_write_atomic(path, text, n);
    cJSON_free(text);
    return rc;
}
