/**
 * @file seq2seq_data.h
 * @brief Lab 6's trained model and held-out test set, read and checked in
 *        the grader's own process before anything runs.
 *
 * The files are found independently of the working directory: the
 * directory CUDA_LABS_DATA names when it is set (read by the grader's
 * process only, never by the runner), else the lab's data directory of the
 * source tree the grader was built from, else one beside the executable.
 */
#ifndef CL_SEQ2SEQ_DATA_H
#define CL_SEQ2SEQ_DATA_H

#include "sha256.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define S2S_PAD 0 /**< padding, in the trained vocabularies */
#define S2S_EOS 2 /**< end of sentence */

/** A vocabulary: one word per id. */
struct s2s_vocab {
    int n;                      /**< words */
    char (*w)[32];              /**< word i at w[i] */
    char sealed[CL_SHA256_HEX]; /**< the file's SHA-256, from the model */
};

/** Lab 6's data, in host memory. */
struct cl_lab_data {
    float *model;              /**< the tensors in arena order (glue.h) */
    size_t floats;             /**< how many */
    int v_src;                 /**< source vocabulary */
    int v_tgt;                 /**< target vocabulary */
    int E;                     /**< embedding size */
    int H;                     /**< hidden size */
    int S;                     /**< source length it was made for */
    int T;                     /**< target length */
    struct s2s_vocab src, tgt; /**< the vocabularies */
    int n;                     /**< test sentences */
    char (*line)[2][160];      /**< source, reference */
    int *ids; /**< (S, n): sentence b's tokens at [s * n + b] */
};

/** Find, read and check the data (the lab's load_data): the model and its
 *  sizes, the vocabularies against it, and every test sentence encodable.
 *  Returns 0, or -1 with the problem in @p err. */
int cl_s2s_load(struct cl_lab_data **out, char *err, size_t len);

/** The directory the data is read from, into @p buf. */
const char *cl_s2s_data_dir(char *buf, size_t len);

/** Tokens tok[0], tok[stride], ... up to the end token as words, into @p buf.
 */
void cl_s2s_words(const struct s2s_vocab *v, const int *tok, int T, int stride,
                  char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_SEQ2SEQ_DATA_H */
