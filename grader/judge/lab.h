/**
 * @file lab.h
 * @brief What a lab is to the judge: its cases, what each case reports,
 *        what a submission may use, and the hooks of its spec.
 *
 * A lab is data (struct cl_lab: its cases, each with a small struct of
 * named parameters, its baseline and metric) plus small functions that
 * plan a case's buffers, fill its inputs, check its outputs on the CPU and
 * run its library baseline (harness.h). The judge runs a case and reports
 * a struct cl_result; the parent (grader/parent/) scores and prints it.
 */
#ifndef CL_JUDGE_LAB_H
#define CL_JUDGE_LAB_H

#include "gpuinfo.h"
#include "protocol/proto.h"

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/** What the throughput column counts. */
enum cl_metric { CL_METRIC_GBPS = 0, CL_METRIC_TFLOPS = 1 };

/** One named case of a lab. */
struct cl_case {
    const char *name;       /**< short, unique in the lab: "n=31" */
    enum cl_case_kind kind; /**< correctness, speed, bench or demo */
    const void *arg;        /**< the lab's case struct (protocol/glue.h) */
    int quick;              /**< part of --quick */
};

/** What a case reports back; plain data, it crosses a pipe. */
struct cl_result {
    int index;              /**< case index in the lab */
    enum cl_status status;  /**< how the case ended */
    int timed;              /**< t_ms / base_ms / ceil_ms are valid */
    int restart;            /**< the judge must be replaced */
    int judge_died;         /**< the judge failed or died during the case:
                                 the grader's failure, never the student's */
    int load_failed;        /**< the submission failed while loading */
    double t_ms;            /**< student's median per call */
    double t_spread;        /**< its relative spread (IQR / median) */
    double base_ms;         /**< the fastest baseline's median */
    double ceil_ms;         /**< the ceiling's median (0 if none) */
    double work;            /**< bytes or FLOPs per call (lab's metric) */
    double ceil_work;       /**< bytes the ceiling copy moves */
    int samples;            /**< timed calls of the student */
    double wall_s;          /**< the case's wall time in all, seconds */
    double event_ms;        /**< median of the times the runner reported
                                 (its CUDA events): a hint, never evidence */
    double judge_ms;        /**< median of the judge's clock per call, from
                                 the command to a checked output, less the
                                 empty frame */
    double frame_ms;        /**< the empty frame's median: the judge's
                                 clock around a call that does nothing */
    double noise_ms;        /**< the frame's noise: how far a reported time
                                 may lower the judge's per call */
    double frame_loaded_ms; /**< the empty frame's median again after the
                                timed calls, the submission loaded: a
                                finding when above frame_ms, never used */
    int looks;              /**< gradings of the case: more than 1 after
                                 a second look (cl_second_look_due()) */
    double first_look_ms;   /**< the first look's t_ms, after a second */
    double speedup;         /**< base_ms / t_ms, 0 when either is not
                                 there (set by score.c) */
    double ratio;           /**< the ratio speed credit is scored on */
    int vs_ceiling;         /**< that ratio is the fraction of the copy
                                 ceiling, not the speedup (score.c) */
    double target;          /**< full credit at this ratio */
    double score;           /**< points earned (set by score.c) */
    double max_score;       /**< points available (set by score.c) */
    int sandbox;            /**< CL_SBX_* steps the runner took */
    int runner_uid;         /**< the user it ran as */
    struct cl_trace trace;  /**< what the last checked call launched */
    char msg[1024];         /**< what happened, for the student */
};

/** What a lab's submission may use beyond the common allow-list. */
struct cl_caps {
    const char *const *imports;   /**< more allowed imports ("cublas*") */
    const char *const *libraries; /**< more allowed needed libraries
                                       ("libcublas.so") */
    const char *const *forbidden; /**< library prefixes the lab forbids
                                       ("cublas", "cudnn"): never linked,
                                       loaded, or seen in a kernel name */
    int any_import; /**< the self-test lab: imports are not checked, so
                         that its fixtures reach the sandbox */
};

/** Does a name (a symbol, "cudnnCreate") start with a library prefix
 *  @p caps forbids? */
int cl_caps_forbids(const struct cl_caps *caps, const char *name);

/** Is a library file named @p base (e.g. "libcudnn.so.9") one that @p caps
 *  forbids? */
int cl_caps_library_forbidden(const struct cl_caps *caps, const char *base);

/** The forbidden prefixes of @p caps (NULL-terminated; may be NULL). */
const char *const *cl_caps_forbidden_prefixes(const struct cl_caps *caps);

struct cl_plan;
struct cl_fill;
struct cl_check;
struct cl_vs;
struct cl_baseline;
struct cl_lab_data;

/** A lab's specification: data, and the small functions of harness.h. */
struct cl_lab {
    const char *id;              /**< "01" */
    const char *slug;            /**< "vector-add" */
    const char *title;           /**< "Vector add" */
    const char *source;          /**< the file the student edits */
    const char *todo;            /**< the marker: "TODO(lab1)" */
    const struct cl_caps *caps;  /**< what a submission may use (above) */
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
};

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_LAB_H */
