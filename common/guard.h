/**
 * @file guard.h
 * @brief Device buffers with poison fill and canary guard zones.
 *
 * A cl_dbuf is one cudaMalloc of guard + offset + bytes + guard. The user
 * pointer starts @c offset bytes after the front guard (an offset that is
 * not a multiple of 16 gives a misaligned pointer on purpose). Guards are
 * filled with CL_CANARY; outputs are poisoned with CL_POISON bytes, so an
 * element the student never wrote reads back as the float 0xFFFFFFFF (a NaN
 * no arithmetic produces). The scan functions work on host copies and hold
 * all of the logic; the device functions only move bytes.
 */
#ifndef CL_GUARD_H
#define CL_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_CANARY      0xCAu       /**< byte pattern of guard zones */
#define CL_POISON      0xFFu       /**< byte pattern of poisoned outputs */
#define CL_POISON_F32  0xFFFFFFFFu /**< a poisoned float's bits */
#define CL_GUARD_BYTES 4096u       /**< size of each guard zone */

/** A device buffer with guard zones on both sides. */
struct cl_dbuf {
    unsigned char *d_base; /**< start of the allocation (front guard) */
    void *ptr;     /**< what the student sees: d_base + guard + offset */
    size_t bytes;  /**< usable bytes at ptr */
    size_t offset; /**< bytes between the front guard and ptr */
};

/** Outcome of a guard check. */
struct cl_guard_report {
    size_t front_bad; /**< changed bytes before the buffer */
    size_t back_bad;  /**< changed bytes after the buffer */
    long first_bad;   /**< element index (may be negative) of the first
                           changed byte's element, for the message */
};

/**
 * Count bytes of @p p[0..n) that differ from @p pattern; store the index of
 * the first and the last differing byte in @p first / @p last (may be NULL;
 * untouched when none differ).
 */
size_t cl_scan_bytes(const unsigned char *p, size_t n, unsigned char pattern,
                     size_t *first, size_t *last);

/** Count floats still equal to CL_POISON_F32; first such index in *first. */
size_t cl_count_poison_f32(const float *p, size_t n, size_t *first);

/**
 * Describe a guard report in one sentence into @p buf ("" when clean);
 * @p what names the buffer, @p elem the element size in bytes.
 * Returns 1 when a guard was overwritten.
 */
int cl_guard_describe(const struct cl_guard_report *r, const char *what,
                      size_t elem, char *buf, size_t len);

/** Allocate @p bytes with guards, @p offset bytes past the front guard. */
void cl_dbuf_create(struct cl_dbuf *b, size_t bytes, size_t offset);
/** Free the buffer (safe on a zeroed struct). */
void cl_dbuf_destroy(struct cl_dbuf *b);
/** Fill the usable bytes with CL_POISON on stream @p s. */
void cl_dbuf_poison(const struct cl_dbuf *b, cudaStream_t s);
/** Fill both guard zones (and the offset gap) with CL_CANARY. */
void cl_dbuf_arm(const struct cl_dbuf *b, cudaStream_t s);
/**
 * Synchronise @p s, copy the guards back and scan them; @p elem is the
 * element size used to turn a byte into an element index. Returns 1 when a
 * guard was overwritten.
 */
int cl_dbuf_check(const struct cl_dbuf *b, size_t elem, cudaStream_t s,
                  struct cl_guard_report *r);

#ifdef __cplusplus
}
#endif

#endif /* CL_GUARD_H */
