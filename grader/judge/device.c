/* device.c: the judge's own GPU state and memory helpers (device.h). */
#define _GNU_SOURCE
#include "judge/device.h"

#include "errcheck.h"
#include "fatal.h"
#include "judge/judge_gpu.h"
#include "gpuinfo.h"
#include "now.h"
#include "protocol/gate.h"
#include "timing.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* the judge's process-wide state: one lab per judge process */
static struct {
    int gpu;                /* the lab runs on the GPU */
    cudaStream_t s;         /* the judge's stream */
    struct cl_timer *timer; /* L2 flush */
    cudaEvent_t e0, e1;     /* timing on the judge's stream */
    cublasHandle_t blas;    /* created on first use */
    cudnnHandle_t dnn;      /* created on first use */
} J;

int cl_judge_init(int gpu, char *why, size_t len)
{
    /* the runners are waited for (and seen to stop, runner_ctl.c):
     * children must not be reaped behind our back, whatever SIGCHLD
     * disposition the grader was started with */
    signal(SIGCHLD, SIG_DFL);
    J.gpu = gpu;
    if (!gpu)
        return 0;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        cl_no_gpu_reason(e, why, len);
        cudaGetLastError();
        return -1;
    }
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreate(&J.s));
    CUDA_CHECK(cudaEventCreate(&J.e0));
    CUDA_CHECK(cudaEventCreate(&J.e1));
    J.timer = cl_timer_create(J.s);
    cl_judge_gpu_reserve();
    return 0;
}

void cl_judge_shutdown(void)
{
    if (!J.gpu)
        return;
    if (J.blas)
        cublasDestroy(J.blas);
    if (J.dnn)
        cudnnDestroy(J.dnn);
    cl_timer_destroy(J.timer);
    memset(&J, 0, sizeof J);
}

int cl_judge_gpu(void)
{
    return J.gpu;
}

cudaStream_t cl_judge_stream(void)
{
    return J.s;
}

void cl_judge_flush_l2(void)
{
    if (J.gpu)
        CUDA_CHECK(cl_timer_flush_l2(J.timer));
}

void *cl_judge_cublas(void)
{
    if (!J.blas) {
        CUBLAS_CHECK(cublasCreate(&J.blas));
        CUBLAS_CHECK(cublasSetMathMode(J.blas, CUBLAS_DEFAULT_MATH));
    }
    return J.blas;
}

void *cl_judge_cudnn(void)
{
    if (!J.dnn)
        CUDNN_CHECK(cudnnCreate(&J.dnn));
    return J.dnn;
}

double cl_judge_time(void (*run)(void *ctx), void *ctx)
{
    if (!J.gpu) {
        double t0 = cl_now_s();
        run(ctx);
        return (cl_now_s() - t0) * 1e3;
    }
    float ms = 0;
    CUDA_CHECK(cl_timer_flush_l2(J.timer));
    CUDA_CHECK(cl_gate(CL_GATE_US, J.s));
    CUDA_CHECK(cudaEventRecord(J.e0, J.s));
    run(ctx);
    CUDA_CHECK(cudaEventRecord(J.e1, J.s));
    CUDA_CHECK(cudaEventSynchronize(J.e1));
    CUDA_CHECK(cudaEventElapsedTime(&ms, J.e0, J.e1));
    return ms;
}

void *cl_judge_alloc(size_t bytes)
{
    void *p = NULL;
    if (J.gpu)
        CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    else
        p = cl_xcalloc(1, bytes ? bytes : 1);
    return p;
}

void cl_judge_free(void *p)
{
    if (!p)
        return;
    if (J.gpu)
        CUDA_CHECK(cudaFree(p));
    else
        free(p);
}

void cl_mem_set(void *p, int v, size_t n)
{
    if (!n)
        return;
    if (J.gpu)
        CUDA_CHECK(cudaMemsetAsync(p, v, n, J.s));
    else
        memset(p, v, n);
}

void cl_mem_copy(void *dst, const void *src, size_t n)
{
    if (!n)
        return;
    if (J.gpu)
        CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, J.s));
    else
        memcpy(dst, src, n);
}

void cl_mem_sync(void)
{
    if (J.gpu)
        CUDA_CHECK(cudaStreamSynchronize(J.s));
}

void cl_mem_read(void *dst, const void *src, size_t n)
{
    if (!n)
        return;
    if (J.gpu)
        CUDA_CHECK(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
    else
        memcpy(dst, src, n);
}

uint64_t cl_private_random(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (uint64_t)(cl_now_s() * 1e9) * 2654435761u ^ (uint64_t)getpid();
    return v;
}

/* ---- the other processes on the judge's GPU ---------------------------------
 * NVML, the driver's management library, as the driver ships it: loaded
 * when first asked, so that neither the build nor the CPU lab needs it,
 * and asked on a thread of its own, so that a driver that does not answer
 * costs the judge a wait once (NVML_OPEN_S the first time, when it loads
 * and looks at every GPU; NVML_WAIT_S after), never a hang. The few
 * declarations used, as nvml.h (a stable ABI) gives them. The process
 * list is _v2's, whose entries are 24 bytes on every driver (_v3's grew
 * to 32 on the R535 branch without a new name). */
typedef struct nvml_device *nvml_device_t;
struct nvml_process { /* nvmlProcessInfo_v2_t */
    unsigned int pid;
    unsigned long long used_bytes;
    unsigned int gpu_instance, compute_instance;
};
enum { NVML_OK = 0, NVML_TOO_SMALL = 7, NVML_MAX_PROCS = 256 };
#define NVML_OPEN_S 20
#define NVML_WAIT_S 5

static struct {
    pthread_once_t once; /* the condition variable, on the monotonic clock */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;  /* 0 idle, 1 asking, 2 answered, -1 no answer: off */
    int opened; /* nvml_open() ran (on the asking thread) */
    int ok;     /* NVML loaded and the device found */
    int (*processes)(nvml_device_t, unsigned int *, struct nvml_process *);
    nvml_device_t dev;
    char bus[32]; /* the judge's GPU, as cudaDeviceGetPCIBusId names it */
    unsigned int n;
    int rc;
    struct nvml_process p[NVML_MAX_PROCS];
} N = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

static void nvml_cv_init(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&N.cv, &a);
    pthread_condattr_destroy(&a);
}

static void nvml_open(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
    int (*by_bus)(const char *, nvml_device_t *) =
        (int (*)(const char *, nvml_device_t *))dlsym(
            h, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&N.processes =
        dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v2");
    /* the handle stays loaded: NVML may be half set up */
    N.ok = init && by_bus && N.processes && init() == NVML_OK &&
           by_bus(N.bus, &N.dev) == NVML_OK;
}

static void *nvml_ask(void *arg)
{
    (void)arg;
    if (!N.opened) {
        nvml_open();
        N.opened = 1;
    }
    unsigned int n = NVML_MAX_PROCS;
    int rc = N.ok ? N.processes(N.dev, &n, N.p) : -1;
    pthread_mutex_lock(&N.mu);
    N.n = n;
    N.rc = rc;
    if (N.state == 1)
        N.state = 2;
    pthread_cond_signal(&N.cv);
    pthread_mutex_unlock(&N.mu);
    return NULL;
}

int cl_judge_gpu_others(pid_t mine)
{
    if (!J.gpu)
        return -1;
    pthread_once(&N.once, nvml_cv_init);
    pthread_mutex_lock(&N.mu);
    int off = N.state < 0;
    pthread_mutex_unlock(&N.mu);
    if (off || (!N.bus[0] &&
                cudaDeviceGetPCIBusId(N.bus, sizeof N.bus, 0) != cudaSuccess)) {
        cudaGetLastError();
        return -1;
    }
    /* no thread of an earlier call runs now: joined, or off */
    int wait_s = N.opened ? NVML_WAIT_S : NVML_OPEN_S;
    N.state = 1;
    pthread_t t;
    if (pthread_create(&t, NULL, nvml_ask, NULL) != 0) {
        N.state = 0;
        return -1;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += wait_s;
    pthread_mutex_lock(&N.mu);
    while (N.state == 1 && pthread_cond_timedwait(&N.cv, &N.mu, &until) == 0)
        ;
    int answered = N.state == 2;
    N.state = answered ? 0 : -1; /* no answer: never asked again */
    unsigned int n = N.n;
    int rc = N.rc;
    pthread_mutex_unlock(&N.mu);
    if (!answered) {
        pthread_detach(t); /* it may still write N.p: never read again */
        return -1;
    }
    pthread_join(t, NULL);
    if (rc == NVML_TOO_SMALL)
        return NVML_MAX_PROCS; /* more than that: others, surely */
    if (rc != NVML_OK)
        return -1;
    int others = 0;
    pid_t self = getpid();
    for (unsigned int i = 0; i < n && i < NVML_MAX_PROCS; i++) {
        pid_t pid = (pid_t)N.p[i].pid;
        others += pid != 0 && pid != self && (!mine || pid != mine);
    }
    return others;
}
