/**
 * @file harness.h
 * @brief The case protocol, in one place, and what a lab spec gives it.
 *
 * The judge runs every case in the same order (cl_case_run()):
 *
 *  1. plan the buffers (the spec's plan()); allocate each with guard zones;
 *     start a sandboxed runner for the case and map the buffers into it;
 *  2. for each call: fill the inputs from the call's seed (the spec's
 *     fill(), the same function on the device and, for checks, on the
 *     host), poison the outputs, flush the L2, then ask the runner to make
 *     the call and read back its time and trace;
 *  3. check: the runner's end (crash, timeout, CUDA error), every guard
 *     zone, the libraries mapped into the runner, the trace's rules, every
 *     output element against the library baseline run by the judge on the
 *     same inputs (when the lab has one), and, on the check call and on
 *     timed calls picked at random after they ran, the CPU reference;
 *  4. for speed cases: after warm-up calls, time the baselines and the
 *     ceiling in the judge and the student in the runner, one fresh set of
 *     inputs per call, until the medians settle; confirm the student's
 *     time against the judge's own clock; reject times under the physical
 *     floor.
 *
 * A spec states data and small functions: a case struct per lab, plan(),
 * optionally fill(), check() against its CPU reference (refs.h), and its
 * baseline(s). Nothing in a spec times, guards or re-checks.
 */
#ifndef CL_HARNESS_H
#define CL_HARNESS_H

#include "compare.h"
#include "fatal.h"
#include "grader.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a buffer is for. */
enum cl_role {
    CL_IN,    /**< filled before every call; the student reads it */
    CL_OUT,   /**< poisoned before every call; checked after it */
    CL_STATE, /**< filled before the first call, then updated in place by
                   each call (Lab 4's optimizer state); checked after each */
    CL_WORK   /**< the student's scratch (a workspace): neither filled nor
                   checked, but guarded */
};

/** Element type of a buffer. */
enum cl_elem { CL_F32 = 0, CL_I32 = 1 };

/** One buffer of a case. */
struct cl_buf_plan {
    const char *name;  /**< for messages: "c", "weights of layer 0" */
    enum cl_role role; /**< what it is for */
    enum cl_elem elem; /**< floats or ints */
    size_t count;      /**< elements */
    size_t offset;     /**< bytes past a 16-byte-aligned start */
    int ask;           /**< a workspace sized by the student's query */
    int has_tol;       /**< tol below replaces the plan's for this buffer */
    struct cl_tolerance tol; /**< its own tolerance */
};

/** What a spec's plan() describes. */
struct cl_plan {
    struct cl_buf_plan buf[CL_MAX_BUFS]; /**< in the order of labs/glue.h */
    int nbuf;                            /**< how many */
    double work;             /**< bytes or FLOPs per call (lab's metric) */
    double ceil_bytes;       /**< bytes one ceiling copy moves (0: none) */
    struct cl_tolerance tol; /**< against the CPU reference */
    int check_calls;         /**< calls in the check round (Lab 4: 3 steps) */
    int nobase;              /**< this case has no baseline */
    int versus;              /**< run the baseline on every call and compare
                                  every element with it, not only on timed
                                  calls (for cases whose CPU check samples) */
};

/** Append a buffer to @p p; returns its index. */
int cl_plan_buf(struct cl_plan *p, const char *name, enum cl_role role,
                enum cl_elem elem, size_t count, size_t offset);

/** Where a fill lands: the live buffers on the device, or host images. */
struct cl_fill {
    uint64_t seed; /**< the call's seed */
    int call;      /**< the call's number in the case (0: the first) */
    int first;     /**< fill CL_STATE buffers too (the case's first) */
    /** floats [from, from + n) of buffer @p buf: element from + i gets
     *  cl_rand_uniform(seed, stream, index0 + i, lo, hi) */
    void (*uniform)(const struct cl_fill *f, int buf, size_t from, size_t n,
                    uint64_t stream, uint64_t index0, float lo, float hi);
    /** ints [from, from + n): cl_rand_bits(seed, stream, i) % mod */
    void (*ints)(const struct cl_fill *f, int buf, size_t from, size_t n,
                 uint64_t stream, int mod);
    /** bytes [from, from + n) set to @p v */
    void (*bytes)(const struct cl_fill *f, int buf, size_t from, size_t n,
                  unsigned char v);
    /** bytes [from, from + n) copied from host memory @p src */
    void (*copy)(const struct cl_fill *f, int buf, size_t from, const void *src,
                 size_t n);
    const struct cl_lab_data *data; /**< the lab's data (Lab 6), or NULL */
    void *ctx;                      /**< the harness's */
};

/** Fill every input (and state, on the first call) of @p p the default
 *  way: uniform in [-1, 1), stream = buffer index + 1. */
void cl_fill_default(const struct cl_fill *f, const struct cl_plan *p);

/**
 * Fill the host images @p img (one per buffer of @p plan, each its
 * buffer's size; NULL for buffers not filled) as call @p call of a case is
 * filled with @p seed: the inputs a check regenerates, and what the tests
 * pin (grader/tests/pins/).
 */
void cl_fill_host(const struct cl_lab *lab, const void *arg,
                  const struct cl_plan *plan, const struct cl_lab_data *data,
                  uint64_t seed, int call, int first, void **img);

/** What check() sees of a call. */
struct cl_check {
    const struct cl_lab *lab;       /**< the lab */
    const void *arg;                /**< the case struct */
    const struct cl_plan *plan;     /**< its buffers */
    const struct cl_lab_data *data; /**< the lab's data (Lab 6), or NULL */
    int call;                       /**< the call checked */
    uint64_t pick;       /**< the judge's private random bits, drawn after the
                              call: sampled rows are chosen with them */
    const char *when;    /**< "" or "after timing: ", to prefix messages */
    int demo;            /**< --demo: print examples */
    struct cl_result *r; /**< the verdict goes here */
    void *h;             /**< the harness's */
};

/** Host image of input or state @p buf as filled for call @p call of the
 *  case (regenerated from the seed; kept until the check ends). */
const void *cl_check_input(struct cl_check *ck, int buf, int call);

/** Host copy of buffer @p buf after the call (outputs and state). */
const void *cl_check_output(struct cl_check *ck, int buf);

/**
 * The rows (or sentences) a check compares: all @p count of them when
 * there are at most @p max, else @p max: the first, the last, and the rest
 * drawn with ck->pick, sorted. Writes them to @p out (room for @p max) and
 * returns how many.
 */
int cl_check_rows(struct cl_check *ck, int count, int max, int *out);

/** Turn a failed comparison into CL_ST_WRONG with its description;
 *  1 when @p c failed. */
int cl_verdict(const struct cl_compare *c, const char *what,
               struct cl_result *r);

/**
 * The common check of outputs that must all be written: counts the
 * poisoned elements of output @p buf; when any, sets CL_ST_WRONG with
 * "NAME: k of n elements never written; first at [i]" and returns 1.
 */
int cl_check_written(struct cl_check *ck, int buf);

/** The student's outputs against the baseline's, for a spec's versus(). */
struct cl_vs {
    struct cl_check ck; /**< the call (ck.r gets the verdict) */
    double scale;       /**< tolerances are widened by this (2: both sides
                             carry FP32 rounding) */
};

/** Host copy of the baseline's version of output @p buf. */
const void *cl_vs_baseline(struct cl_vs *v, int buf);

/** The default comparison: every element of every float output and state
 *  within v->scale times the tolerance of the baseline's, ints equal.
 *  Returns 1 when wrong (verdict set). *first_bad gets the first wrong
 *  element's index in the buffer *bad_buf (either may be NULL). */
int cl_vs_default(struct cl_vs *v, int *bad_buf, size_t *first_bad);

/** What a baseline sees: the case and the judge's own pointers. */
struct cl_base_ctx {
    const void *arg;                /**< the case struct */
    const struct cl_plan *plan;     /**< its buffers */
    const struct cl_lab_data *data; /**< the lab's data, or NULL */
    void *const *in;  /**< the live buffers (inputs and state as the
                           student sees them), device pointers */
    void *const *out; /**< the baseline's own outputs and state, one per
                           CL_OUT/CL_STATE buffer (NULL for the others) */
};

/** A lab's library baseline(s): each is timed; the fastest counts. */
struct cl_baseline {
    int count; /**< how many (Lab 5: cuDNN's algorithms) */
    /** Per case; NULL with the reason in @p why (an internal error). */
    void *(*create)(const struct cl_base_ctx *b, char *why, size_t len);
    /** The name of baseline @p i for the report. */
    const char *(*name)(void *st, int i);
    /** Whether baseline @p i works for this case; why not in @p why. */
    int (*usable)(void *st, int i, char *why, size_t len);
    /** After each fill: what the inputs changed (repack weights); may be
     *  NULL. @p call is the call's number. */
    void (*prepare)(void *st, int call);
    /** Run baseline @p i on @p s into the baseline's outputs; 0, or a
     *  library status when the library refused. */
    int (*run)(void *st, int i, cudaStream_t s);
    /** Free what create() made. */
    void (*destroy)(void *st);
};

/** The judge's cuBLAS handle (default FP32 math) and cuDNN handle,
 *  created on first use. */
void *cl_judge_cublas(void);
/** See cl_judge_cublas(). */
void *cl_judge_cudnn(void);

/** How the engine runs one case. */
struct cl_case_opts {
    uint64_t seed;      /**< the run's seed */
    int timing;         /**< time it (speed and bench cases) */
    int profile;        /**< mark the call for a profiler; no timing */
    int tool_mode;      /**< sandbox off (profilers, sanitizers) */
    int no_trace;       /**< no CUPTI trace */
    int demo;           /**< --demo */
    double limit_s;     /**< the case's time limit */
    int submission_fd;  /**< the sealed copy of the submission */
    const char *runner; /**< the runner executable */
    const struct cl_gpu_info *gpu;  /**< NULL on the CPU lab */
    const struct cl_lab_data *data; /**< the lab's data, or NULL */
};

/** Run case @p index of @p lab in the judge; fills @p r. */
void cl_case_run(const struct cl_lab *lab, int index,
                 const struct cl_case_opts *o, struct cl_result *r);

/** Set up the judge's side for a GPU lab: stream, timer. Returns 0, or -1
 *  (no GPU) with the reason. */
int cl_judge_init(int gpu, char *why, size_t len);

/** Free what cl_judge_init() made (the process is about to exit). */
void cl_judge_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif /* CL_HARNESS_H */
