/**
 * @file guard.h
 * @brief Guard zones and poison: the byte patterns and their scans.
 *
 * The judge's buffers (cl_gbuf, grader/judge/buffers.h) sit between two
 * guard zones filled with CL_CANARY; outputs are poisoned with CL_POISON
 * bytes before each call, so an element the student never wrote reads back
 * as the float 0xFFFFFFFF (a NaN no arithmetic produces). The functions
 * here work on host copies and hold all of the logic.
 */
#ifndef CL_GUARD_H
#define CL_GUARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_CANARY      0xCAu       /**< byte pattern of guard zones */
#define CL_POISON      0xFFu       /**< byte pattern of poisoned outputs */
#define CL_POISON_F32  0xFFFFFFFFu /**< a poisoned float's bits */
#define CL_GUARD_BYTES 4096u       /**< size of each guard zone */

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

#ifdef __cplusplus
}
#endif

#endif /* CL_GUARD_H */
