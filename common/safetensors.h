/**
 * @file safetensors.h
 * @brief Read a safetensors file, checking everything before trusting it.
 *
 * The format: an 8-byte little-endian header length N, N bytes of JSON
 * ({"name": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}, ...,
 * optionally "__metadata__": {...}}), then the data, which the offsets
 * index. cl_st_load() checks the header length against the file, parses
 * the JSON with cJSON, and checks each tensor's dtype, shape and offsets:
 * inside the data, the size its shape and dtype imply, not overlapping
 * another. A file that fails any check is refused with a message that
 * names the file, the tensor and the problem.
 */
#ifndef CL_SAFETENSORS_H
#define CL_SAFETENSORS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_ST_MAX_DIMS 8   /**< dimensions of a tensor, at most */
#define CL_ST_MAX_NAME 160 /**< bytes of a tensor name, with the NUL */

/** One tensor of the file. */
struct cl_st_tensor {
    char name[CL_ST_MAX_NAME];       /**< as in the header */
    char dtype[8];                   /**< "F32", "F16", "I64", ... */
    int ndim;                        /**< 0 for a scalar */
    long long shape[CL_ST_MAX_DIMS]; /**< its dimensions */
    size_t offset;                   /**< bytes from the start of the data */
    size_t bytes;                    /**< its size in bytes */
};

/** A loaded file: its bytes and its checked table of tensors. */
struct cl_st {
    unsigned char *file;    /**< the whole file */
    size_t size;            /**< its length */
    size_t data;            /**< where the data starts (8 + N) */
    int n;                  /**< tensors */
    struct cl_st_tensor *t; /**< the tensors, in header order */
    int nmeta;              /**< entries of "__metadata__" kept */
    char meta[16][2][64];   /**< their keys and (string) values */
};

/**
 * Read and check @p path. Returns 0, or -1 with a message in @p err (the
 * struct is then empty and need not be freed).
 */
int cl_st_load(const char *path, struct cl_st *st, char *err, size_t len);

/** The "__metadata__" value of @p key, or NULL. */
const char *cl_st_meta(const struct cl_st *st, const char *key);

/** The tensor named @p name, or NULL. */
const struct cl_st_tensor *cl_st_find(const struct cl_st *st, const char *name);

/**
 * The data of an F32 tensor named @p name with exactly the @p ndim
 * dimensions in @p shape (a dimension of -1 matches any size and is
 * written back). Returns a pointer into the file (not necessarily 4-byte
 * aligned: copy it), or NULL with a message in @p err.
 */
const void *cl_st_f32(const struct cl_st *st, const char *name, int ndim,
                      long long *shape, char *err, size_t len);

/** Free what cl_st_load allocated (safe on a zeroed struct). */
void cl_st_free(struct cl_st *st);

#ifdef __cplusplus
}
#endif

#endif /* CL_SAFETENSORS_H */
