/**
 * @file proto.h
 * @brief The messages between the judge and the runner.
 *
 * The judge (the process that decides) and the runner (the sandboxed
 * process that runs the student's code) talk over a Unix socket pair. Each
 * message is a fixed header and a payload of at most CL_MSG_MAX bytes. The
 * judge never trusts what the runner sends: every reply is checked for its
 * type, its size and the ranges of its fields (cl_msg_recv() and the
 * judge's own checks), and nothing the runner says decides a grade on its
 * own (docs/grading.md, "Threat model").
 */
#ifndef CL_PROTOCOL_PROTO_H
#define CL_PROTOCOL_PROTO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_MSG_MAGIC 0x434c5232u /**< "CLR2" */
#define CL_MSG_MAX   65536       /**< payload bytes, at most */
#define CL_MAX_BUFS  24          /**< buffers of one case, at most */
#define CL_ARG_MAX   256         /**< bytes of a lab's case struct, at most */
#define CL_TRACE_MAX 24          /**< distinct launches kept per call */
#define CL_NAME_MAX  112         /**< bytes of a kernel's name kept */
#define CL_RUNNER_FD 3           /**< the socket, in the runner */
#define CL_SUBMIT_FD 4           /**< the submission (a sealed memfd) */

/** Message types: J_ from the judge, R_ from the runner. */
enum cl_msg_type {
    R_HELLO = 1, /**< the runner is up (CUDA too, for GPU labs) */
    J_MAP,       /**< map these buffers (IPC handles, or memfds) */
    R_MAPPED,    /**< mapped, or why not */
    J_DRY,       /**< one call's timing frame with no student call */
    J_LOAD,      /**< sandbox, then load the submission */
    R_LOADED,    /**< loaded (entry points found), or why not */
    J_QUERY,     /**< ask the submission's size function */
    R_QUERY,     /**< its answer */
    J_CALL,      /**< call the student's entry point once */
    R_CALL,      /**< how the call ended, its time and trace */
    J_EXIT,      /**< finish */
    J_ALLOC,     /**< GPU labs: allocate these buffers, export them */
    R_ALLOCATED, /**< their IPC handles (n = -1: it could not) */
    R_SIGSYS     /**< sent by the runner's SIGSYS handler as it dies: the
                      system call the sandbox trapped (struct cl_sigsys) */
};

/** Every message starts with this. */
struct cl_msg_head {
    uint32_t magic; /**< CL_MSG_MAGIC */
    uint32_t type;  /**< enum cl_msg_type */
    uint32_t len;   /**< payload bytes that follow */
    uint32_t seq;   /**< the judge's command number, echoed in the reply */
};

/** R_HELLO. */
struct cl_hello {
    int32_t ok;        /**< 1: ready; 0: see why */
    int32_t pid;       /**< the runner's pid */
    int32_t uid;       /**< the uid it runs as */
    int32_t sandboxed; /**< the sandbox steps it took (CL_SBX_* bits) */
    char why[512];     /**< when !ok: what failed */
    char sandbox[256]; /**< what the sandbox did, for the report */
};

/** R_SIGSYS: the trapped call, as the kernel named it to the handler. */
struct cl_sigsys {
    int32_t nr;    /**< the system call's number */
    uint32_t arch; /**< its AUDIT_ARCH_* */
};

/** One buffer for J_MAP. */
struct cl_map_buf {
    uint8_t handle[64]; /**< cudaIpcMemHandle_t (GPU); unused (CPU) */
    int32_t index;      /**< its place in the plan's order */
    int32_t pad;        /**< zero */
    uint64_t alloc;     /**< bytes of the whole allocation */
    uint64_t at;        /**< the student's pointer is base + at */
    uint64_t bytes;     /**< usable bytes at that pointer */
};

/** J_MAP (the CPU lab: the judge's memfds travel with the message, in
 *  order) and J_ALLOC / R_ALLOCATED (GPU labs: the runner allocates its
 *  buffers, so that the student's kernels touch memory of their own
 *  process, and the judge maps them through the handles). */
struct cl_map {
    int32_t n;                        /**< buffers in this message */
    int32_t total;                    /**< buffers of the case */
    struct cl_map_buf b[CL_MAX_BUFS]; /**< in the plan's order */
};

/** J_CALL, J_QUERY and J_DRY. */
struct cl_call_cmd {
    int32_t lab_call;        /**< which of the lab's calls (0: the main one) */
    int32_t gate_us;         /**< a busy kernel this long before the call */
    int32_t profile;         /**< bracket the call for a profiler */
    int32_t trace;           /**< record the call's launches (CUPTI) */
    int32_t arg_len;         /**< bytes used in arg */
    int64_t tag;             /**< per call (Lab 4: the step number) */
    uint8_t arg[CL_ARG_MAX]; /**< the lab's case struct */
};

/** Which stream a traced launch ran on. */
enum cl_stream_class {
    CL_ON_STREAM = 0, /**< the stream handed to the student */
    CL_ON_LEGACY = 1, /**< the legacy default stream (ordered with it) */
    CL_ON_OTHER = 2   /**< any other stream: outside the timed window */
};

/** One traced launch (kernels of one name and shape, summed). */
struct cl_trace_rec {
    char name[CL_NAME_MAX]; /**< kernel name (mangled), "memcpy", ... */
    int32_t kind;           /**< 0 kernel, 1 memcpy, 2 memset */
    int32_t stream;         /**< enum cl_stream_class */
    int32_t grid[3];        /**< grid of the launch */
    int32_t block[3];       /**< block of the launch */
    int32_t count;          /**< launches summed here */
    double ms;              /**< their GPU time */
    double bytes;           /**< bytes (copies, sets) */
};

/** The trace of one call. */
struct cl_trace {
    int32_t on;                            /**< the trace ran */
    int32_t n;                             /**< records used */
    int32_t dropped;                       /**< launches not kept in rec[] */
    int32_t launches;                      /**< all launches of the call */
    int32_t off_stream;                    /**< of those, on another stream */
    double busy_ms;                        /**< union of their GPU intervals */
    struct cl_trace_rec rec[CL_TRACE_MAX]; /**< the launches */
};

/** R_CALL, R_QUERY, R_LOADED, R_MAPPED. */
struct cl_reply {
    int32_t ok;            /**< 1: the step worked */
    int32_t cuda_err;      /**< cudaError_t of the call (0: none) */
    int32_t sticky;        /**< the error left the context unusable */
    char err_name[64];     /**< cudaGetErrorName */
    char why[448];         /**< the error or failure, for the student */
    double span_ms;        /**< event time of the call (J_CALL, J_DRY) */
    uint64_t value;        /**< J_QUERY's answer */
    double host_ms[3];     /**< J_CALL, J_DRY: the runner's own clock from
                                the command to the gate queued, the call
                                returned, the GPU synchronized; shown with
                                CL_TIMING_DETAIL, never scored */
    struct cl_trace trace; /**< J_CALL */
};

/** The steps a sandbox took (bits of struct cl_hello's sandboxed). */
enum cl_sandbox_step {
    CL_SBX_SESSION = 1 << 0,  /**< its own session and process group */
    CL_SBX_USER = 1 << 1,     /**< an unprivileged user (from root) */
    CL_SBX_LIMITS = 1 << 2,   /**< CPU, file size, core and process limits */
    CL_SBX_ENV = 1 << 3,      /**< an emptied environment, cwd / */
    CL_SBX_SECCOMP1 = 1 << 4, /**< the first seccomp stage (load) */
    CL_SBX_SECCOMP2 = 1 << 5, /**< the second stage (no files at all) */
    CL_SBX_PDEATH = 1 << 6,   /**< dies with the judge */
    CL_SBX_FILES = 1 << 7,    /**< reads only what CUDA needs (Landlock) */
    CL_SBX_JAIL = 1 << 8      /**< a mount namespace of its own, holding
                                   the system's libraries and devices only */
};

/** A short description of @p bits, e.g. "session, user nobody, limits,
 *  seccomp" into @p buf. */
void cl_sandbox_describe(int bits, int uid, char *buf, size_t len);

/**
 * Send a message of @p type with @p len bytes at @p p, and @p nfds file
 * descriptors (SCM_RIGHTS; may be 0). Returns 0, or -1 on a broken socket.
 */
int cl_msg_send(int fd, uint32_t type, uint32_t seq, const void *p,
                uint32_t len, const int *fds, int nfds);

/**
 * Wait until @p fd is readable, hung up or in error, until @p deadline
 * (cl_now_s() time; 0: none), or until *@p stop is set (NULL: never; it is
 * read before each wait, and a signal handler that sets it ends a wait by
 * interrupting it). Meanwhile, whenever @p extra (may be -1) is readable or
 * hung up, @p on_extra (may be NULL) is called for it and the wait goes on.
 * Returns 0 ready; 2 at the deadline; 3 stopped; -1 when poll() failed.
 * The one wait with a deadline of the judge and the runner.
 */
int cl_wait_readable(int fd, double deadline, const volatile sig_atomic_t *stop,
                     int extra, void (*on_extra)(int fd, void *ctx), void *ctx);

/**
 * Receive one message within @p timeout_s (0: wait for ever) into @p p
 * (room for @p cap bytes). Its type goes to *type, its length to *len;
 * received descriptors (at most @p maxfds) to @p fds, their count to
 * *nfds (fds may be NULL when none are expected: any that arrive are
 * closed). Returns 0; 1 at end of file; 2 on timeout; -1 on a malformed
 * message or error. @p poll_extra (may be -1) is another descriptor that
 * @p on_extra is called for whenever it is readable while waiting.
 */
int cl_msg_recv(int fd, uint32_t *type, uint32_t *seq, void *p, uint32_t cap,
                uint32_t *len, int *fds, int maxfds, int *nfds,
                double timeout_s, int poll_extra,
                void (*on_extra)(int fd, void *ctx), void *extra_ctx);

#ifdef __cplusplus
}
#endif

#endif /* CL_PROTOCOL_PROTO_H */
