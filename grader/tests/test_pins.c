/*
 * Pins: what every lab asks of a submission, frozen.
 *
 * grader/tests/pins/cases.tsv holds each lab's cases (kind, quick, points
 * and speed rule under the default policy) and inputs.tsv the FNV-1a
 * digest of every input a case fills for seed 1, call 0. A change to a
 * case table, the policy or a fill shows up here as a named difference;
 * when it is intended, regenerate the pins (CL_PINS_WRITE=1 runs this
 * suite as a writer) and say why in the commit. pins/README.md tells how
 * the first pins were checked against the grader before its rewrite.
 */
#define _GNU_SOURCE
#include "fileio.h"
#include "parent/grade.h"
#include "judge/harness.h"
#include "parent/policy.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PINS      "grader/tests/pins/"
#define MAX_ELEMS ((size_t)1 << 25) /* larger cases are not pinned: time */

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* one line per case: the same text the pins file holds */
static void case_line(const struct cl_lab *lab, int i, char *buf, size_t len)
{
    const struct cl_policy *pol = cl_policy_default();
    const struct cl_case *c = &lab->cases[i];
    struct cl_speed_rule r = cl_policy_speed(pol, lab, i);
    snprintf(buf, len, "%s\t%s\tkind=%d\tquick=%d\tpoints=%g\tvs=%d\t%g..%g",
             lab->id, c->name, (int)c->kind, c->quick,
             cl_policy_points(pol, lab, i), (int)r.vs,
             c->kind == CL_CASE_SPEED ? r.zero_at : 0.0,
             c->kind == CL_CASE_SPEED ? r.full_at : 0.0);
}

/* the case's struct, with the lab's data bound (Lab 6's trained model) */
static void *bound_arg(const struct cl_lab *lab, int i,
                       struct cl_lab_data **data)
{
    void *arg = malloc(lab->arg_size);
    memcpy(arg, lab->cases[i].arg, lab->arg_size);
    if (lab->load_data && !*data) {
        char err[512];
        ck_assert_msg(lab->load_data(data, err, sizeof err) == 0,
                      "lab %s's data: %s", lab->id, err);
    }
    if (lab->bind_data)
        lab->bind_data(*data, arg);
    return arg;
}

/* input lines of case @p i, appended to @p out ("" when not pinned) */
static void input_lines(const struct cl_lab *lab, int i,
                        struct cl_lab_data **data, FILE *out)
{
    void *arg = bound_arg(lab, i, data);
    struct cl_plan plan;
    memset(&plan, 0, sizeof plan);
    ck_assert_msg(lab->plan(arg, &plan) == 0, "%s %s: plan", lab->id,
                  lab->cases[i].name);
    size_t elems = 0;
    for (int b = 0; b < plan.nbuf; b++)
        if (plan.buf[b].role == CL_IN || plan.buf[b].role == CL_STATE)
            elems += plan.buf[b].count;
    if (elems <= MAX_ELEMS) {
        void *img[CL_MAX_BUFS] = {0};
        cl_fill_host(lab, arg, &plan, *data, 1, 0, 1, img);
        for (int b = 0; b < plan.nbuf; b++) {
            if (plan.buf[b].role != CL_IN && plan.buf[b].role != CL_STATE)
                continue;
            ck_assert_msg(img[b] != NULL, "%s %s: %s never filled", lab->id,
                          lab->cases[i].name, plan.buf[b].name);
            fprintf(out, "%s\t%s\t%s\t%zu\t%016llx\n", lab->id,
                    lab->cases[i].name, plan.buf[b].name, plan.buf[b].count,
                    (unsigned long long)fnv1a(img[b], plan.buf[b].count * 4));
            free(img[b]);
        }
    }
    free(arg);
}

/* the whole text the current code gives for pins file @p which */
static char *current(const char *which)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct cl_lab_data *data = NULL;
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        if (!(*l)->needs_gpu)
            continue; /* the self-test lab is the grader's, not a lab */
        for (int i = 0; i < (*l)->ncases; i++) {
            if (!strcmp(which, "cases")) {
                char line[512];
                case_line(*l, i, line, sizeof line);
                fprintf(f, "%s\n", line);
            } else if ((*l)->cases[i].kind != CL_CASE_DEMO) {
                input_lines(*l, i, &data, f);
            }
        }
        data = NULL; /* one lab's data; the process ends soon after */
    }
    fclose(f);
    return text;
}

/* the first line where two texts differ, for the failure message */
static void first_difference(const char *want, const char *got, char *buf,
                             size_t len)
{
    int line = 1;
    const char *w = want, *g = got;
    while (*w && *g) {
        const char *we = strchrnul(w, '\n'), *ge = strchrnul(g, '\n');
        if (we - w != ge - g || memcmp(w, g, (size_t)(we - w))) {
            snprintf(buf, len, "line %d: pinned '%.*s', now '%.*s'", line,
                     (int)(we - w), w, (int)(ge - g), g);
            return;
        }
        w = *we ? we + 1 : we;
        g = *ge ? ge + 1 : ge;
        line++;
    }
    snprintf(buf, len, "line %d: %s", line,
             *w ? "a pinned line is gone" : "a line was added");
}

static void compare(const char *which)
{
    char path[256];
    snprintf(path, sizeof path, PINS "%s.tsv", which);
    char *got = current(which);
    if (getenv("CL_PINS_WRITE")) {
        FILE *f = fopen(path, "w");
        ck_assert_msg(f != NULL, "cannot write %s", path);
        fputs(got, f);
        fclose(f);
    }
    char *want = cl_read_file(path, NULL);
    ck_assert_msg(want != NULL, "cannot read %s", path);
    char why[1200] = "";
    if (strcmp(want, got))
        first_difference(want, got, why, sizeof why);
    ck_assert_msg(strcmp(want, got) == 0, "%s differs from the pins: %s", path,
                  why);
    free(want);
    free(got);
}

/* every lab's cases, points and speed bands are the pinned ones */
START_TEST(test_case_tables_match_the_pins)
{
    compare("cases");
}
END_TEST

/* every input a case fills for seed 1 is bit for bit the pinned one */
START_TEST(test_inputs_match_the_pinned_digests)
{
    compare("inputs");
}
END_TEST

/* the first number in @p text, as a ratio ("90%" is 0.9, "1.0x" is 1.0);
 * -1 when there is none */
static double ratio_in(const char *text)
{
    const char *p = text + strcspn(text, "0123456789");
    if (!*p)
        return -1;
    char *end;
    double v = strtod(p, &end);
    return *end == '%' ? v / 100 : v;
}

/* each lab's handout states, for every speed case, the points and the
 * full-credit line the default policy grades with: a student reads the
 * README, not policy.json */
START_TEST(test_handouts_state_the_policy_points_and_bands)
{
    const struct cl_policy *pol = cl_policy_default();
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        const struct cl_lab *lab = *l;
        if (!lab->needs_gpu)
            continue;
        char path[256];
        snprintf(path, sizeof path, "labs/%s-%s/README.md", lab->id, lab->slug);
        char *text = cl_read_file(path, NULL);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        for (int i = 0; i < lab->ncases; i++) {
            const struct cl_case *c = &lab->cases[i];
            if (c->kind != CL_CASE_SPEED)
                continue;
            char head[96];
            snprintf(head, sizeof head, "\n| %s |", c->name);
            const char *row = strstr(text, head);
            ck_assert_msg(row != NULL, "%s: no row for speed case %s", path,
                          c->name);
            /* | name | sizes | points | full credit at | ... */
            char cell[4][256] = {{0}};
            const char *p = row + 2;
            for (int k = 0; k < 4; k++) {
                const char *e = strchr(p, '|');
                ck_assert_msg(e && !memchr(p, '\n', (size_t)(e - p)),
                              "%s: the row of %s has too few cells", path,
                              c->name);
                snprintf(cell[k], sizeof cell[k], "%.*s", (int)(e - p), p);
                p = e + 1;
            }
            struct cl_speed_rule r = cl_policy_speed(pol, lab, i);
            double points = cl_policy_points(pol, lab, i);
            ck_assert_msg(ratio_in(cell[2]) == points,
                          "%s, %s: the handout gives %s points, the policy "
                          "%g",
                          path, c->name, cell[2], points);
            ck_assert_msg(fabs(ratio_in(cell[3]) - r.full_at) < 1e-9,
                          "%s, %s: the handout gives full credit at '%s', "
                          "the policy at %g",
                          path, c->name, cell[3], r.full_at);
            const char *none = strstr(cell[3], "none at ");
            ck_assert_msg(none ? fabs(ratio_in(none) - r.zero_at) < 1e-9
                               : r.zero_at == 0,
                          "%s, %s: the handout's zero line ('%s') is not "
                          "the policy's (%g)",
                          path, c->name, cell[3], r.zero_at);
        }
        free(text);
    }
}
END_TEST

/* the digest is FNV-1a: hand-checked values, so the pins mean what they say */
START_TEST(test_digest_is_fnv1a)
{
    ck_assert_uint_eq(fnv1a("", 0), 14695981039346656037ULL);
    ck_assert_uint_eq(fnv1a("a", 1), 0xaf63dc4c8601ec8cULL);
    ck_assert_uint_eq(fnv1a("foobar", 6), 0x85944171f73967e8ULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pins");
    TCase *tc = tcase_create("pins");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_digest_is_fnv1a);
    tcase_add_test(tc, test_case_tables_match_the_pins);
    tcase_add_test(tc, test_handouts_state_the_policy_points_and_bands);
    tcase_add_test(tc, test_inputs_match_the_pinned_digests);
    suite_add_tcase(s, tc);
    return cl_suite_run(s, 0, NULL);
}
