/* engine.c: grade one submission: the parent's side of the case loop. */
#define _GNU_SOURCE
#include "parent/engine.h"

#include "fileio.h"
#include "judge/judge.h"
#include "now.h"
#include "parent/policy.h"
#include "parent/score.h"
#include "parent/symbols.h"
#include "protocol/glue.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_HANGS 2 /* after this many timeouts, stop running */

/* is case @p name among the ones @p o names? (none named: every case) */
static int named(const struct cl_grade_opts *o, const char *name)
{
    if (!o->n_only)
        return 1;
    for (int i = 0; i < o->n_only; i++)
        if (strcmp(o->only[i], name) == 0)
            return 1;
    return 0;
}

/* the first name in @p o->only that is no case of @p lab, or NULL */
static const char *unknown_case(const struct cl_lab *lab,
                                const struct cl_grade_opts *o)
{
    for (int i = 0; i < o->n_only; i++) {
        int found = 0;
        for (int c = 0; c < lab->ncases && !found; c++)
            found = strcmp(lab->cases[c].name, o->only[i]) == 0;
        if (!found)
            return o->only[i];
    }
    return NULL;
}

static int select_cases(const struct cl_lab *lab, const struct cl_grade_opts *o,
                        struct cl_grade *g)
{
    /* correctness first, then speed; --bench: speed and the size sweep;
     * --demo: the demo cases alone */
    for (int kind = CL_CASE_CORRECT; kind <= CL_CASE_DEMO; kind++) {
        if (o->run.demo ? kind != CL_CASE_DEMO
            : o->bench  ? kind == CL_CASE_CORRECT || kind == CL_CASE_DEMO
                        : kind == CL_CASE_BENCH || kind == CL_CASE_DEMO)
            continue;
        for (int i = 0; i < lab->ncases && g->n < CL_MAX_CASES; i++) {
            const struct cl_case *c = &lab->cases[i];
            if ((int)c->kind != kind)
                continue;
            if (!named(o, c->name))
                continue;
            if (o->quick && !c->quick && !o->n_only)
                continue;
            memset(&g->r[g->n], 0, sizeof g->r[g->n]);
            g->r[g->n].index = i;
            g->r[g->n].status = CL_ST_NOT_RUN;
            g->n++;
        }
    }
    return g->n;
}

static void mark_rest(struct cl_grade *g, int from, enum cl_status st,
                      const char *msg)
{
    for (int k = from; k < g->n; k++) {
        g->r[k].status = st;
        snprintf(g->r[k].msg, sizeof g->r[k].msg, "%s", msg);
    }
}

/* the submission's bytes, once, into a sealed memfd: what is checked is
 * what runs */
static int seal_submission(const char *path, unsigned char **bytes,
                           size_t *size, char *why, size_t len)
{
    char *buf = cl_read_file(path, size);
    if (!buf) {
        snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    int fd = memfd_create("submission.so", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || cl_write_full(fd, buf, *size) != 0 ||
        fcntl(fd, F_ADD_SEALS,
              F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        snprintf(why, len, "cannot copy the submission: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        free(buf);
        return -1;
    }
    *bytes = (unsigned char *)buf;
    return fd;
}

static enum cl_exit check_bytes(const struct cl_lab *lab,
                                const unsigned char *buf, size_t size,
                                const char *name, char *why, size_t len)
{
    struct cl_symtab t;
    if (cl_symtab_parse(buf, size, name, &t, why, len) != 0)
        return CL_EXIT_LOAD;
    enum cl_caps_verdict v =
        cl_caps_check(lab->caps, cl_lab_entries(lab->id), &t, why, len);
    cl_symtab_free(&t);
    return v == CL_CAPS_OK        ? CL_EXIT_OK
           : v == CL_CAPS_MISSING ? CL_EXIT_LOAD
                                  : CL_EXIT_FORBIDDEN;
}

enum cl_exit cl_check_submission(const struct cl_lab *lab, const char *path,
                                 char *why, size_t len)
{
    size_t size = 0;
    char *buf = cl_read_file(path, &size);
    if (!buf) {
        snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
        return CL_EXIT_LOAD;
    }
    enum cl_exit rc =
        check_bytes(lab, (unsigned char *)buf, size, path, why, len);
    free(buf);
    return rc;
}

static void progress(const struct cl_grade_opts *o, int k, int n,
                     const char *name)
{
    if (!o->progress)
        return;
    if (name)
        fprintf(stderr, "\r\033[K[%d/%d] %s ...", k + 1, n, name);
    else
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

/* the per-call limit of the run: --timeout, or the policy's for the lab */
static double call_limit(const struct cl_lab *lab,
                         const struct cl_grade_opts *o,
                         const struct cl_policy *policy)
{
    return o->timeout_s > 0 ? o->timeout_s : cl_policy_timeout(policy, lab);
}

/* Run case k on the judge, starting one if none is running. */
static void run_one(const struct cl_judge_run *run, struct cl_grade *g,
                    struct cl_judge *w, int k, int timing)
{
    struct cl_result *r = &g->r[k];
    /* a case makes many calls when timed; the judge enforces the call's
     * limit on the runner, this one only guards against a stuck judge */
    double limit = (timing ? 6 : 3) * run->limit_s + 300;
    if (w->pid <= 0) {
        char why[1024] = "";
        if (cl_judge_start(w, run, NULL, why, sizeof why) != CL_JUDGE_OK) {
            int index = r->index;
            memset(r, 0, sizeof *r);
            r->index = index;
            r->status = CL_ST_INTERNAL;
            r->judge_died = 1;
            snprintf(r->msg, sizeof r->msg, "%s", why);
            return;
        }
    }
    cl_judge_case(w, r->index, timing, limit, r);
}

enum cl_exit cl_grade_run(const struct cl_lab *lab,
                          const struct cl_grade_opts *o, struct cl_grade *g)
{
    double t0 = cl_now_s();
    memset(g, 0, sizeof *g);
    g->lab = lab;
    g->seed = o->run.seed;
    g->lib_path = o->lib_path;
    g->subset = o->quick && !o->n_only ? "quick" : NULL;
    for (int i = 0; i < o->n_only; i++) {
        size_t at = strlen(g->subset_names);
        snprintf(g->subset_names + at, sizeof g->subset_names - at, "%s%s",
                 i ? ", " : "", o->only[i]);
        g->subset = g->subset_names;
    }
    const struct cl_policy *policy =
        o->policy ? o->policy : cl_policy_default();
    g->policy_name = policy->name;
    g->policy = policy;
    signal(SIGPIPE, SIG_IGN);
    /* nothing of the grader's memory is for other processes of this user */
    prctl(PR_SET_DUMPABLE, 0);

    const char *unknown = unknown_case(lab, o);
    if (unknown || select_cases(lab, o, g) == 0) {
        if (o->run.demo && !o->n_only)
            snprintf(g->summary, sizeof g->summary, "lab %s has no demo",
                     lab->id);
        else
            snprintf(g->summary, sizeof g->summary,
                     "no case named '%s' in lab %s",
                     unknown     ? unknown
                     : o->n_only ? o->only[0]
                                 : "(quick)",
                     lab->id);
        return g->exit_code = CL_EXIT_USAGE;
    }
    struct cl_lab_data *data = NULL;
    struct cl_judge_run run = {
        .lab = lab,
        .sub_fd = -1,
        .limit_s = call_limit(lab, o, policy),
        .opts = &o->run,
    };
    unsigned char *bytes = NULL;
    size_t size = 0;
    enum cl_exit rc = CL_EXIT_OK;
    run.sub_fd = seal_submission(o->lib_path, &bytes, &size, g->summary,
                                 sizeof g->summary);
    if (run.sub_fd < 0)
        rc = CL_EXIT_LOAD;
    if (rc == CL_EXIT_OK)
        rc = check_bytes(lab, bytes, size, o->lib_path, g->summary,
                         sizeof g->summary);
    free(bytes);
    if (rc == CL_EXIT_OK && lab->load_data &&
        lab->load_data(&data, g->summary, sizeof g->summary) != 0)
        rc = CL_EXIT_DATA;
    run.data = data;
    struct cl_judge w = {0, -1, -1};
    if (rc == CL_EXIT_OK) {
        int h =
            cl_judge_start(&w, &run, &g->gpu, g->summary, sizeof g->summary);
        g->have_gpu = h == CL_JUDGE_OK && lab->needs_gpu;
        rc = h == CL_JUDGE_OK       ? CL_EXIT_OK
             : h == CL_JUDGE_NO_GPU ? CL_EXIT_NO_GPU
                                    : CL_EXIT_INTERNAL;
    }
    if (rc != CL_EXIT_OK) {
        /* (interrupted while the judge started: that, not its failure) */
        g->interrupted = cl_judge_interrupted();
        mark_rest(g, 0, CL_ST_NOT_RUN,
                  g->interrupted ? "not run: interrupted" : g->summary);
        cl_score_grade(g, policy);
        g->elapsed_s = cl_now_s() - t0;
        if (run.sub_fd >= 0)
            close(run.sub_fd);
        if (g->interrupted)
            rc = (enum cl_exit)(128 + g->interrupted);
        return g->exit_code = rc;
    }

    int hangs = 0, correct = 1;
    for (int k = 0; k < g->n; k++) {
        const struct cl_case *c = &lab->cases[g->r[k].index];
        if (cl_judge_interrupted()) {
            mark_rest(g, k, CL_ST_NOT_RUN, "not run: interrupted");
            break;
        }
        if (hangs >= MAX_HANGS) {
            mark_rest(g, k, CL_ST_NOT_RUN,
                      "not run: earlier cases hung; fix the hang first");
            break;
        }
        int timing = (c->kind == CL_CASE_SPEED || c->kind == CL_CASE_BENCH) &&
                     correct && !o->run.profile;
        progress(o, k, g->n, c->name);
        double started = cl_now_s();
        run_one(&run, g, &w, k, timing);
        struct cl_result *r = &g->r[k];
        /* a judge that died or failed is the grader's failure, never the
         * submission's: the case once more, with a fresh judge */
        if (r->judge_died && !cl_judge_interrupted()) {
            char first[sizeof r->msg];
            snprintf(first, sizeof first, "%s", r->msg);
            fprintf(stderr, "grade: case %s: %s; running it again\n", c->name,
                    first);
            run_one(&run, g, &w, k, timing);
            if (r->judge_died) {
                size_t at = strlen(r->msg);
                snprintf(r->msg + at, sizeof r->msg - at,
                         " (twice; the first time: %.300s)", first);
            }
        }
        if (r->sandbox && !g->sandbox) {
            g->sandbox = r->sandbox;
            g->runner_uid = r->runner_uid;
        }
        r->wall_s = cl_now_s() - started;
        hangs += r->status == CL_ST_TIMEOUT;
        /* the grader's own failure says nothing of the submission: the
         * speed cases after it are still timed */
        if (!cl_status_correct(r->status) && r->status != CL_ST_INTERNAL)
            correct = 0;
        if (r->load_failed) {
            /* the submission's own failure, before any case could run */
            snprintf(g->summary, sizeof g->summary, "%s", r->msg);
            mark_rest(g, k + 1, CL_ST_NOT_RUN,
                      "not run: the submission failed while loading");
            rc = CL_EXIT_LOAD;
            break;
        }
        if (c->kind != CL_CASE_CORRECT && c->kind != CL_CASE_DEMO && !timing &&
            r->status == CL_ST_PASS && !r->msg[0])
            snprintf(r->msg, sizeof r->msg,
                     "correct, but not timed: speed counts once every "
                     "correctness case passes");
    }
    progress(o, 0, 0, NULL);
    cl_judge_stop(&w);
    close(run.sub_fd);
    cl_score_grade(g, policy);
    g->elapsed_s = cl_now_s() - t0;
    if (rc == CL_EXIT_LOAD)
        return g->exit_code = rc;
    if ((g->interrupted = cl_judge_interrupted()) != 0)
        return g->exit_code = (enum cl_exit)(128 + g->interrupted);
    return g->exit_code = g->all_correct ? CL_EXIT_OK : CL_EXIT_FAILED;
}
