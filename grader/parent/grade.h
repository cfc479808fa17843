/**
 * @file grade.h
 * @brief The grade of one run: exit codes, options, and the outcome the
 *        parent scores, prints and writes (results.json, the gradebook).
 *
 * The parent process (this folder) uses no CUDA: it reads the command
 * line and the policy, checks the submission's file, forks the judge
 * (grader/judge/), collects each case's struct cl_result over a pipe, and
 * scores them. Points, targets and bands come from the policy (policy.h).
 */
#ifndef CL_PARENT_GRADE_H
#define CL_PARENT_GRADE_H

#include "judge/lab.h"
#include "judge/run_opts.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Exit codes of the grader (docs/grading.md lists them for students). */
enum cl_exit {
    CL_EXIT_OK = 0,        /**< graded; every correctness case passed */
    CL_EXIT_FAILED = 1,    /**< graded; some case failed (wrong, crash, ...) */
    CL_EXIT_USAGE = 2,     /**< bad command line or policy: unknown lab,
                                option, value */
    CL_EXIT_NO_GPU = 3,    /**< no usable CUDA GPU: nothing was graded */
    CL_EXIT_FORBIDDEN = 4, /**< the submission uses what the lab forbids (a
                                library, a system function, a system call
                                instruction): refused before running */
    CL_EXIT_LOAD = 5,      /**< the submission cannot be loaded, lacks an
                                entry point, or crashed while loading */
    CL_EXIT_INTERNAL = 6,  /**< the grader itself failed */
    CL_EXIT_DATA = 7,      /**< a data file of the lab (a trained model) is
                                missing or corrupt: nothing was graded */
    CL_EXIT_INTERRUPTED = 130 /**< interrupted (128 + the signal: 130 for
                                   SIGINT, 143 for SIGTERM, 129 for
                                   SIGHUP): the cases done are reported,
                                   the grade is not a score */
};

/** What a speed case's credit is measured against. */
enum cl_speed_vs {
    CL_VS_DEFAULT = 0,  /**< the lab's choice (in a case: inherit it) */
    CL_VS_BASELINE = 1, /**< speedup over the library baseline */
    CL_VS_CEILING = 2   /**< fraction of the ceiling (copy) rate */
};

/** How speed credit grows with the ratio: nothing at or below zero_at,
 *  all of it at full_at or above, linear between (policy.h). */
struct cl_speed_rule {
    enum cl_speed_vs vs; /**< the ratio: speedup or fraction of ceiling */
    double zero_at;      /**< no credit at or below this ratio */
    double full_at;      /**< full credit at or above */
};

struct cl_policy;

/** The most cases one run may name (--case, given again and again). */
#define CL_MAX_ONLY 32 /* cli.c's message says 32 */

/** Options of one grading run. */
struct cl_grade_opts {
    const char *lib_path;   /**< the submission's shared library */
    struct cl_run_opts run; /**< the run's: seed, tools, runner, cache */
    /** run just these cases, in the lab's order (none named: all) */
    const char *only[CL_MAX_ONLY];
    int n_only;                     /**< how many cases only[] names */
    int quick;                      /**< only cases marked quick */
    double timeout_s;               /**< per-case limit; 0: the lab's */
    int progress;                   /**< print a live progress line on stderr */
    int bench;                      /**< run the speed and bench cases only */
    int check_only;                 /**< static checks only, no GPU */
    const struct cl_policy *policy; /**< points and targets; NULL: default */
};

#define CL_MAX_CASES 64 /**< cases in one lab, at most */

/** The outcome of grading one submission for one lab. */
struct cl_grade {
    const struct cl_lab *lab;         /**< the lab graded */
    uint64_t seed;                    /**< the input seed */
    const char *lib_path;             /**< the submission */
    const char *policy_name;          /**< the policy used */
    const struct cl_policy *policy;   /**< its rules (NULL: the default) */
    int n;                            /**< cases selected */
    const char *subset;               /**< "quick", or the cases' names
                                           ("a, b") when only those ran
                                           (not a grade of the whole lab);
                                           NULL: all */
    char subset_names[512];           /**< where subset points for names */
    struct cl_result r[CL_MAX_CASES]; /**< their results, in run order */
    int have_gpu;                     /**< gpu is valid */
    struct cl_gpu_info gpu;           /**< the GPU, from the judge */
    int sandbox;                      /**< the runners' sandbox steps */
    int runner_uid;                   /**< the user they ran as */
    int all_correct;                  /**< every case's output was right */
    double score;                     /**< points earned */
    double max_score;                 /**< points available */
    double correct_score;             /**< of which correctness */
    double correct_max;               /**< correctness available */
    double speed_score;               /**< of which speed */
    double speed_max;                 /**< speed available */
    double elapsed_s;                 /**< wall time of the run */
    enum cl_exit exit_code;           /**< what the grader exits with */
    int interrupted;                  /**< the signal that stopped it, or 0:
                                           the cases after it are not run */
    char summary[1024];               /**< why nothing was graded, if so */
};

#ifdef __cplusplus
}
#endif

#endif /* CL_PARENT_GRADE_H */
