/* Known-bad Lab 4 submission: a metadata struct of 1024 tensors, 41 KB,
 * over the kernel-parameter limit (32,764 bytes): nvcc refuses it, and the
 * grader reports a compile error. */
#include "adamw.h"

#include <cuda_runtime.h>

struct meta {
    float *p[1024], *m[1024], *v[1024];
    const float *g[1024];
    long long n[1024];
};

__global__ void step(struct meta meta, struct adamw_hparams hp)
{
    (void)meta;
    (void)hp;
}

extern "C" void adamw_step(const struct adamw_tensor *t, int count,
                           struct adamw_hparams hp, cudaStream_t s)
{
    static struct meta meta;
    for (int i = 0; i < count && i < 1024; i++) {
        meta.p[i] = t[i].param;
        meta.g[i] = t[i].grad;
        meta.m[i] = t[i].exp_avg;
        meta.v[i] = t[i].exp_avg_sq;
        meta.n[i] = t[i].n;
    }
    step<<<1, 1, 0, s>>>(meta, hp);
}
