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
 *
 * Digests: "__metadata__" (a map of strings, the format's place for what
 * the writer wants to say) may hold, for a tensor NAME, the key
 * "sha256:NAME" with the SHA-256 of NAME's bytes as 64 lowercase hex
 * digits. cl_st_load() checks every digest the file holds, so a flipped
 * byte inside a tensor's data is found and named; cl_st_require_digests()
 * insists that every tensor has one (Lab 6's model does: written by
 * tools/train-seq2seq.py, or added to a file by tools/seal-safetensors.py
 * without touching its tensors). cl_st_f32_nonfinite() finds a NaN or an
 * infinity in an F32 tensor.
 */
#ifndef CL_SAFETENSORS_H
#define CL_SAFETENSORS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_ST_MAX_DIMS 8         /**< dimensions of a tensor, at most */
#define CL_ST_MAX_NAME 160       /**< bytes of a tensor name, with the NUL */
#define CL_ST_DIGEST   "sha256:" /**< "__metadata__" key prefix of a digest */

/** One tensor of the file. */
struct cl_st_tensor {
    char name[CL_ST_MAX_NAME];       /**< as in the header */
    char dtype[8];                   /**< "F32", "F16", "I64", ... */
    int ndim;                        /**< 0 for a scalar */
    long long shape[CL_ST_MAX_DIMS]; /**< its dimensions */
    size_t offset;                   /**< bytes from the start of the data */
    size_t bytes;                    /**< its size in bytes */
    int digest;                      /**< its SHA-256 was in the file, and
                                          matched */
};

/** One "__metadata__" entry (a string value). */
struct cl_st_meta {
    char *key;   /**< the key */
    char *value; /**< its value */
};

/** A loaded file: its bytes and its checked table of tensors. */
struct cl_st {
    unsigned char *file;     /**< the whole file */
    size_t size;             /**< its length */
    size_t data;             /**< where the data starts (8 + N) */
    int n;                   /**< tensors */
    struct cl_st_tensor *t;  /**< the tensors, in header order */
    int nmeta;               /**< entries of "__metadata__" with a string */
    struct cl_st_meta *meta; /**< their keys and values */
};

/**
 * Read and check @p path, digests included. Returns 0, or -1 with a
 * message in @p err (the struct is then empty and need not be freed).
 */
int cl_st_load(const char *path, struct cl_st *st, char *err, size_t len);

/**
 * Every tensor of @p st has its digest in the file (cl_st_load() checked
 * those there are). Returns 0, or -1 naming the first tensor without one.
 */
int cl_st_require_digests(const struct cl_st *st, char *err, size_t len);

/**
 * The index of the first NaN or infinity in the F32 tensor @p t of @p st,
 * or -1 when every element is finite (or @p t is not F32).
 */
long long cl_st_f32_nonfinite(const struct cl_st *st,
                              const struct cl_st_tensor *t);

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
