/* test_release.c: what instructors publish, and the Makefile a new user
 * meets. The handout carries nothing of solutions/, no test fixture or
 * batch sample, no definition of an entry point outside the skeletons,
 * builds on its own, and there `make test` and `SOLUTION=1` say what they
 * cannot do; a solution release carries just the labs asked for; every
 * lab's skeleton and solution implement the same interface, and every TODO
 * marker points at a README section that exists. The Makefile's rough
 * edges: SOLUTION's values, make help, CC, NO_APT, cuDNN on Arm, odd file
 * names, no GPU. Runs `make` from the project root, as `make test` does. */
#define _GNU_SOURCE
#include "adamw.h"
#include "fileio.h"
#include "glue.h"
#include "grader.h"
#include "gru.h"
#include "refs.h"
#include "rng.h"
#include "seq2seq.h"
#include "symbols.h"

#include "shell.h"

#include <check.h>
#include <ctype.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif

/* run a shell command (make's jobserver stripped); its exit status */
static void version(char *buf, size_t len)
{
    char *v = cl_read_file("VERSION", NULL);
    ck_assert_ptr_nonnull(v);
    v[strcspn(v, "\n")] = '\0';
    snprintf(buf, len, "%s", v);
    free(v);
}

/* does @p text define the function @p name: NAME, its parameters in
 * balanced parentheses, then (past blanks and comments) a body? A
 * declaration ends in ';', a call in ';' or an operator. */
static int defines(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *q = p + n;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != '(')
            continue;
        for (int depth = 0; *q; q++)
            if (*q == '(')
                depth++;
            else if (*q == ')' && --depth == 0)
                break;
        if (!*q)
            continue;
        for (q++;;) {
            while (isspace((unsigned char)*q))
                q++;
            if (q[0] == '/' && q[1] == '/')
                q += strcspn(q, "\n");
            else if (q[0] == '/' && q[1] == '*' && strstr(q + 2, "*/"))
                q = strstr(q + 2, "*/") + 2;
            else
                break;
        }
        if (*q == '{')
            return 1;
    }
    return 0;
}

/* what the handout scan found */
static char scan_root[512], scan_found[4096];

/* nftw callback: a file of the handout that defines an entry point and is
 * not the lab's skeleton is noted in scan_found */
static int scan_file(const char *path, const struct stat *st, int type,
                     struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type != FTW_F)
        return 0;
    const char *rel = path + strlen(scan_root) + 1;
    size_t len = 0;
    char *text = cl_read_file(path, &len);
    if (!text || memchr(text, '\0', len)) { /* unreadable, or binary */
        free(text);
        return 0;
    }
    for (const struct cl_lab *const *l = cl_labs; *l; l++)
        if (strcmp(rel, (*l)->source) == 0) { /* a skeleton: allowed */
            free(text);
            return 0;
        }
    for (const struct cl_lab *const *l = cl_labs; *l; l++)
        for (const char *const *s = cl_glue_find((*l)->id)->entries; *s; s++)
            if (defines(text, *s)) {
                size_t u = strlen(scan_found);
                snprintf(scan_found + u, sizeof scan_found - u, "%s: %s\n", rel,
                         *s);
            }
    free(text);
    return 0;
}

/* every entry point the labs declare, as the issue lists them */
START_TEST(test_entry_points_and_scanner)
{
    static const char *const want[] = {"vector_add",
                                       "stencil_1d",
                                       "causal_conv1d",
                                       "matmul",
                                       "adamw_step",
                                       "gru_cell",
                                       "gru_workspace_size",
                                       "gru_forward",
                                       "seq2seq_workspace_size",
                                       "seq2seq_greedy",
                                       "seq2seq_forced",
                                       NULL};
    for (const char *const *w = want; *w; w++) {
        int found = 0;
        for (const struct cl_lab *const *l = cl_labs; *l; l++)
            for (const char *const *s = cl_glue_find((*l)->id)->entries; *s;
                 s++)
                found |= strcmp(*s, *w) == 0;
        ck_assert_msg(found, "no lab declares %s", *w);
    }
    /* the scanner sees definitions, not declarations or calls */
    ck_assert(defines("extern \"C\" void matmul(const float *a, int n)\n"
                      "/* the body */ {\n}",
                      "matmul"));
    ck_assert(defines("size_t gru_workspace_size(int (*f)(int)) { return 0; }",
                      "gru_workspace_size"));
    ck_assert(!defines("void matmul(const float *a, int n);", "matmul"));
    ck_assert(!defines("if (matmul(a, n)) { x(); }", "matmul"));
    ck_assert(!defines("void my_matmul(int n) {}", "matmul"));
    ck_assert(!defines("void matmul_tile(int n) {}", "matmul"));
    /* and finds the answers a maintainer's tree holds */
    if (access("grader/tests/fixtures/lab02/good.cuh", R_OK) == 0) {
        char *t = cl_read_file("grader/tests/fixtures/lab02/good.cuh", NULL);
        ck_assert(defines(t, "stencil_1d") || defines(t, "causal_conv1d"));
        free(t);
    }
}
END_TEST

START_TEST(test_handout_is_clean_and_builds)
{
    if (access("solutions", F_OK) != 0) {
        printf("skip: no solutions/ in a handout tree\n");
        return;
    }
    char dir[] = "/tmp/cl-handout-XXXXXX", ver[32], tgz[256], root[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    version(ver, sizeof ver);
    ck_assert_int_eq(sh("make -s handout DIST=%s >/dev/null", dir), 0);
    snprintf(tgz, sizeof tgz, "%s/cuda-labs-handout-%s.tar.gz", dir, ver);
    snprintf(root, sizeof root, "%s/cuda-labs-handout-%s", dir, ver);
    ck_assert_int_eq(access(tgz, R_OK), 0);
    /* no file of solutions/, no fixture, no batch sample, no test */
    ck_assert_int_ne(sh("tar -tzf %s | grep -q /solutions/", tgz), 0);
    ck_assert_int_ne(sh("tar -tzf %s | grep -E -q "
                        "\"/(grader|common)/tests/|/fixtures/|/batch/|"
                        "/compile-fail/\"",
                        tgz),
                     0);
    ck_assert_int_eq(sh("tar -xzf %s -C %s", tgz, dir), 0);
    ck_assert_int_eq(access("solutions", R_OK), 0); /* the source has them */
    char path[512];
    snprintf(path, sizeof path, "%s/labs/01-vector-add/vector_add.cu", root);
    ck_assert_int_eq(access(path, R_OK), 0);
    /* no entry point defined anywhere but in the skeletons */
    snprintf(scan_root, sizeof scan_root, "%s", root);
    scan_found[0] = '\0';
    ck_assert_int_eq(nftw(root, scan_file, 16, FTW_PHYS), 0);
    ck_assert_msg(scan_found[0] == '\0', "entry points defined in:\n%s",
                  scan_found);
    /* the scan reads the skeletons it skips: they are there */
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        snprintf(path, sizeof path, "%s/%s", root, (*l)->source);
        ck_assert_msg(access(path, R_OK) == 0, "no %s", path);
    }
    /* no symbol that only the solutions define (their kernels and
     * helpers, read from the built libraries), and the list is not empty */
    ck_assert_int_eq(
        sh("sh grader/tests/solution-symbols.sh \"$(ls " CL_BUILD_DIR
           "/solution/*.so)\" \"$(ls " CL_BUILD_DIR
           "/student/*.so)\" > %s/only.txt && test -s %s/only.txt",
           dir, dir),
        0);
    ck_assert_int_ne(sh("grep -rqwF -f %s/only.txt %s", dir, root), 0);
    /* it builds and the grader runs, with no solutions/ */
    ck_assert_int_eq(sh("make -s -C %s all >%s/build.log 2>&1", root, dir), 0);
    ck_assert_int_eq(sh("%s/build/bin/grade --list >/dev/null", root), 0);
    snprintf(path, sizeof path, "%s/build/solution", root);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* make test: a maintainer's command, said plainly, exit 0 */
    ck_assert_int_eq(sh("make -s -C %s test > %s/test.log 2>&1", root, dir), 0);
    ck_assert_int_eq(sh("grep -q \"maintainer's command\" %s/test.log", dir),
                     0);
    /* SOLUTION=1: no solutions here, said before anything is built */
    ck_assert_int_ne(sh("make -s -C %s grade LAB=01 SOLUTION=1 > %s/sol.log "
                        "2>&1",
                        root, dir),
                     0);
    ck_assert_int_eq(sh("grep -q \"not part of the handout\" %s/sol.log && "
                        "! grep -q nvcc %s/sol.log",
                        dir, dir),
                     0);
    /* make check: the skeleton compiles warning-free (host and device);
     * the static checks pass once the grader has them (--check) */
    int has_check =
        sh(CL_BUILD_DIR "/bin/grade --help | grep -q -- --check") == 0;
    int rc = sh("make -s -C %s check LAB=01 > %s/check.log 2>&1", root, dir);
    ck_assert_int_eq(sh("grep -q \"## 01-vector-add\" %s/check.log", dir), 0);
    ck_assert_int_ne(
        sh("grep -q \"error\" %s/check.log", dir) == 0 && has_check, 1);
    if (has_check)
        ck_assert_int_eq(rc, 0);
    /* a device-side warning fails it */
    ck_assert_int_eq(sh("printf \"\\n__global__ void cl_k(float *x) "
                        "{ int unused = 1; }\\n\" >> "
                        "%s/labs/01-vector-add/vector_add.cu",
                        root),
                     0);
    ck_assert_int_ne(
        sh("make -s -C %s check LAB=01 > %s/check2.log 2>&1", root, dir), 0);
    ck_assert_int_eq(sh("grep -q \"unused\" %s/check2.log", dir), 0);
    sh("rm -rf %s", dir);
}
END_TEST

/* the rough edges of the Makefile a new user meets */
START_TEST(test_make_rough_edges)
{
    char dir[] = "/tmp/cl-make-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* SOLUTION is 0 or 1 */
    const char *bad[] = {"2", "yes"};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(sh("make -s grade LAB=01 SOLUTION=%s > %s/sol.log "
                            "2>&1",
                            bad[i], dir),
                         2);
        ck_assert_int_eq(sh("grep -q \"SOLUTION=%s: use SOLUTION=1\" "
                            "%s/sol.log",
                            bad[i], dir),
                         0);
    }
    /* make help: the user-facing targets, the variables, the exit codes */
    ck_assert_int_eq(sh("make -s help > %s/help.log", dir), 0);
    const char *targets[] = {"grade",   "check",       "test",
                             "bench",   "demo",        "memcheck",
                             "profile", "grade-class", "grade-class-slurm",
                             "handout", "autograder",  "help",
                             "clean",   NULL};
    for (const char *const *t = targets; *t; t++)
        ck_assert_msg(
            sh("grep -Eq \"^  %s +[a-zA-Z(]\" %s/help.log", *t, dir) == 0,
            "make help lacks %s", *t);
    ck_assert_int_eq(sh("grep -q \"3 no GPU\" %s/help.log && grep -q "
                        "\"SOLUTION (0 or 1)\" %s/help.log",
                        dir, dir),
                     0);
    /* CC: the environment's or the command line's, else gcc (not make's
     * own cc) */
    ck_assert_int_eq(sh("env -u CC make -p -n info 2>/dev/null | grep -qx "
                        "\"CC := gcc\""),
                     0);
    ck_assert_int_eq(sh("CC=clang make -p -n info 2>/dev/null | grep -qx "
                        "\"CC = clang\""),
                     0);
    ck_assert_int_eq(sh("make -p -n info CC=clang 2>/dev/null | grep -qx "
                        "\"CC = clang\""),
                     0);
    /* NO_APT=1: the packages are named, apt-get is not run */
    ck_assert_int_ne(
        sh("make -s deps NO_APT=1 CC=false > %s/deps.log 2>&1", dir), 0);
    ck_assert_int_eq(sh("grep -q \"sudo apt-get install check\" %s/deps.log "
                        "&& ! grep -q \"running, as root\" %s/deps.log",
                        dir, dir),
                     0);
    /* cuDNN under an Arm server's toolkit (targets/sbsa-linux) */
    ck_assert_int_eq(
        sh("mkdir -p %s/cuda/targets/sbsa-linux/include "
           "%s/cuda/targets/sbsa-linux/lib && touch "
           "%s/cuda/targets/sbsa-linux/include/cudnn.h "
           "%s/cuda/targets/sbsa-linux/lib/libcudnn.so && "
           "make -s info CUDA_HOME=%s/cuda 2>/dev/null | grep -q \"include "
           "%s/cuda/targets/sbsa-linux/include, library "
           "%s/cuda/targets/sbsa-linux/lib/libcudnn.so\"",
           dir, dir, dir, dir, dir, dir, dir),
        0);
    /* build-submission: spaces, quotes and letters in the file's and the
     * output's names, passed in the environment as the batch does */
    ck_assert_int_eq(
        sh("mkdir -p \"%s/o'k \\\"dïr\\\"\" && cp grader/tests/batch/alice.cu "
           "\"%s/it's a lab.cu\" && SRC=\"%s/it's a lab.cu\" "
           "SO=\"%s/o'k \\\"dïr\\\"/l b.so\" make -s build-submission "
           "LABDIR=01-vector-add && test -s \"%s/o'k \\\"dïr\\\"/l b.so\"",
           dir, dir, dir, dir, dir),
        0);
    /* make autograder needs a lab */
    ck_assert_int_ne(sh("make -s autograder > /dev/null 2>&1"), 0);
    /* without a GPU: make bench says so and fails; make grade of every
     * lab says it once */
    if (sh("nvidia-smi -L > /dev/null 2>&1") != 0) {
        ck_assert_int_ne(sh("make -s bench LAB=01 > %s/bench.log 2>&1", dir),
                         0);
        ck_assert_int_eq(
            sh("grep -q \"nothing was timed (the grader exited 3)\" "
               "%s/bench.log && ! grep -q insufficient %s/bench.log && ! grep "
               "-q "
               "\"^|\" %s/bench.log",
               dir, dir, dir),
            0);
        ck_assert_int_ne(sh("make -s grade > %s/grade.log 2>&1", dir), 0);
        ck_assert_int_eq(
            sh("test $(grep -c \"nothing graded (exit 3)\" %s/grade.log) = 1",
               dir),
            0);
        /* no driver at all: said in those words, in both */
        if (access("/proc/driver/nvidia/version", F_OK) != 0)
            ck_assert_int_eq(sh("grep -q \"bench: no NVIDIA driver or GPU "
                                "found: nothing was timed\" %s/bench.log && "
                                "grep -q \"no NVIDIA driver or GPU found\" "
                                "%s/grade.log",
                                dir, dir),
                             0);
    }
    sh("rm -rf %s", dir);
}
END_TEST

START_TEST(test_release_solutions_one_lab)
{
    if (access("solutions", F_OK) != 0) {
        printf("skip: no solutions/ in a handout tree\n");
        return;
    }
    char dir[] = "/tmp/cl-release-XXXXXX", ver[32], tgz[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    version(ver, sizeof ver);
    ck_assert_int_eq(
        sh("make -s release-solutions LAB=03 DIST=%s >/dev/null", dir), 0);
    snprintf(tgz, sizeof tgz, "%s/cuda-labs-solutions-%s-03.tar.gz", dir, ver);
    ck_assert_int_eq(
        sh("tar -tzf %s | grep -q solutions/03-matmul/matmul.cu", tgz), 0);
    ck_assert_int_eq(
        sh("tar -tzf %s | grep -q solutions/03-matmul/LADDER", tgz), 0);
    ck_assert_int_eq(sh("tar -tzf %s | grep -q docs/performance.md", tgz), 0);
    ck_assert_int_ne(sh("tar -tzf %s | grep -q solutions/01-", tgz), 0);
    /* all labs when none is named */
    ck_assert_int_eq(sh("make -s release-solutions DIST=%s >/dev/null", dir),
                     0);
    snprintf(tgz, sizeof tgz, "%s/cuda-labs-solutions-%s.tar.gz", dir, ver);
    for (const struct cl_lab *const *l = cl_labs; *l; l++)
        ck_assert_int_eq(sh("tar -tzf %s | grep -q solutions/%s-%s/", tgz,
                            (*l)->id, (*l)->slug),
                         0);
    /* an unknown lab is an error */
    ck_assert_int_ne(
        sh("make -s release-solutions LAB=99 DIST=%s >/dev/null 2>&1", dir), 0);
    sh("rm -rf %s", dir);
}
END_TEST

/* every TODO(labN) carries [README: "title"], and that heading exists */
START_TEST(test_todo_markers_point_to_readme)
{
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        const struct cl_lab *lab = *l;
        char readme[256];
        snprintf(readme, sizeof readme, "labs/%s-%s/README.md", lab->id,
                 lab->slug);
        char *src = cl_read_file(lab->source, NULL);
        char *doc = cl_read_file(readme, NULL);
        ck_assert_ptr_nonnull(src);
        ck_assert_ptr_nonnull(doc);
        int markers = 0;
        for (char *p = strstr(src, lab->todo); p;
             p = strstr(p + 1, lab->todo)) {
            markers++;
            char *ref = strstr(p, "[README: \"");
            char *next = strstr(p + 1, lab->todo);
            ck_assert_msg(ref && (!next || ref < next),
                          "%s: a %s marker without [README: \"...\"]",
                          lab->source, lab->todo);
            ref += strlen("[README: \"");
            char *end = strstr(ref, "\"]");
            ck_assert_ptr_nonnull(end);
            char title[160], heading[200];
            snprintf(title, sizeof title, "%.*s", (int)(end - ref), ref);
            snprintf(heading, sizeof heading, "## %s\n", title);
            ck_assert_msg(strstr(doc, heading) != NULL,
                          "%s points at \"%s\", which %s lacks", lab->source,
                          title, readme);
        }
        ck_assert_msg(markers >= 2, "%s: %d markers", lab->source, markers);
        free(src);
        free(doc);
    }
}
END_TEST

/* the skeleton and the solution both define the interface's entry points */
START_TEST(test_skeleton_and_solution_interface)
{
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        const struct cl_lab *lab = *l;
        const char *variants[] = {"student", "solution"};
        for (int v = 0; v < 2; v++) {
            char path[256], err[256];
            snprintf(path, sizeof path, CL_BUILD_DIR "/%s/%s-%s.so",
                     variants[v], lab->id, lab->slug);
            if (v == 1 && access("solutions", F_OK) != 0)
                continue; /* a handout tree */
            struct cl_symtab t;
            ck_assert_msg(cl_symtab_read(path, &t, err, sizeof err) == 0, "%s",
                          err);
            const char *const *entries = cl_glue_find(lab->id)->entries;
            for (const char *const *s = entries; *s; s++)
                ck_assert_msg(cl_symtab_defines(&t, *s), "%s lacks %s", path,
                              *s);
            char why[512] = "";
            ck_assert_msg(cl_caps_check(lab->caps, entries, &t, why,
                                        sizeof why) == CL_CAPS_OK,
                          "%s: %s", path, why);
            cl_symtab_free(&t);
        }
    }
}
END_TEST

/* tools/peers.py passes the labs' structs to their libraries through
 * ctypes: its layouts must be the C compiler's, and its copy of Lab 4's
 * tensor lists the grader's */
START_TEST(test_peers_layouts_match_the_headers)
{
    if (sh("command -v python3 >/dev/null") != 0) {
        printf("skip: no python3\n");
        return;
    }
    char want[4096];
    size_t used = 0;
#define LINE(...)                                                              \
    used += (size_t)snprintf(want + used, sizeof want - used, __VA_ARGS__)
#define STRUCT(s)   LINE(#s " %zu\n", sizeof(struct s))
#define FIELD(s, f) LINE(#s "." #f " %zu\n", offsetof(struct s, f))
    STRUCT(adamw_tensor);
    FIELD(adamw_tensor, param);
    FIELD(adamw_tensor, grad);
    FIELD(adamw_tensor, exp_avg);
    FIELD(adamw_tensor, exp_avg_sq);
    FIELD(adamw_tensor, n);
    STRUCT(adamw_hparams);
    FIELD(adamw_hparams, lr);
    FIELD(adamw_hparams, beta1);
    FIELD(adamw_hparams, beta2);
    FIELD(adamw_hparams, eps);
    FIELD(adamw_hparams, weight_decay);
    FIELD(adamw_hparams, step);
    STRUCT(gru_weights);
    FIELD(gru_weights, w_ih);
    FIELD(gru_weights, w_hh);
    FIELD(gru_weights, b_ih);
    FIELD(gru_weights, b_hh);
    STRUCT(seq2seq_gru);
    FIELD(seq2seq_gru, w_ih);
    FIELD(seq2seq_gru, w_hh);
    FIELD(seq2seq_gru, b_ih);
    FIELD(seq2seq_gru, b_hh);
    STRUCT(seq2seq_model);
    FIELD(seq2seq_model, v_src);
    FIELD(seq2seq_model, v_tgt);
    FIELD(seq2seq_model, emb);
    FIELD(seq2seq_model, hid);
    FIELD(seq2seq_model, enc_emb);
    FIELD(seq2seq_model, enc);
    FIELD(seq2seq_model, dec_emb);
    FIELD(seq2seq_model, dec);
    FIELD(seq2seq_model, fc_w);
    FIELD(seq2seq_model, fc_b);
    /* the 1000-small and gpt2-small lists of grader/labs/adamw.c */
    long long sum = 0, sizes[256];
    for (int i = 0; i < 1000; i++)
        sum += 1 + (long long)(cl_mix64(0x5eed0000ULL + (uint64_t)i) % 10000);
    LINE("adamw_sizes.small 1000 %lld\n", sum);
    int n = adamw_gpt2_sizes(sizes, 256);
    sum = 0;
    for (int i = 0; i < n; i++)
        sum += sizes[i];
    LINE("adamw_sizes.gpt2 %d %lld\n", n, sum);
#undef FIELD
#undef STRUCT
#undef LINE
    char path[] = "/tmp/cl-peers-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(sh("python3 tools/peers.py --layouts > %s", path), 0);
    char *got = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, want);
    free(got);
    /* without PyTorch it says so and exits 9 (a GPU host with it: skip) */
    if (sh("python3 -c \"import torch\" >/dev/null 2>&1") != 0)
        ck_assert_int_eq(sh("python3 tools/peers.py --lab 01 --out %s.d "
                            ">/dev/null 2>&1",
                            path),
                         9);
    sh("rm -rf %s %s.d", path, path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("release");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 900);
    tcase_add_test(core, test_todo_markers_point_to_readme);
    tcase_add_test(core, test_entry_points_and_scanner);
    tcase_add_test(core, test_make_rough_edges);
    tcase_add_test(core, test_skeleton_and_solution_interface);
    tcase_add_test(core, test_peers_layouts_match_the_headers);
    tcase_add_test(core, test_release_solutions_one_lab);
    tcase_add_test(core, test_handout_is_clean_and_builds);
    suite_add_tcase(s, core);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}
