/* grade_proc.h: run the grader's binary from a test suite, as a user
 * does: its own process group, stdout and stderr captured apart, an extra
 * environment, a time limit, and results.json read back with cJSON.
 * Test code only; the suites run from the project root. */
#ifndef CL_TEST_GRADE_PROC_H
#define CL_TEST_GRADE_PROC_H

#include "fileio.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define GRADE_BIN CL_BUILD_DIR "/bin/grade"

/** What one run of the grader left. */
struct grade_proc {
    int rc;              /* exit status; -1 when killed (timed out) */
    int timed_out;       /* killed after the time limit */
    double wall_s;       /* how long it ran */
    char *out, *err;     /* its stdout and stderr (malloc'd, never NULL) */
    char *json_text;     /* the results file, or NULL when none was written */
    cJSON *json;         /* parsed, or NULL */
    char dir[64];        /* a private directory, for results.json and logs */
    char json_path[128]; /* DIR/results.json: pass it as --json */
};

static inline double grade_proc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* a private directory for one run; 0 on success */
static inline int grade_proc_init(struct grade_proc *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "/tmp/cl-gp-XXXXXX");
    if (!mkdtemp(p->dir))
        return -1;
    snprintf(p->json_path, sizeof p->json_path, "%s/results.json", p->dir);
    return 0;
}

/* read a file into a malloc'd string; "" when there is none */
static inline char *grade_proc_slurp(const char *path)
{
    char *s = cl_read_file(path, NULL);
    return s ? s : strdup("");
}

/*
 * Run GRADE_BIN with @p args (NULL-terminated, without argv[0]) and the
 * extra environment @p env ("NAME=value" strings, NULL-terminated; may be
 * NULL), for at most @p timeout_s seconds: after that its whole process
 * group is killed. Fills @p p (which grade_proc_init() prepared); returns
 * 0, or -1 when it could not start.
 */
static inline int grade_proc_run(struct grade_proc *p, const char *const *args,
                                 const char *const *env, double timeout_s)
{
    char out[160], err[160];
    snprintf(out, sizeof out, "%s/stdout", p->dir);
    snprintf(err, sizeof err, "%s/stderr", p->dir);
    const char *argv[64];
    int n = 0;
    argv[n++] = GRADE_BIN;
    for (int i = 0; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    fflush(NULL);
    double t0 = grade_proc_now();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        int in = open("/dev/null", O_RDONLY);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 ||
            dup2(e, 2) < 0)
            _exit(126);
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(GRADE_BIN, (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid); /* either side may win the race: both set it */
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        if (grade_proc_now() - t0 > timeout_s) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            p->timed_out = 1;
            break;
        }
        usleep(20000);
    }
    p->wall_s = grade_proc_now() - t0;
    p->rc = WIFEXITED(st) && !p->timed_out ? WEXITSTATUS(st) : -1;
    p->out = grade_proc_slurp(out);
    p->err = grade_proc_slurp(err);
    p->json_text = cl_read_file(p->json_path, NULL);
    p->json = p->json_text ? cJSON_Parse(p->json_text) : NULL;
    return 0;
}

/* free what a run left and remove its directory */
static inline void grade_proc_free(struct grade_proc *p)
{
    static const char *const files[] = {"stdout", "stderr", "results.json",
                                        NULL};
    char path[192];
    for (int i = 0; files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", p->dir, files[i]);
        unlink(path);
    }
    if (p->dir[0])
        rmdir(p->dir);
    free(p->out);
    free(p->err);
    free(p->json_text);
    cJSON_Delete(p->json);
    memset(p, 0, sizeof *p);
}

/* a string member of @p o, or NULL */
static inline const char *json_str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* a number member of @p o, or NAN */
static inline double json_num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : (double)NAN;
}

/* how many times @p needle occurs in @p hay */
static inline int count_of(const char *hay, const char *needle)
{
    int n = 0;
    size_t k = strlen(needle);
    for (const char *p = strstr(hay, needle); p && k; p = strstr(p + k, needle))
        n++;
    return n;
}

#endif /* CL_TEST_GRADE_PROC_H */
