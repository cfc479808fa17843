/*
 * pipeline.c: Lab 6's baseline, the greedy decode a framework runs.
 *
 * Embedding gathers, concatenations and an argmax as small kernels
 * (baselines.cu), cuDNN's GRU (CUDNN_FMA_MATH, standard algorithm, as
 * PyTorch picks for FP32) for the encoder and one cuDNN call per decoder
 * step, cuBLAS's SGEMM (default FP32 math) for the output layer: about
 * seven launches a step, eager, or captured once into a CUDA graph.
 */
#include "specs/baselines.h"
#include "fatal.h"
#include "protocol/glue.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include "errcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cl_pipeline {
    struct seq2seq_model m;
    const int *src;
    int S, T, B;
    cublasHandle_t blas;
    struct cl_cudnn_gru *enc, *dec;
    float *emb_src, *enc_y, *zeros, *ctx, *emb, *x, *d[2], *dy, *z, *logits;
    int *prev, *tokens;
    float *chosen;
    cudaGraphExec_t graph;
};

static void *dalloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

static struct gru_weights gru_of(const struct seq2seq_gru *g)
{
    struct gru_weights w = {g->w_ih, g->w_hh, g->b_ih, g->b_hh};
    return w;
}

struct cl_pipeline *cl_pipeline_create(struct cudnnContext *dnn, void *blas,
                                       const struct seq2seq_model *m,
                                       const int *src, int S, int T, int B,
                                       int *tokens, float *chosen, char *why,
                                       size_t len)
{
    int E = m->emb, H = m->hid, V = m->v_tgt;
    struct cl_pipeline *p = cl_xcalloc(1, sizeof *p);
    p->m = *m;
    p->src = src;
    p->S = S;
    p->T = T;
    p->B = B;
    p->blas = blas;
    p->tokens = tokens;
    p->chosen = chosen;
    struct gru_weights enc = gru_of(&m->enc), dec = gru_of(&m->dec);
    p->enc = cl_cudnn_gru_create(dnn, CL_GRU_STANDARD, S, B, E, H, 1, &enc, why,
                                 len);
    p->dec = cl_cudnn_gru_create(dnn, CL_GRU_STANDARD, 1, B, E + H, H, 1, &dec,
                                 why, len);
    size_t f = sizeof(float);
    p->emb_src = dalloc((size_t)S * B * E * f);
    p->enc_y = dalloc((size_t)S * B * H * f);
    p->zeros = dalloc((size_t)B * H * f);
    CUDA_CHECK(cudaMemset(p->zeros, 0, (size_t)B * H * f));
    p->ctx = dalloc((size_t)B * H * f);
    p->emb = dalloc((size_t)B * E * f);
    p->x = dalloc((size_t)B * (E + H) * f);
    p->d[0] = dalloc((size_t)B * H * f);
    p->d[1] = dalloc((size_t)B * H * f);
    p->dy = dalloc((size_t)B * H * f);
    p->z = dalloc((size_t)B * (E + 2 * H) * f);
    p->logits = dalloc((size_t)B * V * f);
    p->prev = dalloc((size_t)B * sizeof(int));
    if (!p->enc || !p->dec) {
        cl_pipeline_destroy(p);
        return NULL;
    }
    return p;
}

void cl_pipeline_repack(struct cl_pipeline *p)
{
    struct gru_weights enc = gru_of(&p->m.enc), dec = gru_of(&p->m.dec);
    cl_cudnn_gru_repack(p->enc, &enc);
    cl_cudnn_gru_repack(p->dec, &dec);
}

/* what an eager framework launches: ~7 kernels and library calls a step */
void cl_pipeline_eager(struct cl_pipeline *p, cudaStream_t s)
{
    const struct seq2seq_model *m = &p->m;
    int E = m->emb, H = m->hid, V = m->v_tgt, B = p->B;
    cl_gather_rows(m->enc_emb, p->src, p->emb_src, p->S * B, E, s);
    struct cl_cudnn_gru_call enc = {p->enc, p->emb_src, p->zeros, p->enc_y,
                                    p->ctx};
    cl_cudnn_gru_run(&enc, s);
    cl_fill_int(p->prev, S2S_SOS, B, s);
    const float *d = p->ctx;
    CUBLAS_CHECK(cublasSetStream(p->blas, s));
    const float one = 1.0f;
    for (int t = 0; t < p->T; t++) {
        float *dn = p->d[t & 1];
        cl_gather_rows(m->dec_emb, p->prev, p->emb, B, E, s);
        cl_concat_rows(p->emb, E, p->ctx, H, NULL, 0, p->x, B, s);
        struct cl_cudnn_gru_call dec = {p->dec, p->x, d, p->dy, dn};
        cl_cudnn_gru_run(&dec, s);
        cl_concat_rows(p->emb, E, dn, H, p->ctx, H, p->z, B, s);
        cl_broadcast_rows(m->fc_b, p->logits, B, V, s);
        /* logits (B, V) += z (B, E + 2H) * fc_w^T, row-major */
        CUBLAS_CHECK(cublasSgemm(p->blas, CUBLAS_OP_T, CUBLAS_OP_N, V, B,
                                 E + 2 * H, &one, m->fc_w, E + 2 * H, p->z,
                                 E + 2 * H, &one, p->logits, V));
        cl_argmax_rows(p->logits, B, V, p->tokens + (size_t)t * B,
                       p->chosen + (size_t)t * B, p->prev, s);
        d = dn;
    }
}

int cl_pipeline_capture(struct cl_pipeline *p, cudaStream_t s, char *why,
                        size_t len)
{
    cudaGraph_t g = NULL;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    cl_pipeline_eager(p, s);
    cudaError_t e = cudaStreamEndCapture(s, &g);
    if (e == cudaSuccess)
        e = cudaGraphInstantiate(&p->graph, g, 0);
    if (g)
        CUDA_CHECK(cudaGraphDestroy(g));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        p->graph = NULL;
        snprintf(why, len, "%s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

void cl_pipeline_graph(struct cl_pipeline *p, cudaStream_t s)
{
    CUDA_CHECK(cudaGraphLaunch(p->graph, s));
}

void cl_pipeline_destroy(struct cl_pipeline *p)
{
    if (!p)
        return;
    if (p->graph)
        CUDA_CHECK(cudaGraphExecDestroy(p->graph));
    cl_cudnn_gru_destroy(p->enc);
    cl_cudnn_gru_destroy(p->dec);
    void *bufs[] = {p->emb_src, p->enc_y, p->zeros, p->ctx, p->emb,    p->x,
                    p->d[0],    p->d[1],  p->dy,    p->z,   p->logits, p->prev};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            CUDA_CHECK(cudaFree(bufs[i]));
    free(p);
}
