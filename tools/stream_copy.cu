/*
 * stream_copy.cu: a streaming device-to-device copy, written as the
 * ceiling of the bandwidth labs (1, 2 and 4) beside cudaMemcpy: the grader
 * takes the faster of the two as the rate no kernel of the lab can beat.
 *
 * The ideas are Lab 1's: 16-byte loads and stores, four of them in flight
 * per thread before the first store, streaming hints (.cs: the data is
 * touched once, evict it first), and one tile per block with no loop, so
 * that the hardware hands the tiles out in address order. Any alignment
 * and any size: when source and destination share their offset from a
 * 16-byte boundary, the bytes before it and after the last whole vector
 * are copied one by one; when they only share it modulo 4, the body moves
 * 4-byte words; otherwise bytes.
 *
 * Standalone: nvcc -c tools/stream_copy.cu, no header of the project.
 *   nvcc -arch=sm_90 -Xptxas -v -c tools/stream_copy.cu
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#define SC_THREADS    256
#define SC_UNROLL     4 /* vectors in flight per thread */
#define SC_MIN_BLOCKS 4 /* up to 64 registers: all loads issued together */
#define SC_MAX_GRID   (1u << 30)

/* the bytes of the copy that are not part of the vector body: at most 15
 * before it and 15 after it */
struct sc_ends {
    unsigned char *dst_head;
    const unsigned char *src_head;
    int head;
    unsigned char *dst_tail;
    const unsigned char *src_tail;
    int tail;
};

/* count elements of T, tile by tile: tile t is SC_UNROLL * SC_THREADS
 * elements, block b does tiles b, b + grid, ... (one each unless the copy
 * is larger than SC_MAX_GRID tiles); block 0 also copies the ends */
template <typename T>
__global__ void __launch_bounds__(SC_THREADS, SC_MIN_BLOCKS)
    sc_copy_kernel(T *__restrict__ dst, const T *__restrict__ src, size_t count,
                   struct sc_ends ends)
{
    const size_t tile = (size_t)SC_UNROLL * SC_THREADS;
    for (size_t t = blockIdx.x; t * tile < count; t += gridDim.x) {
        size_t i0 = t * tile + threadIdx.x;
        if (i0 + (SC_UNROLL - 1) * SC_THREADS < count) {
            T v[SC_UNROLL];
#pragma unroll
            for (int u = 0; u < SC_UNROLL; u++)
                v[u] = __ldcs(src + i0 + u * SC_THREADS);
#pragma unroll
            for (int u = 0; u < SC_UNROLL; u++)
                __stcs(dst + i0 + u * SC_THREADS, v[u]);
        } else {
#pragma unroll
            for (int u = 0; u < SC_UNROLL; u++) {
                size_t i = i0 + u * SC_THREADS;
                if (i < count)
                    __stcs(dst + i, __ldcs(src + i));
            }
        }
    }
    if (blockIdx.x == 0) {
        int k = threadIdx.x;
        if (k < ends.head)
            ends.dst_head[k] = ends.src_head[k];
        else if (k - ends.head < ends.tail)
            ends.dst_tail[k - ends.head] = ends.src_tail[k - ends.head];
    }
}

/* the body as elements of T from byte offset head; the rest as ends */
template <typename T>
static void sc_launch(unsigned char *dst, const unsigned char *src,
                      size_t bytes, size_t head, cudaStream_t s)
{
    size_t count = (bytes - head) / sizeof(T);
    size_t body_end = head + count * sizeof(T);
    struct sc_ends e = {dst,
                        src,
                        (int)head,
                        dst + body_end,
                        src + body_end,
                        (int)(bytes - body_end)};
    size_t tiles =
        (count + SC_UNROLL * SC_THREADS - 1) / ((size_t)SC_UNROLL * SC_THREADS);
    if (tiles < 1)
        tiles = 1; /* block 0 copies the ends */
    if (tiles > SC_MAX_GRID)
        tiles = SC_MAX_GRID;
    sc_copy_kernel<T><<<(unsigned)tiles, SC_THREADS, 0, s>>>(
        (T *)(dst + head), (const T *)(src + head), count, e);
}

/**
 * Copy @p bytes bytes from device memory @p src to device memory @p dst
 * (not overlapping) on stream @p s, asynchronously. Any alignment and any
 * size; 0 bytes is a no-op. Errors are not returned: a failed launch is
 * left for cudaGetLastError(), as with a kernel launch.
 */
extern "C" void cl_stream_copy(void *dst, const void *src, size_t bytes,
                               cudaStream_t s)
{
    if (bytes == 0)
        return;
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *c = (const unsigned char *)src;
    uintptr_t md = (uintptr_t)d, ms = (uintptr_t)c;
    if (md % 16 == ms % 16) {
        size_t head = (16 - md % 16) % 16;
        if (head > bytes)
            head = bytes;
        sc_launch<uint4>(d, c, bytes, head, s);
    } else if (md % 4 == ms % 4) {
        size_t head = (4 - md % 4) % 4;
        if (head > bytes)
            head = bytes;
        sc_launch<unsigned int>(d, c, bytes, head, s);
    } else {
        sc_launch<unsigned char>(d, c, bytes, 0, s);
    }
}
