/**
 * @file grader.h
 * @brief The grading engine's types: exit codes, case statuses, lab specs,
 *        results and the grade of one run.
 *
 * A lab is data (struct cl_lab: its cases, points, baseline and thresholds)
 * plus three small functions (setup, run, teardown) that run inside the
 * worker process. The engine (engine.c) owns everything else: the worker,
 * timeouts, crash handling, scoring, the report and results.json.
 */
#ifndef CL_GRADER_H
#define CL_GRADER_H

#include "gpuinfo.h"

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
    CL_EXIT_USAGE = 2,     /**< bad command line: unknown lab, option, value */
    CL_EXIT_NO_GPU = 3,    /**< no usable CUDA GPU: nothing was graded */
    CL_EXIT_FORBIDDEN = 4, /**< the submission references a forbidden library */
    CL_EXIT_LOAD = 5,      /**< the submission cannot be loaded or lacks an
                                entry point */
    CL_EXIT_INTERNAL = 6,  /**< the grader itself failed */
    CL_EXIT_DATA = 7       /**< a data file of the lab (a trained model) is
                                missing or corrupt: nothing was graded */
};

/** How one case ended. */
enum cl_status {
    CL_ST_PASS = 0, /**< correct (and timed, for a speed case) */
    CL_ST_WRONG,    /**< output outside the tolerance or unwritten */
    CL_ST_OOB,      /**< wrote outside its buffers (guard zones) */
    CL_ST_CUDA,     /**< a CUDA error from the student's code */
    CL_ST_CRASH,    /**< the worker died (signal or exit) */
    CL_ST_TIMEOUT,  /**< the case ran past its time limit */
    CL_ST_TOO_FAST, /**< faster than physics allows: measurement rejected */
    CL_ST_NOT_RUN,  /**< skipped (after repeated hangs, or no GPU) */
    CL_ST_INTERNAL, /**< the grader failed on this case */
    CL_ST_COUNT
};

/** Short lowercase name of a status, as in the report and results.json. */
const char *cl_status_name(enum cl_status s);

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
    CL_VS_CEILING = 2   /**< fraction of the ceiling (e.g. memcpy) rate */
};

/** What the throughput column counts. */
enum cl_metric { CL_METRIC_GBPS = 0, CL_METRIC_TFLOPS = 1 };

/** One named case of a lab. */
struct cl_case {
    const char *name;       /**< short, unique in the lab: "n=31" */
    enum cl_case_kind kind; /**< correctness or speed */
    double points;          /**< correctness points, or speed points */
    long p[6];              /**< lab-specific parameters (sizes, offsets) */
    int quick;              /**< part of --quick */
    double target;          /**< full speed credit here; 0: the lab's */
    enum cl_speed_vs vs;    /**< what target measures; 0: the lab's */
};

/** What the worker knows while running a case. */
struct cl_ctx {
    uint64_t seed;                 /**< base seed of this run */
    int timing;                    /**< time this case (speed cases only) */
    const struct cl_gpu_info *gpu; /**< NULL for labs that need no GPU */
    cudaStream_t stream;           /**< the stream handed to the student */
    struct cl_timer *timer;        /**< shared timer, NULL without a GPU */
    int profile; /**< bracket the student's first call for a profiler */
};

/** What a case reports back; plain data, it crosses a pipe. */
struct cl_result {
    int index;             /**< case index in the lab */
    enum cl_status status; /**< how the case ended */
    int timed;             /**< t_ms / base_ms / ceil_ms are valid */
    int restart;           /**< the worker must be replaced (sticky error) */
    double t_ms;           /**< student's median per call */
    double t_spread;       /**< its relative spread (IQR / median) */
    double base_ms;        /**< baseline library's median */
    double ceil_ms;        /**< ceiling operation's median (0 if none) */
    double work;      /**< bytes or FLOPs per call (see the lab's metric) */
    double ceil_work; /**< bytes or FLOPs of the ceiling operation */
    double score;     /**< points earned (set by the engine) */
    double max_score; /**< points available (set by the engine) */
    char msg[1024];   /**< what happened, for the student */
};

/** A lab's specification. */
struct cl_lab {
    const char *id;               /**< "01" */
    const char *slug;             /**< "vector-add" */
    const char *title;            /**< "Vector add" */
    const char *source;           /**< the file the student edits */
    const char *todo;             /**< the marker: "TODO(lab1)" */
    const char *const *symbols;   /**< entry points, NULL-terminated */
    const char *const *forbidden; /**< symbol prefixes, NULL-terminated */
    const char *baseline;         /**< "cudnnOpTensor" */
    const char *ceiling;          /**< "memcpy", or NULL */
    enum cl_metric metric;        /**< GB/s or TFLOP/s */
    double speed_target;          /**< full speed credit at this ratio */
    enum cl_speed_vs speed_vs;    /**< the ratio: speedup or % of ceiling */
    double bonus_at; /**< a speedup worth a line of praise in the report
                          (no points); 0: none */
    int needs_gpu;   /**< 0 only for the engine's own tests */
    /** Check the lab's data files (a trained model) before anything runs;
     *  0, or -1 with the reason in @p err (exit CL_EXIT_DATA). NULL: the
     *  lab has none. Runs in the grader's own process: no CUDA here. */
    int (*check_data)(char *err, size_t len);
    double timeout_s;            /**< default limit per case */
    const char *profile_case;    /**< the case make profile runs */
    const struct cl_case *cases; /**< the cases, in spec order */
    int ncases;                  /**< how many */
    /** Resolve entry points in @p lib (a dlopen handle) and create handles;
     *  on failure return NULL and say why in @p err. */
    void *(*setup)(void *lib, char *err, size_t len);
    /** Run case @p c and fill @p r (index, score and limits are set by the
     *  engine). */
    void (*run)(void *state, const struct cl_ctx *ctx, const struct cl_case *c,
                struct cl_result *r);
    /** Free what setup made. */
    void (*teardown)(void *state);
};

/** Every lab the grader knows, in order; NULL-terminated. */
extern const struct cl_lab *const cl_labs[];

/**
 * Find a lab by "01", "1", "vector-add" or "01-vector-add"; NULL if none.
 * @p extra is searched first (tests pass their own labs), may be NULL.
 */
const struct cl_lab *cl_lab_find(const char *name,
                                 const struct cl_lab *const *extra);

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
};

#define CL_MAX_CASES 64 /**< cases in one lab, at most */

/** The outcome of grading one submission for one lab. */
struct cl_grade {
    const struct cl_lab *lab;         /**< the lab graded */
    uint64_t seed;                    /**< the input seed */
    const char *lib_path;             /**< the submission */
    int n;                            /**< cases selected */
    struct cl_result r[CL_MAX_CASES]; /**< their results, in run order */
    int have_gpu;                     /**< gpu is valid */
    struct cl_gpu_info gpu;           /**< the GPU, from the worker */
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
