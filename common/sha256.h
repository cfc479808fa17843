/**
 * @file sha256.h
 * @brief SHA-256 (FIPS 180-4) of a buffer, as 64 lowercase hex digits.
 *
 * Lab 6's model stores a digest of each tensor's bytes; the grader checks
 * them before it trusts the weights (safetensors.h).
 */
#ifndef CL_SHA256_H
#define CL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_SHA256_HEX 65 /**< 64 hex digits and the NUL */

/** The 32-byte SHA-256 digest of @p n bytes at @p data into @p out. */
void cl_sha256(const void *data, size_t n, uint8_t out[32]);

/** The SHA-256 of @p n bytes at @p data as lowercase hex into @p hex. */
void cl_sha256_hex(const void *data, size_t n, char hex[CL_SHA256_HEX]);

#ifdef __cplusplus
}
#endif

#endif /* CL_SHA256_H */
