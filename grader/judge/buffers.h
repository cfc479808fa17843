/**
 * @file buffers.h
 * @brief A case's buffers: the plan a spec writes, the guarded buffers the
 *        judge allocates from it, and the fills that put inputs in them.
 *
 * A spec's plan() lists a case's buffers (struct cl_plan); the judge gives
 * each a guard zone before and after (struct cl_gbuf: device memory that
 * the runner allocates and the judge maps, or on the CPU lab a shared
 * memfd) and fills inputs through struct cl_fill: the same spec function
 * fills the live buffers on the device and, for checks and pins, host
 * images that are bit for bit the same.
 */
#ifndef CL_JUDGE_BUFFERS_H
#define CL_JUDGE_BUFFERS_H

#include "compare.h"
#include "guard.h"
#include "judge/lab.h"

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
    struct cl_buf_plan buf[CL_MAX_BUFS]; /**< in the order of protocol/glue.h */
    int nbuf;                            /**< how many */
    double work;             /**< bytes or FLOPs per call (lab's metric) */
    double ceil_bytes;       /**< bytes one ceiling copy moves (0: none) */
    struct cl_tolerance tol; /**< against the CPU reference */
    int check_calls;         /**< calls in the check round (Lab 4: 3 steps) */
    int nobase;              /**< this case has no baseline */
    int versus;              /**< run the baseline on every call and compare
                                  every element with it, not only on timed
                                  calls (for cases whose CPU check samples) */
    int sample_written_only; /**< the check that stops the judge's clock
                                  looks only that outputs were written, not
                                  at their values (Lab 6: a decode may part
                                  from the baseline's at a near-tie) */
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

/* ---- the judge's side: guarded buffers and where fills land ------------- */

/** One buffer of a case as the judge holds it. */
struct cl_gbuf {
    size_t bytes;        /* usable */
    size_t alloc;        /* the whole allocation */
    size_t at;           /* guard + offset */
    unsigned char *base; /* device memory, or a shared mapping (CPU) */
    void *ptr;           /* base + at */
    int fd;              /* CPU: its memfd */
    unsigned char handle[64];
    void *mirror; /* the baseline's version (outputs, state) */
    void *native; /* GPU: the judge's own copy of an input or of
                     the first state, filled, then copied over */
    int mapped;   /* sent to (or allocated by) the runner */
    int imported; /* GPU: the runner's memory, mapped here */
};

/** The sizes of @p b for @p bytes usable at @p offset past its front
 *  guard; nothing is allocated (GPU labs: the runner allocates). */
void cl_gbuf_size(struct cl_gbuf *b, size_t bytes, size_t offset);

/** GPU: the judge's own copy of an input or of the first state (filled,
 *  then copied into the runner's buffer), made before the runner starts. */
void cl_gbuf_own(struct cl_gbuf *b);

/** GPU: map the runner's allocation through its IPC @p handle and arm
 *  the guards. The handle comes from the runner: 0, or -1 (nothing
 *  mapped) when it opens no memory here or memory smaller than the
 *  planned allocation. */
int cl_gbuf_import(struct cl_gbuf *b, const unsigned char *handle);

/** The CPU lab: a shared memfd of the planned size, mapped here and sent
 *  to the runner; filled with canaries. */
void cl_gbuf_alloc(struct cl_gbuf *b, size_t bytes, size_t offset);

/** Free @p b (its device copies only when @p device_ok). */
void cl_gbuf_free(struct cl_gbuf *b, int device_ok);

/** Read and scan @p b's guard zones into @p g; 1 when one was written. */
int cl_gbuf_guards(const struct cl_gbuf *b, struct cl_guard_report *g);

/** Where a fill writes: the live buffers (device, or the CPU lab's shared
 *  memory; an input goes to its judge-side copy when it has one), or host
 *  images allocated on demand. */
struct cl_fill_ctx {
    struct cl_gbuf *live; /* device (or shared) buffers, or NULL */
    void **host;          /* host images, or NULL */
    const struct cl_plan *plan;
    const struct cl_lab_data *data;
};

/** Fill call @p call (seed @p seed; @p first: state too) of case @p arg
 *  through @p fc, with the lab's fill() or the default. */
void cl_fill_run(const struct cl_lab *lab, const void *arg,
                 const struct cl_plan *plan, struct cl_fill_ctx *fc,
                 uint64_t seed, int call, int first);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_BUFFERS_H */
