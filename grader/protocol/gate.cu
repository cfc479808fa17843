/* gate.cu: a kernel that keeps a stream busy for a set time. */
#include "protocol/gate.h"

#include <stdint.h>

__global__ static void cl_gate_kernel(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

extern "C" cudaError_t cl_gate(int us, cudaStream_t s)
{
    if (us <= 0)
        return cudaSuccess;
    cl_gate_kernel<<<1, 1, 0, s>>>((unsigned long long)us * 1000ull);
    return cudaGetLastError();
}
