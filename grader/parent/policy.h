/**
 * @file policy.h
 * @brief The grading policy: points, speed targets and bands, bonus lines
 *        and time limits, per lab, from a JSON file.
 *
 * The default policy is grader/parent/policy.json, built into the grader. A
 * course passes its own with `--policy FILE` (or `make grade POLICY=FILE`): the
 * file is laid over the default, so it names only what it changes. Every
 * lab id and case name in it must exist, and every number must make
 * sense; a bad policy is refused with one line and exit 2 before anything
 * runs. The report and results.json name the policy used.
 *
 *     {
 *       "name": "CS 4xx, fall",
 *       "labs": {
 *         "01": {
 *           "timeout_s": 30,
 *           "speed": {"vs": "ceiling", "zero_at": 0.6, "full_at": 0.9},
 *           "cases": {"n=31": 6, "n=2^28": {"points": 40}}
 *         },
 *         "05": {"bonus_at": 1.5,
 *                "cases": {"t32-b8": {"points": 8,
 *                          "speed": {"vs": "baseline", "full_at": 1.2}}}}
 *       }
 *     }
 *
 * A speed rule gives no credit at or below zero_at (default 0), all of it
 * at full_at or above, and grows linearly between; vs is "baseline" (the
 * speedup over the library) or "ceiling" (the fraction of the copy rate).
 */
#ifndef CL_POLICY_H
#define CL_POLICY_H

#include "parent/grade.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_POLICY_LABS 16 /**< labs a policy may name */

/** One case's points and, optionally, its own speed rule. */
struct cl_case_policy {
    char name[64];              /**< the case */
    double points;              /**< points it is worth */
    int has_speed;              /**< speed overrides the lab's rule */
    struct cl_speed_rule speed; /**< its rule */
};

/** One lab's part of the policy. */
struct cl_lab_policy {
    char id[8];                 /**< "01" */
    double timeout_s;           /**< limit per case */
    double bonus_at;            /**< a speedup that earns a line of praise */
    struct cl_speed_rule speed; /**< the lab's speed rule */
    int ncases;                 /**< cases with points */
    struct cl_case_policy cases[CL_MAX_CASES]; /**< their points */
};

/** A whole policy. */
struct cl_policy {
    char name[128];   /**< its "name", or the file's path */
    char source[512]; /**< "built in" or the file laid over it */
    int nlabs;        /**< labs described */
    struct cl_lab_policy labs[CL_POLICY_LABS]; /**< in file order */
};

/**
 * Parse policy text @p json over @p p (which holds the default, or is
 * zeroed for a policy of its own), checking it against @p labs
 * (NULL-terminated; NULL: the grader's labs). Returns 0, or -1 with a
 * one-line reason in @p err.
 */
int cl_policy_parse(struct cl_policy *p, const char *json,
                    const struct cl_lab *const *labs, char *err, size_t len);

/**
 * The policy for a run: the built-in default, with the file at @p path
 * laid over it when @p path is not NULL. Returns 0, or -1 with a one-line
 * reason in @p err (an unreadable file, bad JSON, an unknown lab or case,
 * a bad number). @p extra labs are accepted too (tests).
 */
int cl_policy_load(struct cl_policy *p, const char *path,
                   const struct cl_lab *const *extra, char *err, size_t len);

/** The built-in default (parsed once). */
const struct cl_policy *cl_policy_default(void);

/** Lab @p id's part of @p p, or NULL. */
const struct cl_lab_policy *cl_policy_lab(const struct cl_policy *p,
                                          const char *id);

/** Points of case @p index of @p lab (0 when the policy gives none). */
double cl_policy_points(const struct cl_policy *p, const struct cl_lab *lab,
                        int index);

/** The speed rule of case @p index of @p lab. */
struct cl_speed_rule cl_policy_speed(const struct cl_policy *p,
                                     const struct cl_lab *lab, int index);

/** The lab's time limit per case (60 s when the policy gives none). */
double cl_policy_timeout(const struct cl_policy *p, const struct cl_lab *lab);

/** The lab's bonus speedup (0: none). */
double cl_policy_bonus(const struct cl_policy *p, const struct cl_lab *lab);

/** Points available in the lab's scored cases (correctness and speed). */
double cl_policy_lab_max(const struct cl_policy *p, const struct cl_lab *lab);

/** The built-in default policy's text (generated from
 * grader/parent/policy.json). */
extern const char cl_policy_default_json[];

#ifdef __cplusplus
}
#endif

#endif /* CL_POLICY_H */
