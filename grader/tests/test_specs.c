/* test_specs.c: the lab registry: every lab's spec is whole (its cases,
 * the functions it needs, glue that agrees, a plan() that works for every
 * case), the CPU self-test lab stays out of the list, and a lab is found
 * by each of its names and by nothing else. */
#define _GNU_SOURCE
#include "protocol/glue.h"
#include "judge/harness.h"
#include "parent/policy.h"
#include "specs/labs.h"

#include "tests/suite.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[1024];

/* what plan() says of a case is usable: buffers named, an output, a
 * tolerance, work for the timed cases, a ceiling's bytes where the lab
 * measures one */
static void check_plan(const struct cl_lab *lab, const struct cl_case *c,
                       const struct cl_lab_data *data)
{
    static struct cl_plan p;
    unsigned char arg[256];
    ck_assert_uint_le(lab->arg_size, sizeof arg);
    memcpy(arg, c->arg, lab->arg_size);
    if (lab->bind_data)
        lab->bind_data(data, arg);
    memset(&p, 0, sizeof p);
    ck_assert_msg(lab->plan(arg, &p) == 0, "lab %s case %s: plan failed",
                  lab->id, c->name);
    ck_assert_msg(p.nbuf >= 1 && p.nbuf <= CL_MAX_BUFS, "lab %s case %s: %d",
                  lab->id, c->name, p.nbuf);
    int outputs = 0;
    for (int b = 0; b < p.nbuf; b++) {
        ck_assert_msg(p.buf[b].name && p.buf[b].name[0], "lab %s case %s",
                      lab->id, c->name);
        outputs += p.buf[b].role == CL_OUT || p.buf[b].role == CL_STATE;
    }
    ck_assert_msg(outputs > 0, "lab %s case %s: no output", lab->id, c->name);
    ck_assert_msg(p.tol.atol >= 0 && p.tol.rtol >= 0 &&
                      p.tol.atol + p.tol.rtol > 0,
                  "lab %s case %s: tolerance", lab->id, c->name);
    if (c->kind == CL_CASE_SPEED || c->kind == CL_CASE_BENCH) {
        ck_assert_msg(p.work > 0, "lab %s case %s: no work", lab->id, c->name);
        if (lab->ceiling)
            ck_assert_msg(p.ceil_bytes > 0, "lab %s case %s: no ceiling",
                          lab->id, c->name);
    }
}

/* every lab's spec is whole: ids in order, unique case names, correctness,
 * speed and sweep cases, a quick case, a profile case that is a speed
 * case, the functions it needs, glue that agrees, its skeleton there, and
 * a plan() that works for every case */
START_TEST(test_every_lab_spec_is_whole_and_plans_each_case)
{
    struct cl_lab_data *data = NULL;
    int nlabs = 0;
    unsetenv("CUDA_LABS_DATA");
    for (const struct cl_lab *const *l = cl_labs; *l; l++, nlabs++) {
        const struct cl_lab *lab = *l;
        char id[16];
        snprintf(id, sizeof id, "%02d", nlabs + 1);
        ck_assert_str_eq(lab->id, id);
        ck_assert_msg(lab->slug && lab->slug[0] && lab->title && lab->title[0],
                      "lab %s", id);
        ck_assert_msg(access(lab->source, R_OK) == 0, "lab %s: %s", id,
                      lab->source);
        char todo[32];
        snprintf(todo, sizeof todo, "TODO(lab%d)", nlabs + 1);
        ck_assert_str_eq(lab->todo, todo);
        ck_assert_ptr_nonnull(lab->caps);
        ck_assert_int_eq(lab->caps->any_import, 0);
        ck_assert_ptr_nonnull(lab->baseline);
        ck_assert_ptr_nonnull(lab->base);
        ck_assert_ptr_nonnull(lab->plan);
        ck_assert_ptr_nonnull(lab->check);
        ck_assert_int_eq(lab->needs_gpu, 1);
        ck_assert_int_le(lab->ncases, CL_MAX_CASES);
        ck_assert_int_eq(lab->bind_data != NULL, lab->load_data != NULL);
        const char *const *entries = cl_lab_entries(lab->id);
        ck_assert_msg(entries != NULL, "lab %s: no entry points", id);
        ck_assert_ptr_nonnull(entries[0]);
        ck_assert_uint_eq(cl_lab_arg_size(lab->id), lab->arg_size);
        ck_assert_int_eq(cl_lab_on_cpu(lab->id), 0);
        if (lab->load_data) {
            ck_assert_msg(lab->load_data(&data, err, sizeof err) == 0,
                          "lab %s: %s", id, err);
            ck_assert_ptr_nonnull(data);
        }
        int kinds[4] = {0, 0, 0, 0}, quick = 0, profile = 0;
        for (int i = 0; i < lab->ncases; i++) {
            const struct cl_case *c = &lab->cases[i];
            ck_assert_int_le((int)c->kind, CL_CASE_DEMO);
            kinds[c->kind]++;
            quick += c->quick && c->kind == CL_CASE_CORRECT;
            if (strcmp(c->name, lab->profile_case) == 0)
                profile = c->kind == CL_CASE_SPEED;
            ck_assert_ptr_nonnull(c->arg);
            for (int j = 0; j < i; j++)
                ck_assert_msg(strcmp(c->name, lab->cases[j].name) != 0,
                              "lab %s: case %s twice", id, c->name);
            check_plan(lab, c, data);
        }
        ck_assert_msg(kinds[CL_CASE_CORRECT] > 0, "lab %s", id);
        ck_assert_msg(kinds[CL_CASE_SPEED] > 0, "lab %s", id);
        ck_assert_msg(kinds[CL_CASE_BENCH] > 0, "lab %s: no sweep", id);
        ck_assert_msg(quick > 0, "lab %s: no quick case", id);
        ck_assert_msg(profile, "lab %s: profile case %s is not a speed case",
                      id, lab->profile_case);
        ck_assert_double_eq(cl_policy_lab_max(cl_policy_default(), lab), 100.0);
    }
    ck_assert_int_eq(nlabs, 6);
    /* only Lab 6 has a demo */
    const struct cl_lab *l6 = cl_lab_find("06", NULL);
    int demos = 0;
    for (int i = 0; i < l6->ncases; i++)
        demos += l6->cases[i].kind == CL_CASE_DEMO;
    ck_assert_int_eq(demos, 1);
}
END_TEST

/* the self-test lab: on the CPU, hidden from the list, imports unchecked */
START_TEST(test_selftest_lab_is_hidden_and_runs_on_the_cpu)
{
    const struct cl_lab *self = cl_lab_find("00", NULL);
    ck_assert_ptr_nonnull(self);
    ck_assert_str_eq(self->slug, "selftest");
    ck_assert_int_eq(self->needs_gpu, 0);
    ck_assert_int_eq(self->caps->any_import, 1);
    ck_assert_int_eq(cl_lab_on_cpu("00"), 1);
    for (const struct cl_lab *const *l = cl_labs; *l; l++)
        ck_assert_ptr_ne(*l, self);
    for (int i = 0; i < self->ncases; i++)
        check_plan(self, &self->cases[i], NULL);
    ck_assert_ptr_null(cl_lab_entries("07"));
    ck_assert_uint_eq(cl_lab_arg_size("07"), 0);
}
END_TEST

/* a lab by its id, its number, its slug or both; nothing else */
START_TEST(test_lab_found_by_id_number_or_slug_and_nothing_else)
{
    const struct cl_lab *l1 = cl_lab_find("01", NULL);
    ck_assert_ptr_nonnull(l1);
    ck_assert_ptr_eq(l1, cl_labs[0]);
    ck_assert_str_eq(l1->slug, "vector-add");
    ck_assert_ptr_eq(cl_lab_find("1", NULL), l1);
    ck_assert_ptr_eq(cl_lab_find("vector-add", NULL), l1);
    ck_assert_ptr_eq(cl_lab_find("01-vector-add", NULL), l1);
    for (int i = 0; cl_labs[i]; i++) {
        const struct cl_lab *lab = cl_labs[i];
        char num[16], full[128];
        snprintf(num, sizeof num, "%d", i + 1);
        snprintf(full, sizeof full, "%s-%s", lab->id, lab->slug);
        ck_assert_ptr_eq(cl_lab_find(lab->id, NULL), lab);
        ck_assert_ptr_eq(cl_lab_find(num, NULL), lab);
        ck_assert_ptr_eq(cl_lab_find(lab->slug, NULL), lab);
        ck_assert_ptr_eq(cl_lab_find(full, NULL), lab);
    }
    ck_assert_ptr_eq(cl_lab_find("stencil", NULL), cl_labs[1]);
    ck_assert_ptr_eq(cl_lab_find("6", NULL), cl_labs[5]);
    ck_assert_ptr_null(cl_lab_find("vector", NULL));
    ck_assert_ptr_null(cl_lab_find("Vector-Add", NULL));
    ck_assert_ptr_null(cl_lab_find("01-stencil", NULL));
    ck_assert_ptr_null(cl_lab_find("1x", NULL));
    ck_assert_ptr_null(cl_lab_find("", NULL));
    ck_assert_ptr_null(cl_lab_find("7", NULL));
    ck_assert_ptr_null(cl_lab_find("99", NULL));
    /* the hidden self-test lab */
    ck_assert_ptr_nonnull(cl_lab_find("00", NULL));
    ck_assert_ptr_eq(cl_lab_find("selftest", NULL), cl_lab_find("0", NULL));
    /* a test's own labs come first, and may shadow the grader's */
    static const struct cl_lab mine = {.id = "93", .slug = "mine"};
    static const struct cl_lab shadow = {.id = "01", .slug = "shadow"};
    const struct cl_lab *extra[] = {&mine, &shadow, NULL};
    ck_assert_ptr_eq(cl_lab_find("93", extra), &mine);
    ck_assert_ptr_eq(cl_lab_find("mine", extra), &mine);
    ck_assert_ptr_eq(cl_lab_find("1", extra), &shadow);
    ck_assert_ptr_eq(cl_lab_find("vector-add", extra), l1);
    ck_assert_ptr_null(cl_lab_find("93", NULL));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("specs");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_every_lab_spec_is_whole_and_plans_each_case);
    tcase_add_test(core, test_lab_found_by_id_number_or_slug_and_nothing_else);
    suite_add_tcase(s, core);

    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_selftest_lab_is_hidden_and_runs_on_the_cpu);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
