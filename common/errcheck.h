/**
 * @file errcheck.h
 * @brief Error-check macros for CUDA, cuBLAS and cuDNN calls.
 *
 * Each macro evaluates its expression once; on failure it reports the file,
 * the line, the expression and the library's own message through
 * cl_fatal(), which does not return. Use CUDA_CHECK_LAUNCH() right after a
 * kernel launch.
 */
#ifndef CL_ERRCHECK_H
#define CL_ERRCHECK_H

#include "fatal.h"

#include <cuda_runtime.h>
/* the libraries' own headers, where they are (a student's build may have
 * neither cuBLAS's nor cuDNN's on its include path: then those two macros
 * are simply not used) */
#if defined(__has_include)
#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
#endif
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#endif
#endif

/** Check a CUDA runtime call. */
#define CUDA_CHECK(expr)                                                       \
    do {                                                                       \
        cudaError_t cl_err_ = (expr);                                          \
        if (cl_err_ != cudaSuccess)                                            \
            cl_fatal(__FILE__, __LINE__, #expr, "CUDA",                        \
                     cudaGetErrorString(cl_err_));                             \
    } while (0)

/** Check the last kernel launch (configuration errors show up here). */
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

/** Check a cuBLAS call. */
#define CUBLAS_CHECK(expr)                                                     \
    do {                                                                       \
        cublasStatus_t cl_st_ = (expr);                                        \
        if (cl_st_ != CUBLAS_STATUS_SUCCESS)                                   \
            cl_fatal(__FILE__, __LINE__, #expr, "cuBLAS",                      \
                     cublasGetStatusString(cl_st_));                           \
    } while (0)

/** Check a cuDNN call. */
#define CUDNN_CHECK(expr)                                                      \
    do {                                                                       \
        cudnnStatus_t cl_st_ = (expr);                                         \
        if (cl_st_ != CUDNN_STATUS_SUCCESS)                                    \
            cl_fatal(__FILE__, __LINE__, #expr, "cuDNN",                       \
                     cudnnGetErrorString(cl_st_));                             \
    } while (0)

#endif /* CL_ERRCHECK_H */
