/*
 * cudnn_optensor.c: cuDNN's elementwise add (cudnnOpTensor, ADD) as a
 * baseline (Lab 1): c = 1 * a + 1 * b over n floats, FP32, NaN not
 * propagated, the tensors (1, 1, 1, n).
 */
#include "specs/baselines.h"

#include <cudnn.h>

#include "errcheck.h"
#include "fatal.h"
#include "judge/device.h"

#include <stdlib.h>

struct cl_cudnn_add {
    cudnnTensorDescriptor_t desc;
    cudnnOpTensorDescriptor_t add;
    const float *a, *b;
    float *c;
};

struct cl_cudnn_add *cl_cudnn_add_create(int n, const float *a, const float *b,
                                         float *c)
{
    struct cl_cudnn_add *o = cl_xcalloc(1, sizeof *o);
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&o->desc));
    CUDNN_CHECK(cudnnCreateOpTensorDescriptor(&o->add));
    CUDNN_CHECK(cudnnSetOpTensorDescriptor(o->add, CUDNN_OP_TENSOR_ADD,
                                           CUDNN_DATA_FLOAT,
                                           CUDNN_NOT_PROPAGATE_NAN));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(o->desc, CUDNN_TENSOR_NCHW,
                                           CUDNN_DATA_FLOAT, 1, 1, 1, n));
    o->a = a;
    o->b = b;
    o->c = c;
    return o;
}

int cl_cudnn_add_run(struct cl_cudnn_add *o, cudaStream_t s)
{
    const float one = 1.0f, zero = 0.0f;
    cudnnHandle_t h = cl_judge_cudnn();
    CUDNN_CHECK(cudnnSetStream(h, s));
    return (int)cudnnOpTensor(h, o->add, &one, o->desc, o->a, &one, o->desc,
                              o->b, &zero, o->desc, o->c);
}

void cl_cudnn_add_destroy(struct cl_cudnn_add *o)
{
    if (!o)
        return;
    CUDNN_CHECK(cudnnDestroyOpTensorDescriptor(o->add));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(o->desc));
    free(o);
}
