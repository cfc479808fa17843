/**
 * @file grader.h
 * @brief The grading engine's types: exit codes, case statuses, lab specs,
 *        results and the grade of one run.
 *
 * A lab is data (struct cl_lab: its cases, each with a small struct of
 * named parameters, its baseline and metric) plus small functions that
 * plan a case's buffers, fill its inputs, check its outputs on the CPU and
 * run its library baseline (harness.h). The harness owns the protocol of
 * a case; the engine owns the processes: the grader's own (no CUDA), the
 * judge (CUDA, everything that decides) and, for each case, a sandboxed
 * runner that alone executes the submission (docs/grading.md). Points,
 * targets and bands come from the policy (policy.h), not from here.
 */
#ifndef CL_GRADER_H
#define CL_GRADER_H

#include "gpuinfo.h"
#include "proto.h"

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

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
    CL_EXIT_DATA = 7       /**< a data file of the lab (a trained model) is
                                missing or corrupt: nothing was graded */
};

/** How one case ended. */
enum cl_status {
    CL_ST_PASS = 0,    /**< correct (and timed, for a speed case) */
    CL_ST_WRONG,       /**< output outside the tolerance or unwritten */
    CL_ST_OOB,         /**< wrote outside its buffers (guard zones) */
    CL_ST_CUDA,        /**< a CUDA error from the student's code */
    CL_ST_CRASH,       /**< the runner died (signal or exit) */
    CL_ST_TIMEOUT,     /**< the case ran past its time limit */
    CL_ST_TOO_FAST,    /**< faster than physics allows: time rejected */
    CL_ST_NOT_RUN,     /**< skipped (after repeated hangs, or no GPU) */
    CL_ST_INTERNAL,    /**< the grader failed on this case */
    CL_ST_FORBIDDEN,   /**< broke a rule at run time: a forbidden library,
                            system call, or work off the given stream */
    CL_ST_UNCONFIRMED, /**< correct, but its time could not be confirmed:
                            no speed credit */
    CL_ST_COUNT
};

/** Short lowercase name of a status, as in the report and results.json. */
const char *cl_status_name(enum cl_status s);

/** Does @p s count as correct output (speed credit aside)? */
int cl_status_correct(enum cl_status s);

/** Correctness only; correctness then timing for points; (bench) a size
 *  sweep, timed for the record, never scored, run only with --bench; or
 *  (demo) examples printed for the student, run only with --demo. */
enum cl_case_kind {
    CL_CASE_CORRECT = 0,
    CL_CASE_SPEED = 1,
    CL_CASE_BENCH = 2,
    CL_CASE_DEMO = 3
};

/** What a speed case's credit is measured against. */
enum cl_speed_vs {
    CL_VS_DEFAULT = 0,  /**< the lab's choice (in a case: inherit it) */
    CL_VS_BASELINE = 1, /**< speedup over the library baseline */
    CL_VS_CEILING = 2   /**< fraction of the ceiling (copy) rate */
};

/** What the throughput column counts. */
enum cl_metric { CL_METRIC_GBPS = 0, CL_METRIC_TFLOPS = 1 };

/** How speed credit grows with the ratio: nothing at or below zero_at,
 *  all of it at full_at or above, linear between (policy.h). */
struct cl_speed_rule {
    enum cl_speed_vs vs; /**< the ratio: speedup or fraction of ceiling */
    double zero_at;      /**< no credit at or below this ratio */
    double full_at;      /**< full credit at or above */
};

/** One named case of a lab. */
struct cl_case {
    const char *name;       /**< short, unique in the lab: "n=31" */
    enum cl_case_kind kind; /**< correctness, speed, bench or demo */
    const void *arg;        /**< the lab's case struct (labs/glue.h) */
    int quick;              /**< part of --quick */
};

/** What a case reports back; plain data, it crosses a pipe. */
struct cl_result {
    int index;             /**< case index in the lab */
    enum cl_status status; /**< how the case ended */
    int timed;             /**< t_ms / base_ms / ceil_ms are valid */
    int restart;           /**< the judge must be replaced */
    int load_failed;       /**< the submission failed while loading */
    double t_ms;           /**< student's median per call */
    double t_spread;       /**< its relative spread (IQR / median) */
    double base_ms;        /**< the fastest baseline's median */
    double ceil_ms;        /**< the ceiling's median (0 if none) */
    double work;           /**< bytes or FLOPs per call (lab's metric) */
    double ceil_work;      /**< bytes the ceiling copy moves */
    int samples;           /**< timed calls of the student */
    double unexplained_ms; /**< per call: the judge's clock minus the
                                frame and the student's own time */
    double ratio;          /**< the ratio speed credit is scored on */
    double target;         /**< full credit at this ratio */
    double score;          /**< points earned (set by score.c) */
    double max_score;      /**< points available (set by score.c) */
    int sandbox;           /**< CL_SBX_* steps the runner took */
    int runner_uid;        /**< the user it ran as */
    struct cl_trace trace; /**< what the last checked call launched */
    char msg[1024];        /**< what happened, for the student */
};

struct cl_plan;
struct cl_fill;
struct cl_check;
struct cl_vs;
struct cl_baseline;
struct cl_caps;
struct cl_lab_data;

/** A lab's specification: data, and the small functions of harness.h. */
struct cl_lab {
    const char *id;              /**< "01" */
    const char *slug;            /**< "vector-add" */
    const char *title;           /**< "Vector add" */
    const char *source;          /**< the file the student edits */
    const char *todo;            /**< the marker: "TODO(lab1)" */
    const struct cl_caps *caps;  /**< what a submission may use (symbols.h) */
    const char *baseline;        /**< "cudnnOpTensor" */
    const char *ceiling;         /**< "copy", or NULL */
    enum cl_metric metric;       /**< GB/s or TFLOP/s */
    int needs_gpu;               /**< 0: the CPU self-test lab */
    const char *profile_case;    /**< the case make profile runs */
    const struct cl_case *cases; /**< the cases, in spec order */
    int ncases;                  /**< how many */
    size_t arg_size;             /**< sizeof the case struct */
    /** Buffers, work and tolerance of case @p arg (harness.h). */
    int (*plan)(const void *arg, struct cl_plan *p);
    /** Fill the inputs of call @p call; NULL: every input uniform in
     *  [-1, 1) from stream (buffer index + 1). */
    void (*fill)(const struct cl_fill *f, const void *arg, int call);
    /** Check a call's outputs against the CPU reference: 1 when wrong. */
    int (*check)(struct cl_check *ck);
    /** Compare the student's outputs with the baseline's; NULL: every
     *  float output within twice the tolerance, integers exactly. */
    int (*versus)(struct cl_vs *v);
    /** The library baseline(s); NULL: none. */
    const struct cl_baseline *base;
    /** Read and check the lab's data files (Lab 6's trained model) in the
     *  grader's process before anything runs; NULL: none. */
    int (*load_data)(struct cl_lab_data **out, char *err, size_t len);
    /** Fill case-dependent values from the data into @p arg (a copy of
     *  the case's struct); NULL: none. */
    void (*bind_data)(const struct cl_lab_data *d, void *arg);
    /** After the last call of a case: print or judge what only this lab
     *  does (Lab 6's accuracy, its demo); NULL: none. */
    int (*finish)(struct cl_check *ck);
};

/** Every lab the grader knows, in order; NULL-terminated. */
extern const struct cl_lab *const cl_labs[];

/**
 * Find a lab by "01", "1", "vector-add" or "01-vector-add"; NULL if none.
 * @p extra is searched first (tests pass their own labs), may be NULL.
 */
const struct cl_lab *cl_lab_find(const char *name,
                                 const struct cl_lab *const *extra);

struct cl_policy;

/** Options of one grading run. */
struct cl_grade_opts {
    const char *lib_path;  /**< the submission's shared library */
    uint64_t seed;         /**< input seed */
    const char *only_case; /**< run just this case (NULL: all) */
    int quick;             /**< only cases marked quick */
    double timeout_s;      /**< per-case limit; 0: the lab's */
    const char *cache_dir; /**< calibration cache; NULL: default */
    int recalibrate;       /**< measure peaks again */
    int progress;          /**< print a live progress line on stderr */
    int bench;             /**< run the speed and bench cases only */
    int demo;              /**< run the demo cases only */
    int profile;           /**< mark the student's call for a profiler */
    int tool_mode;         /**< under a profiler or sanitizer: sandbox off */
    int no_trace;          /**< no CUPTI trace (measurements only) */
    int check_only;        /**< static checks only, no GPU */
    const struct cl_policy *policy; /**< points and targets; NULL: default */
    const char *runner; /**< the runner executable; NULL: beside us */
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
    char summary[1024];               /**< why nothing was graded, if so */
};

#ifdef __cplusplus
}
#endif

#endif /* CL_GRADER_H */
