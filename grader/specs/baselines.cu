/* baselines.cu: kernels the library baselines launch beside the library. */
#include "specs/baselines.h"

#include "04-multi-tensor-apply/adamw.h"

#include "errcheck.h"

__global__ static void pad_left_kernel(const float *x, float *xp,
                                       long long total, int T, int pad)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += stride) {
        long long row = i / (T + pad);
        int t = (int)(i % (T + pad));
        xp[i] = t < pad ? 0.0f : x[row * T + t - pad];
    }
}

extern "C" void cl_pad_left(const float *x, float *xp, long long rows, int T,
                            int pad, cudaStream_t s)
{
    long long total = rows * (T + pad);
    long long blocks = (total + 255) / 256;
    if (blocks > 1 << 20)
        blocks = 1 << 20;
    pad_left_kernel<<<(unsigned)blocks, 256, 0, s>>>(x, xp, total, T, pad);
    CUDA_CHECK_LAUNCH();
}

__global__ static void adamw_tensor_kernel(float *p, const float *g, float *m,
                                           float *v, long long n, float decay,
                                           float b1, float b2, float step_size,
                                           float bc2_sqrt, float eps)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        float pi = p[i] * decay, gi = g[i];
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        p[i] = pi - step_size * mi / (sqrtf(vi) / bc2_sqrt + eps);
        m[i] = mi;
        v[i] = vi;
    }
}

extern "C" void cl_adamw_per_tensor(const struct adamw_tensor *ts, int count,
                                    const struct adamw_hparams *hp,
                                    cudaStream_t s)
{
    double bc1 = 1.0 - pow((double)hp->beta1, hp->step);
    double bc2 = 1.0 - pow((double)hp->beta2, hp->step);
    for (int i = 0; i < count; i++) {
        if (ts[i].n == 0)
            continue;
        long long blocks = (ts[i].n + 255) / 256;
        if (blocks > 4096)
            blocks = 4096;
        adamw_tensor_kernel<<<(unsigned)blocks, 256, 0, s>>>(
            ts[i].param, ts[i].grad, ts[i].exp_avg, ts[i].exp_avg_sq, ts[i].n,
            1.0f - hp->lr * hp->weight_decay, hp->beta1, hp->beta2,
            (float)(hp->lr / bc1), (float)sqrt(bc2), hp->eps);
        CUDA_CHECK_LAUNCH();
    }
}

// ----------------------------------------------------------------------------
// the small kernels of Lab 6's framework-style pipeline

__global__ static void gather_rows_kernel(const float *table, const int *idx,
                                          float *out, long long total,
                                          int width)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += stride) {
        long long row = i / width;
        out[i] = table[(long long)idx[row] * width + i % width];
    }
}

static unsigned grid_for(long long total)
{
    long long blocks = (total + 255) / 256;
    return (unsigned)(blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks);
}

extern "C" void cl_gather_rows(const float *table, const int *idx, float *out,
                               int n, int width, cudaStream_t s)
{
    long long total = (long long)n * width;
    gather_rows_kernel<<<grid_for(total), 256, 0, s>>>(table, idx, out, total,
                                                       width);
    CUDA_CHECK_LAUNCH();
}

__global__ static void concat_rows_kernel(const float *a0, int w0,
                                          const float *a1, int w1,
                                          const float *a2, int w2, float *out,
                                          long long total)
{
    int w = w0 + w1 + w2;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += stride) {
        long long row = i / w;
        int c = (int)(i % w);
        out[i] = c < w0        ? a0[row * w0 + c]
                 : c < w0 + w1 ? a1[row * w1 + c - w0]
                               : a2[row * w2 + c - w0 - w1];
    }
}

extern "C" void cl_concat_rows(const float *a0, int w0, const float *a1, int w1,
                               const float *a2, int w2, float *out, int rows,
                               cudaStream_t s)
{
    long long total = (long long)rows * (w0 + w1 + w2);
    concat_rows_kernel<<<grid_for(total), 256, 0, s>>>(a0, w0, a1, w1, a2, w2,
                                                       out, total);
    CUDA_CHECK_LAUNCH();
}

__global__ static void broadcast_rows_kernel(const float *bias, float *out,
                                             long long total, int n)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += stride)
        out[i] = bias[i % n];
}

extern "C" void cl_broadcast_rows(const float *bias, float *out, int rows,
                                  int n, cudaStream_t s)
{
    long long total = (long long)rows * n;
    broadcast_rows_kernel<<<grid_for(total), 256, 0, s>>>(bias, out, total, n);
    CUDA_CHECK_LAUNCH();
}

/* one block per row: a strided scan, then a tree over (value, index) that
 * prefers the lower index on equal values */
__global__ static void argmax_rows_kernel(const float *x, int n, int *idx,
                                          float *val, int *next)
{
    __shared__ float bv[256];
    __shared__ int bi[256];
    const float *row = x + (long long)blockIdx.x * n;
    float best = -INFINITY;
    int at = n;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        if (row[i] > best || (row[i] == best && i < at)) {
            best = row[i];
            at = i;
        }
    bv[threadIdx.x] = best;
    bi[threadIdx.x] = at;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            float v = bv[threadIdx.x + h];
            int i = bi[threadIdx.x + h];
            if (v > bv[threadIdx.x] ||
                (v == bv[threadIdx.x] && i < bi[threadIdx.x])) {
                bv[threadIdx.x] = v;
                bi[threadIdx.x] = i;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        int i = bi[0] < n ? bi[0] : 0; /* a row of NaN: token 0 */
        idx[blockIdx.x] = i;
        if (val)
            val[blockIdx.x] = row[i];
        if (next)
            next[blockIdx.x] = i;
    }
}

extern "C" void cl_argmax_rows(const float *x, int rows, int n, int *idx,
                               float *val, int *next, cudaStream_t s)
{
    argmax_rows_kernel<<<rows, 256, 0, s>>>(x, n, idx, val, next);
    CUDA_CHECK_LAUNCH();
}

__global__ static void fill_int_kernel(int *p, int v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

extern "C" void cl_fill_int(int *p, int v, int n, cudaStream_t s)
{
    fill_int_kernel<<<(n + 255) / 256, 256, 0, s>>>(p, v, n);
    CUDA_CHECK_LAUNCH();
}
