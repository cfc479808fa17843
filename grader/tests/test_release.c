/* test_release.c: what instructors publish. The handout carries nothing of
 * solutions/ and builds on its own; a solution release carries just the
 * labs asked for; every lab's skeleton and solution implement the same
 * interface, and every TODO marker points at a README section that exists.
 * Runs `make` from the project root, as `make test` does. */
#define _GNU_SOURCE
#include "adamw.h"
#include "fileio.h"
#include "grader.h"
#include "gru.h"
#include "refs.h"
#include "rng.h"
#include "seq2seq.h"
#include "symbols.h"

#include "shell.h"

#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    /* no file of solutions/ */
    ck_assert_int_ne(sh("tar -tzf %s | grep -q /solutions/", tgz), 0);
    ck_assert_int_eq(sh("tar -xzf %s -C %s", tgz, dir), 0);
    ck_assert_int_eq(access("solutions", R_OK), 0); /* the source has them */
    char path[512];
    snprintf(path, sizeof path, "%s/labs/01-vector-add/vector_add.cu", root);
    ck_assert_int_eq(access(path, R_OK), 0);
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
            for (const char *const *s = lab->symbols; *s; s++)
                ck_assert_msg(cl_symtab_defines(&t, *s), "%s lacks %s", path,
                              *s);
            ck_assert_ptr_null(cl_symtab_forbidden(&t, lab->forbidden));
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
