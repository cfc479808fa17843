/**
 * @file refs.h
 * @brief CPU references of the labs: plain C, double accumulation.
 *
 * The grader computes expected outputs with these; the unit tests check
 * them against values worked out by hand.
 */
#ifndef CL_REFS_H
#define CL_REFS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Lab 1: ref[i] = (double)a[i] + (double)b[i] for i < n. */
void vector_add_ref(const float *a, const float *b, double *ref, size_t n);

/**
 * Lab 2, part A: ref[i] = sum over j in [-R, R] of w[j+R] * in[i+j], with
 * in[] zero outside [0, n).
 */
void stencil_ref(const float *in, const float *w, double *ref, long n,
                 int radius);

/**
 * Lab 2, part B, rows [row0, row0 + nrows) of the (B*C, T) output:
 * ref[(r - row0) * T + t] = sum over k of w[c,k] * x[r, t-(K-1)+k], with
 * c = r % C and x zero before time 0.
 */
void causal_conv1d_ref(const float *x, const float *w, double *ref, long row0,
                       long nrows, int C, int T, int K);

/**
 * Lab 3, rows [row0, row0 + nrows) of C = A * B (row-major, A is M x K,
 * B is K x N): ref[(i - row0) * N + j] = sum over k of A[i,k] * B[k,j].
 */
void matmul_ref(const float *A, const float *B, double *ref, long row0,
                long nrows, int N, int K);

/** Lab 4: AdamW's hyperparameters, in double for the reference. */
struct adamw_ref_hp {
    double lr;           /**< learning rate */
    double beta1;        /**< decay of m */
    double beta2;        /**< decay of v */
    double eps;          /**< added to the denominator */
    double weight_decay; /**< decoupled weight decay */
    int step;            /**< 1 for the first step */
};

/**
 * Lab 4: one AdamW step (torch.optim.AdamW) on n elements of state kept in
 * double: p, m, v updated in place from the gradient g.
 */
void adamw_ref(double *p, double *m, double *v, const float *g, long long n,
               const struct adamw_ref_hp *hp);

/**
 * Lab 4: the parameter tensors of GPT-2 small (148 tensors, 124,439,808
 * elements), in the order of its state_dict; writes up to @p max sizes
 * (@p sizes may be NULL when @p max is 0), returns the count.
 */
int adamw_gpt2_sizes(long long *sizes, int max);

#ifdef __cplusplus
}
#endif

#endif /* CL_REFS_H */
