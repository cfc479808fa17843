/*
 * Lab 1: vector add. This is the file you edit.
 *
 * c[i] = a[i] + b[i] for n floats, on the GPU. Read README.md first: it
 * explains threads, blocks and grids, and why this kernel is limited by
 * memory bandwidth rather than arithmetic.
 *
 * Build and grade:   make grade LAB=01
 * One case only:     make grade LAB=01 ARGS="--case n=31"
 *
 * Each TODO marks a step; the README section in brackets explains it.
 */
#include "vector_add.h"

#include <cuda_runtime.h>

// ----------------------------------------------------------------------------
// GPU kernel

__global__ void vector_add_kernel(const float *a, const float *b, float *c,
                                  int n)
{
    /* TODO(lab1): compute this thread's global index from blockIdx,
     * blockDim and threadIdx, and if it is inside [0, n) store a + b into c.
     * [README: "Task 1: one thread per element"] */
    (void)a;
    (void)b;
    (void)c;
    (void)n;
}

// ----------------------------------------------------------------------------
// launcher

extern "C" void vector_add(const float *a, const float *b, float *c, int n,
                           cudaStream_t stream)
{
    /* TODO(lab1): choose the block size and enough blocks to cover all n
     * elements (round up). [README: "Task 2: the launch configuration"] */
    int threads = 1;
    int blocks = 1;
    vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);

    /* TODO(lab1): once it is correct, make it fast: a grid-stride loop and
     * 16-byte loads where the pointers allow them.
     * [README: "Task 3: reaching memory bandwidth"] */
}
