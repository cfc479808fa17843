/* test_policy.c: the grading policy (policy.h): the built-in default
 * covers every lab with 100 points; a course's file is laid over it and
 * changes only what it names; every mistake in a file is refused with a
 * line that names the key and the problem; and the grader refuses a
 * policy it cannot read with exit 2 before anything else. */
#define _GNU_SOURCE
#include "fileio.h"
#include "parent/grade.h"
#include "parent/policy.h"

#include "tests/shell.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define GRADE       CL_BUILD_DIR "/bin/grade"
#define SOLUTION_01 CL_BUILD_DIR "/solution/01-vector-add.so"

static struct cl_policy pol; /* large: keep it off the stack */
static char err[600];

/* parse @p json over a copy of the default into pol */
static int over_default(const char *json)
{
    pol = *cl_policy_default();
    err[0] = '\0';
    return cl_policy_parse(&pol, json, NULL, err, sizeof err);
}

/* @p json over the default is refused, the reason containing @p want */
static void refused(const char *json, const char *want)
{
    ck_assert_msg(over_default(json) == -1, "accepted: %s", json);
    ck_assert_msg(strstr(err, want) != NULL, "%s: got '%s', want '%s'", json,
                  err, want);
}

/* index of case @p name in @p lab (fails the test when absent) */
static int case_index(const struct cl_lab *lab, const char *name)
{
    for (int i = 0; i < lab->ncases; i++)
        if (strcmp(lab->cases[i].name, name) == 0)
            return i;
    ck_abort_msg("lab %s has no case %s", lab->id, name);
    return -1;
}

/* write @p text to a fresh temporary file; its path into @p path */
static void temp_file(char *path, const char *text)
{
    strcpy(path, "/tmp/cl-policy-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    size_t n = strlen(text);
    ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
}

// ---- the built-in default ---------------------------------------------------

/* every lab has a part: 100 points over its correctness and speed cases,
 * none on bench or demo cases, a time limit, a sound band, and a ceiling
 * rule only where the lab measures a ceiling */
START_TEST(test_default_covers_every_lab)
{
    const struct cl_policy *p = cl_policy_default();
    ck_assert_str_eq(p->name, "default");
    ck_assert_str_eq(p->source, "built in");
    ck_assert_ptr_eq(cl_policy_default(), p); /* parsed once */
    int labs = 0;
    for (const struct cl_lab *const *l = cl_labs; *l; l++, labs++) {
        const struct cl_lab *lab = *l;
        ck_assert_msg(cl_policy_lab(p, lab->id) != NULL, "lab %s", lab->id);
        ck_assert_msg(cl_policy_lab_max(p, lab) == 100.0, "lab %s: %g points",
                      lab->id, cl_policy_lab_max(p, lab));
        ck_assert_double_gt(cl_policy_timeout(p, lab), 0.0);
        for (int i = 0; i < lab->ncases; i++) {
            const struct cl_case *c = &lab->cases[i];
            double pts = cl_policy_points(p, lab, i);
            int scored = c->kind == CL_CASE_CORRECT || c->kind == CL_CASE_SPEED;
            ck_assert_msg(scored ? pts > 0 : pts == 0, "lab %s case %s: %g",
                          lab->id, c->name, pts);
            struct cl_speed_rule r = cl_policy_speed(p, lab, i);
            ck_assert_msg(r.full_at > r.zero_at && r.zero_at >= 0,
                          "lab %s case %s: band %g..%g", lab->id, c->name,
                          r.zero_at, r.full_at);
            ck_assert_msg(r.vs == CL_VS_BASELINE || r.vs == CL_VS_CEILING,
                          "lab %s case %s: vs %d", lab->id, c->name, r.vs);
            if (c->kind == CL_CASE_SPEED && r.vs == CL_VS_CEILING)
                ck_assert_msg(lab->ceiling != NULL,
                              "lab %s case %s: scored on a ceiling the lab "
                              "does not measure",
                              lab->id, c->name);
        }
    }
    ck_assert_int_eq(labs, 6);
    /* the self-test lab, hidden from the list, has its part too */
    const struct cl_lab *self = cl_lab_find("00", NULL);
    ck_assert_ptr_nonnull(self);
    ck_assert_double_eq(cl_policy_lab_max(p, self), 50.0);
    ck_assert_double_eq(cl_policy_timeout(p, self), 10.0);
}
END_TEST

/* values of grader/parent/policy.json, read back through the accessors */
START_TEST(test_default_values_match_policy_json)
{
    const struct cl_policy *p = cl_policy_default();
    const struct cl_lab *l1 = cl_lab_find("01", NULL);
    const struct cl_lab *l4 = cl_lab_find("04", NULL);
    const struct cl_lab *l5 = cl_lab_find("05", NULL);
    ck_assert_double_eq(cl_policy_timeout(p, l1), 30.0);
    ck_assert_double_eq(cl_policy_points(p, l1, case_index(l1, "n=31")), 6.0);
    ck_assert_double_eq(cl_policy_points(p, l1, case_index(l1, "n=2^28")),
                        40.0);
    struct cl_speed_rule r = cl_policy_speed(p, l1, case_index(l1, "n=2^28"));
    ck_assert_int_eq(r.vs, CL_VS_CEILING);
    ck_assert_double_eq(r.zero_at, 0.6);
    ck_assert_double_eq(r.full_at, 0.9);
    ck_assert_double_eq(cl_policy_bonus(p, l1), 0.0);
    /* Lab 4: the lab's rule is the ceiling's, 1000-small has its own */
    r = cl_policy_speed(p, l4, case_index(l4, "gpt2-small"));
    ck_assert_int_eq(r.vs, CL_VS_CEILING);
    ck_assert_double_eq(r.full_at, 0.8);
    r = cl_policy_speed(p, l4, case_index(l4, "1000-small"));
    ck_assert_int_eq(r.vs, CL_VS_BASELINE);
    ck_assert_double_eq(r.zero_at, 0.0);
    ck_assert_double_eq(r.full_at, 5.0);
    ck_assert_double_eq(cl_policy_points(p, l4, case_index(l4, "1000-small")),
                        20.0);
    /* Lab 5: a bonus at 1.5x; t32-b256 alone at 0.9x cuDNN */
    ck_assert_double_eq(cl_policy_bonus(p, l5), 1.5);
    ck_assert_double_eq(cl_policy_timeout(p, l5), 120.0);
    ck_assert_double_eq(
        cl_policy_speed(p, l5, case_index(l5, "t32-b1")).full_at, 1.0);
    ck_assert_double_eq(
        cl_policy_speed(p, l5, case_index(l5, "t32-b256")).full_at, 0.9);
    ck_assert_double_eq(
        cl_policy_speed(p, l5, case_index(l5, "t32-b8")).full_at, 1.0);
    ck_assert_double_eq(cl_policy_bonus(p, cl_lab_find("06", NULL)), 2.0);
}
END_TEST

// ---- a course's policy over the default -------------------------------------

/* one lab's timeout, band and two cases' points change; everything else,
 * that lab's other cases and every other lab, stays the default's */
START_TEST(test_overlay_changes_only_what_it_names)
{
    const struct cl_lab *l1 = cl_lab_find("01", NULL);
    const struct cl_lab *l2 = cl_lab_find("02", NULL);
    int big = case_index(l1, "n=2^28"), n31 = case_index(l1, "n=31");
    ck_assert_msg(
        over_default("{\"name\": \"CS 4xx, fall\", \"labs\": {\"01\": "
                     "{\"timeout_s\": 45, \"bonus_at\": 1.25, "
                     "\"speed\": {\"zero_at\": 0.5, \"full_at\": "
                     "0.8}, \"cases\": {\"n=31\": 10, \"n=2^28\": "
                     "{\"points\": 30}}}}}") == 0,
        "%s", err);
    ck_assert_str_eq(pol.name, "CS 4xx, fall");
    ck_assert_double_eq(cl_policy_timeout(&pol, l1), 45.0);
    ck_assert_double_eq(cl_policy_bonus(&pol, l1), 1.25);
    ck_assert_double_eq(cl_policy_points(&pol, l1, n31), 10.0);
    ck_assert_double_eq(cl_policy_points(&pol, l1, big), 30.0);
    ck_assert_double_eq(cl_policy_points(&pol, l1, case_index(l1, "n=1")), 6.0);
    ck_assert_double_eq(cl_policy_lab_max(&pol, l1), 100.0 + 4.0 - 10.0);
    struct cl_speed_rule r = cl_policy_speed(&pol, l1, big);
    ck_assert_int_eq(r.vs, CL_VS_CEILING); /* not named: kept */
    ck_assert_double_eq(r.zero_at, 0.5);
    ck_assert_double_eq(r.full_at, 0.8);
    /* lab 2 untouched, and the default itself unchanged */
    ck_assert_double_eq(cl_policy_timeout(&pol, l2), 30.0);
    ck_assert_double_eq(cl_policy_lab_max(&pol, l2), 100.0);
    ck_assert_int_eq(pol.nlabs, cl_policy_default()->nlabs);
    ck_assert_double_eq(cl_policy_timeout(cl_policy_default(), l1), 30.0);
    ck_assert_double_eq(cl_policy_points(cl_policy_default(), l1, big), 40.0);
}
END_TEST

/* a case's own rule starts from the lab's and changes what it names; a
 * case that had one in the default keeps it when the lab's changes */
START_TEST(test_overlay_case_rule_starts_from_labs_rule)
{
    const struct cl_lab *l1 = cl_lab_find("01", NULL);
    const struct cl_lab *l4 = cl_lab_find("04", NULL);
    int big = case_index(l1, "n=2^28");
    ck_assert_msg(over_default("{\"labs\": {\"01\": {\"cases\": {\"n=2^28\": "
                               "{\"speed\": {\"vs\": \"baseline\", "
                               "\"full_at\": 1.2}}}}}}") == 0,
                  "%s", err);
    struct cl_speed_rule r = cl_policy_speed(&pol, l1, big);
    ck_assert_int_eq(r.vs, CL_VS_BASELINE);
    ck_assert_double_eq(r.zero_at, 0.6); /* the lab's */
    ck_assert_double_eq(r.full_at, 1.2);
    ck_assert_double_eq(cl_policy_points(&pol, l1, big), 40.0);
    /* the lab's rule is untouched by the case's */
    r = cl_policy_speed(&pol, l1, case_index(l1, "n=1"));
    ck_assert_int_eq(r.vs, CL_VS_CEILING);
    ck_assert_double_eq(r.full_at, 0.9);
    /* Lab 4's band moves; 1000-small keeps its own */
    ck_assert_msg(over_default("{\"labs\": {\"04\": {\"speed\": {\"full_at\": "
                               "0.7}}}}") == 0,
                  "%s", err);
    r = cl_policy_speed(&pol, l4, case_index(l4, "gpt2-small"));
    ck_assert_double_eq(r.full_at, 0.7);
    r = cl_policy_speed(&pol, l4, case_index(l4, "1000-small"));
    ck_assert_double_eq(r.full_at, 5.0);
}
END_TEST

/* the file's keys may come in any order: a case's rule starts from the
 * lab's rule as the file sets it, whether "speed" or "cases" comes first */
START_TEST(test_overlay_key_order_does_not_matter)
{
    const struct cl_lab *l1 = cl_lab_find("01", NULL);
    int big = case_index(l1, "n=2^28");
    static const char *const orders[] = {
        "{\"labs\": {\"01\": {\"speed\": {\"zero_at\": 0.7, \"full_at\": "
        "0.95}, \"cases\": {\"n=2^28\": {\"speed\": {\"full_at\": 2}}}}}}",
        "{\"labs\": {\"01\": {\"cases\": {\"n=2^28\": {\"speed\": "
        "{\"full_at\": 2}}}, \"speed\": {\"zero_at\": 0.7, \"full_at\": "
        "0.95}}}}"};
    for (int k = 0; k < 2; k++) {
        ck_assert_msg(over_default(orders[k]) == 0, "%s", err);
        struct cl_speed_rule r = cl_policy_speed(&pol, l1, big);
        ck_assert_msg(r.zero_at == 0.7, "order %d: zero_at %g", k, r.zero_at);
        ck_assert_int_eq(r.vs, CL_VS_CEILING);
        ck_assert_double_eq(r.full_at, 2.0);
        r = cl_policy_speed(&pol, l1, case_index(l1, "n=1"));
        ck_assert_double_eq(r.zero_at, 0.7);
        ck_assert_double_eq(r.full_at, 0.95);
    }
}
END_TEST

/* a policy of its own (zeroed, not over the default) and labs given by the
 * caller: a lab it does not name gets 0 points, 60 s, the plain band */
START_TEST(test_own_policy_knows_only_callers_labs)
{
    static const struct cl_case cs[] = {
        {"right", CL_CASE_CORRECT, NULL, 1},
        {"fast", CL_CASE_SPEED, NULL, 0},
        {"sweep", CL_CASE_BENCH, NULL, 0},
    };
    static const struct cl_lab mine = {
        .id = "93", .slug = "mine", .cases = cs, .ncases = 3};
    static const struct cl_lab other = {
        .id = "94", .slug = "other", .cases = cs, .ncases = 3};
    const struct cl_lab *const labs[] = {&mine, NULL};
    memset(&pol, 0, sizeof pol);
    ck_assert_msg(cl_policy_parse(&pol,
                                  "{\"labs\": {\"93\": {\"cases\": "
                                  "{\"right\": 30, \"fast\": 70}}}}",
                                  labs, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(pol.nlabs, 1);
    ck_assert_double_eq(cl_policy_points(&pol, &mine, 0), 30.0);
    ck_assert_double_eq(cl_policy_points(&pol, &mine, 1), 70.0);
    ck_assert_double_eq(cl_policy_points(&pol, &mine, 2), 0.0);
    ck_assert_double_eq(cl_policy_lab_max(&pol, &mine), 100.0);
    /* a lab's new part: 60 s, speedup over the baseline, full at 1 */
    ck_assert_double_eq(cl_policy_timeout(&pol, &mine), 60.0);
    struct cl_speed_rule r = cl_policy_speed(&pol, &mine, 1);
    ck_assert_int_eq(r.vs, CL_VS_BASELINE);
    ck_assert_double_eq(r.zero_at, 0.0);
    ck_assert_double_eq(r.full_at, 1.0);
    /* a lab the policy does not name */
    ck_assert_ptr_null(cl_policy_lab(&pol, "94"));
    ck_assert_double_eq(cl_policy_points(&pol, &other, 0), 0.0);
    ck_assert_double_eq(cl_policy_timeout(&pol, &other), 60.0);
    ck_assert_double_eq(cl_policy_bonus(&pol, &other), 0.0);
    ck_assert_double_eq(cl_policy_speed(&pol, &other, 1).full_at, 1.0);
    /* the grader's labs are not in this list */
    ck_assert_int_eq(cl_policy_parse(&pol, "{\"labs\": {\"01\": {}}}", labs,
                                     err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "labs.01: no such lab (use ids: \"01\")");
    /* the bench case cannot carry points */
    ck_assert_int_eq(cl_policy_parse(&pol,
                                     "{\"labs\": {\"93\": {\"cases\": "
                                     "{\"sweep\": 5}}}}",
                                     labs, err, sizeof err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err, "labs.93.cases.sweep"));
}
END_TEST

// ---- mistakes -------------------------------------------------------------

/* not JSON, or JSON of the wrong shape */
START_TEST(test_refuses_bad_json)
{
    refused("{\"labs\": {\"01\": ", "not valid JSON");
    refused("", "not valid JSON");
    refused("[1, 2]", "not valid JSON");
    refused("{\"name\": 5}", "name: must be a string");
    refused("{\"labs\": [\"01\"]}", "labs: must be an object");
    refused("{\"labs\": {\"01\": 30}}", "labs.01: must be an object");
    refused("{\"labs\": {\"01\": {\"cases\": [6]}}}",
            "labs.01.cases: must be an object");
    refused("{\"labs\": {\"01\": {\"speed\": 0.9}}}",
            "labs.01: \"speed\" must be an object");
}
END_TEST

/* unknown labs, cases and keys are named */
START_TEST(test_refuses_unknown_names)
{
    refused("{\"labs\": {\"99\": {}}}", "labs.99: no such lab");
    refused("{\"labs\": {\"1\": {}}}", "labs.1: no such lab"); /* ids only */
    refused("{\"labs\": {\"vector-add\": {}}}", "labs.vector-add: no such lab");
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=99\": 5}}}}",
            "labs.01.cases.n=99: no such correctness or speed case");
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=2^15\": 5}}}}",
            "labs.01.cases.n=2^15: no such correctness or speed case");
    refused("{\"nmae\": \"x\"}", "nmae: unknown key (name, labs)");
    refused("{\"labs\": {\"01\": {\"timeout\": 30}}}",
            "labs.01.timeout: unknown key (timeout_s, bonus_at, speed, "
            "cases)");
    refused("{\"labs\": {\"01\": {\"speed\": {\"full\": 1}}}}",
            "labs.01.speed.full: unknown key (vs, zero_at, full_at)");
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=1\": {\"pts\": 3}}}}}",
            "labs.01.cases.n=1.pts: unknown key (points, speed)");
    /* the hidden self-test lab is known by its exact id */
    ck_assert_msg(over_default("{\"labs\": {\"00\": {\"timeout_s\": 5}}}") == 0,
                  "%s", err);
    ck_assert_double_eq(cl_policy_timeout(&pol, cl_lab_find("00", NULL)), 5.0);
}
END_TEST

/* numbers that make no sense, and values of the wrong type */
START_TEST(test_refuses_bad_numbers)
{
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=1\": -1}}}}",
            "labs.01.cases.n=1: must be a number from 0 up");
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=1\": \"six\"}}}}",
            "labs.01.cases.n=1: must be points, or an object with points "
            "and speed");
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=1\": {\"points\": true}}}}}",
            "labs.01.cases.n=1.points: must be a number from 0 up");
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=1\": 1e7}}}}",
            "labs.01.cases.n=1: must be a number");
    refused("{\"labs\": {\"01\": {\"timeout_s\": \"30\"}}}",
            "labs.01.timeout_s: must be a number from 0 up");
    refused("{\"labs\": {\"01\": {\"timeout_s\": 0}}}",
            "labs.01.timeout_s: must be above 0");
    refused("{\"labs\": {\"01\": {\"bonus_at\": -2}}}",
            "labs.01.bonus_at: must be a number from 0 up");
    refused("{\"labs\": {\"01\": {\"speed\": {\"zero_at\": 0.9, "
            "\"full_at\": 0.9}}}}",
            "labs.01: speed.full_at must be above zero_at");
    refused("{\"labs\": {\"01\": {\"speed\": {\"zero_at\": 1, "
            "\"full_at\": 0.5}}}}",
            "labs.01: speed.full_at must be above zero_at");
    /* full_at alone, below the default's zero_at (0.6) */
    refused("{\"labs\": {\"01\": {\"speed\": {\"full_at\": 0.5}}}}",
            "labs.01: speed.full_at must be above zero_at");
    refused("{\"labs\": {\"01\": {\"speed\": {\"zero_at\": -0.1}}}}",
            "labs.01.speed.zero_at: must be a number from 0 up");
    refused("{\"labs\": {\"01\": {\"speed\": {\"vs\": \"cuDNN\"}}}}",
            "labs.01.speed.vs: must be \"baseline\" or \"ceiling\"");
    refused("{\"labs\": {\"01\": {\"speed\": {\"vs\": 1}}}}",
            "labs.01.speed.vs: must be \"baseline\" or \"ceiling\"");
    refused("{\"labs\": {\"01\": {\"cases\": {\"n=2^28\": {\"speed\": "
            "{\"zero_at\": 2, \"full_at\": 1}}}}}}",
            "labs.01.cases.n=2^28: speed.full_at must be above zero_at");
}
END_TEST

// ---- files ------------------------------------------------------------------

/* a file is laid over the default and named; without a "name", its path
 * is the name; no path at all is the default itself */
START_TEST(test_loaded_file_laid_over_default_and_named)
{
    char path[64];
    const struct cl_lab *l3 = cl_lab_find("03", NULL);
    temp_file(path, "{\"labs\": {\"03\": {\"timeout_s\": 90}}}");
    ck_assert_msg(cl_policy_load(&pol, path, NULL, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_str_eq(pol.name, path);
    char want[128];
    snprintf(want, sizeof want, "%s over the built-in default", path);
    ck_assert_str_eq(pol.source, want);
    ck_assert_double_eq(cl_policy_timeout(&pol, l3), 90.0);
    ck_assert_double_eq(cl_policy_lab_max(&pol, l3), 100.0);
    unlink(path);
    temp_file(path, "{\"name\": \"fall\", \"labs\": {}}");
    ck_assert_msg(cl_policy_load(&pol, path, NULL, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_str_eq(pol.name, "fall");
    ck_assert_double_eq(cl_policy_timeout(&pol, l3), 60.0);
    unlink(path);
    ck_assert_int_eq(cl_policy_load(&pol, NULL, NULL, err, sizeof err), 0);
    ck_assert_str_eq(pol.name, "default");
    ck_assert_str_eq(pol.source, "built in");
}
END_TEST

/* a missing file names its path; a bad one names its path and the key */
START_TEST(test_load_errors_name_path_and_key)
{
    ck_assert_int_eq(
        cl_policy_load(&pol, "/nonexistent/course.json", NULL, err, sizeof err),
        -1);
    ck_assert_str_eq(err, "cannot read the policy /nonexistent/course.json: "
                          "No such file or directory");
    char path[64], want[256];
    temp_file(path, "{\"labs\": {\"02\": {\"cases\": {\"A:n=7\": 1}}}}");
    ck_assert_int_eq(cl_policy_load(&pol, path, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "policy %s: labs.02.cases.A:n=7: no such correctness or speed "
             "case in the lab",
             path);
    ck_assert_str_eq(err, want);
    unlink(path);
    /* a test's own lab is accepted only when passed as extra */
    static const struct cl_case cs[] = {{"only", CL_CASE_CORRECT, NULL, 1}};
    static const struct cl_lab mine = {
        .id = "95", .slug = "mine", .cases = cs, .ncases = 1};
    const struct cl_lab *const extra[] = {&mine, NULL};
    temp_file(path, "{\"labs\": {\"95\": {\"cases\": {\"only\": 7}}}}");
    ck_assert_int_eq(cl_policy_load(&pol, path, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "labs.95: no such lab"));
    ck_assert_msg(cl_policy_load(&pol, path, extra, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_double_eq(cl_policy_points(&pol, &mine, 0), 7.0);
    ck_assert_double_eq(cl_policy_lab_max(&pol, cl_lab_find("01", NULL)),
                        100.0);
    unlink(path);
}
END_TEST

/* the grader: an unreadable or bad policy is a usage error (2), said in
 * one line naming the file, before the submission is looked at; a good
 * one lets --check go on */
START_TEST(test_grader_refuses_bad_policy_uses_good_one)
{
    char out[64], path[64];
    temp_file(out, "");
    ck_assert_int_eq(sh("%s 01 --policy /nonexistent --check --lib %s >%s "
                        "2>&1",
                        GRADE, SOLUTION_01, out),
                     CL_EXIT_USAGE);
    char *text = cl_read_file(out, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "cannot read the policy /nonexistent") != NULL,
                  "%s", text);
    free(text);
    /* even before a missing submission */
    ck_assert_int_eq(sh("%s 01 --policy /nonexistent --check --lib "
                        "/nonexistent.so >/dev/null 2>&1",
                        GRADE),
                     CL_EXIT_USAGE);
    temp_file(path, "{\"labs\": {\"01\": {\"cases\": {\"n=1\": -6}}}}");
    ck_assert_int_eq(sh("%s 01 --policy %s --check --lib %s >%s 2>&1", GRADE,
                        path, SOLUTION_01, out),
                     CL_EXIT_USAGE);
    text = cl_read_file(out, NULL);
    ck_assert_msg(strstr(text, "labs.01.cases.n=1: must be a number") != NULL,
                  "%s", text);
    free(text);
    unlink(path);
    temp_file(path, "{\"name\": \"ok\", \"labs\": {\"01\": {\"cases\": "
                    "{\"n=1\": 16, \"n=2^28\": {\"points\": 30, \"speed\": "
                    "{\"vs\": \"baseline\", \"full_at\": 1.25}}}}}}");
    ck_assert_int_eq(sh("%s 01 --policy %s --check --lib %s >/dev/null 2>&1",
                        GRADE, path, SOLUTION_01),
                     CL_EXIT_OK);
    /* --list shows the policy's points, and a speed case's rule */
    ck_assert_int_eq(sh("%s 01 --policy %s --list >%s 2>&1", GRADE, path, out),
                     CL_EXIT_OK);
    char line[128];
    snprintf(line, sizeof line, "%-26s %-8s %5.1f points", "n=1", "correct",
             16.0);
    text = cl_read_file(out, NULL);
    ck_assert_msg(strstr(text, line) != NULL, "%s", text);
    snprintf(line, sizeof line,
             "%-26s %-8s %5.1f points  full credit at 1.25x cudnnOpTensor\n",
             "n=2^28", "speed", 30.0);
    ck_assert_msg(strstr(text, line) != NULL, "%s", text);
    free(text);
    unlink(path);
    unlink(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("policy");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_default_covers_every_lab);
    tcase_add_test(core, test_default_values_match_policy_json);
    tcase_add_test(core, test_overlay_changes_only_what_it_names);
    tcase_add_test(core, test_overlay_case_rule_starts_from_labs_rule);
    tcase_add_test(core, test_own_policy_knows_only_callers_labs);
    tcase_add_test(core, test_loaded_file_laid_over_default_and_named);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 60);
    tcase_add_test(limits, test_overlay_key_order_does_not_matter);
    tcase_add_test(limits, test_refuses_bad_json);
    tcase_add_test(limits, test_refuses_unknown_names);
    tcase_add_test(limits, test_refuses_bad_numbers);
    tcase_add_test(limits, test_load_errors_name_path_and_key);
    tcase_add_test(limits, test_grader_refuses_bad_policy_uses_good_one);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
