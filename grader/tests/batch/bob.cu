/* A Lab 1 submission that does not compile, for the batch tests. */
#include "vector_add.h"

extern "C" void vector_add(const float *a, const float *b, float *c, int n,
                           cudaStream_t s)
{
    this line is not C;
}
