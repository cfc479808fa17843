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
#include "04-multi-tensor-apply/adamw.h"
#include "fileio.h"
#include "protocol/glue.h"
#include "parent/grade.h"
#include "05-gru/gru.h"
#include "specs/refs.h"
#include "rng.h"
#include "06-seq2seq/seq2seq.h"
#include "parent/symbols.h"

#include "tests/ladder.h"
#include "tests/shell.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <cjson/cJSON.h>

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

/* what the handout scan found: the first few, then a count (a failure's
 * message must stay within Check's limit) */
static char scan_root[512], scan_found[1024];
static int scan_more;

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
        for (const char *const *s = cl_lab_entries((*l)->id); *s; s++)
            if (defines(text, *s)) {
                size_t u = strlen(scan_found);
                if (u + strlen(rel) + strlen(*s) + 4 < sizeof scan_found)
                    snprintf(scan_found + u, sizeof scan_found - u, "%s: %s\n",
                             rel, *s);
                else
                    scan_more++;
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
            for (const char *const *s = cl_lab_entries((*l)->id); *s; s++)
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

/* the "run: |" block of the workflow's grading step, as a script */
/* an executable shell script DIR/NAME (a stand-in for a program the
 * project calls), its text printf-style; its path into path */
static void stand_in(char *path, size_t len, const char *dir, const char *name,
                     const char *fmt, ...)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

static void classroom_script(const char *yml, const char *script)
{
    ck_assert_int_eq(
        sh("awk '/^ *run: [|]$/ { ind = index($0, \"r\") - 1; on = 1; next } "
           "on { if ($0 == \"\" || match($0, /^ */) && RLENGTH > ind) print "
           "substr($0, ind + 3); else on = 0 }' %s > %s && test -s %s",
           yml, script, script),
        0);
}

/* the base64 result the step left in GITHUB_OUTPUT, decoded (the caller
 * frees) */
static cJSON *classroom_output(const char *dir)
{
    ck_assert_int_eq(sh("test $(grep -c ^result= %s/gh.out) = 1 && sed -n "
                        "s/^result=//p %s/gh.out | base64 -d > %s/gh.json",
                        dir, dir, dir),
                     0);
    char path[300];
    snprintf(path, sizeof path, "%s/gh.json", dir);
    char *text = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *j = cJSON_Parse(text);
    free(text);
    ck_assert_msg(cJSON_IsObject(j), "not a result");
    return j;
}

/* run the handout's Classroom step in @p root (lab 01); with @p broken the
 * lab does not compile: 0 of 100, the compiler's line in the message */
static void classroom_step(const char *root, const char *dir, int broken)
{
    char yml[300], script[300];
    snprintf(yml, sizeof yml, "%s/.github/workflows/classroom.yml", root);
    snprintf(script, sizeof script, "%s/classroom.sh", dir);
    classroom_script(yml, script);
    if (broken)
        ck_assert_int_eq(sh("cd %s/labs/01-vector-add && cp vector_add.cu "
                            "%s/keep.cu && echo \"this is no C\" >> "
                            "vector_add.cu",
                            root, dir),
                         0);
    ck_assert_int_eq(sh("cd %s && rm -f %s/gh.out && LAB=01 NO_APT=1 "
                        "GITHUB_OUTPUT=%s/gh.out bash -e %s > %s/gh.log 2>&1",
                        root, dir, dir, script, dir),
                     0);
    cJSON *j = classroom_output(dir);
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tests"), 0);
    const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(j, "status"));
    double max = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "max_score"));
    ck_assert_ptr_nonnull(t);
    if (broken) {
        ck_assert_str_eq(st, "fail");
        ck_assert_double_eq(max, 100);
        ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")),
                         "compile-error");
        ck_assert_ptr_nonnull(strstr(
            cJSON_GetStringValue(cJSON_GetObjectItem(t, "message")), "error"));
        ck_assert_int_eq(
            sh("cp %s/keep.cu %s/labs/01-vector-add/vector_add.cu", dir, root),
            0);
    } else if (strcmp(st, "error") == 0) { /* no GPU: no score at all */
        ck_assert_double_eq(max, 0);
        ck_assert_ptr_nonnull(strstr(
            cJSON_GetStringValue(cJSON_GetObjectItem(t, "message")), "GPU"));
    } else { /* graded: the skeleton computes nothing */
        ck_assert_str_eq(st, "fail");
        ck_assert_double_eq(max, 100);
    }
    cJSON_Delete(j);
}

START_TEST(test_handout_is_clean_and_builds)
{
    if (access("solutions", F_OK) != 0) {
        printf("skip: no solutions/ in a handout tree\n");
        return;
    }
    /* a tree with files git does not track yet in the shipped folders (a
     * developer's new files, or a copy whose .git is older than its files)
     * is one make handout refuses, as it should: tested on a clean tree
     * (CI's clone), said here */
    if (sh("git rev-parse --git-dir >/dev/null 2>&1 && git ls-files --others "
           "--exclude-standard -- labs common grader tools docs | grep -v -E "
           "'^(grader/tests/|common/tests/)' | grep -q .") == 0) {
        printf("skip: the handout test: files git does not track in the "
               "shipped folders (git status names them); it runs on a "
               "clean tree\n");
        return;
    }
    char dir[] = "/tmp/cl-handout-XXXXXX", ver[32], tgz[256], root[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    version(ver, sizeof ver);
    /* the handout is built as a student builds it: sh() drops the make
     * variables of the make that runs this suite, and this drops the one
     * make exports (SANITIZE=1 would move the handout's build) */
    unsetenv("SANITIZE");
    /* (an untracked file in the shipped folders refuses it: named on
     * stderr, which the test's log shows; a developer's edits not yet
     * committed are packed as they are: EDITS=1) */
    ck_assert_msg(
        sh("make -s handout DIST=%s CLASSROOM=01 EDITS=1 >/dev/null", dir) == 0,
        "make handout failed (its reason is above)");
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
    scan_more = 0;
    ck_assert_int_eq(nftw(root, scan_file, 16, FTW_PHYS), 0);
    ck_assert_msg(scan_found[0] == '\0',
                  "entry points defined in:\n%s(%d more)", scan_found,
                  scan_more);
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
    /* the build compiles exactly the graded file: a backup beside it (a
     * second definition of the entry point) and a copy with a space in
     * its name are named, never linked in */
    ck_assert_int_eq(sh("cd %s/labs/01-vector-add && cp vector_add.cu "
                        "vector_add_old.cu && cp vector_add.cu "
                        "\"vector_add copy.cu\"",
                        root),
                     0);
    /* it builds and the grader runs, with no solutions/ (NO_APT: a test
     * never installs packages; the deps probe sees this environment, as
     * the tree's own build did) */
    if (sh("make -s -C %s all NO_APT=1 >%s/build.log 2>&1", root, dir) != 0) {
        sh("tail -n 15 %s/build.log", dir);
        ck_abort_msg("make all failed in the handout (build.log above)");
    }
    ck_assert_int_eq(sh("grep -q \"note: labs/01-vector-add/vector_add_old.cu "
                        "is not graded\" %s/build.log && grep -q \"note: "
                        "labs/01-vector-add/vector_add copy.cu is not "
                        "graded\" %s/build.log",
                        dir, dir),
                     0);
    /* and builds it again when it or its header changes */
    ck_assert_int_eq(
        sh("make -s -C %s -q build/student/01-vector-add.so", root), 0);
    ck_assert_int_eq(sh("touch %s/labs/01-vector-add/vector_add.h && make -s "
                        "-C %s -q build/student/01-vector-add.so",
                        root, root),
                     1);
    /* (a second apart: a file's time is kept to the kernel's tick, and an
     * edit in the same tick as the build would look older than it) */
    ck_assert_int_eq(sh("make -s -C %s build/student/01-vector-add.so "
                        ">/dev/null 2>&1 && sleep 1 && echo \"/* edited */\" "
                        ">> %s/labs/01-vector-add/vector_add.cu && make -s -C "
                        "%s -q build/student/01-vector-add.so",
                        root, root, root),
                     1);
    ck_assert_int_eq(sh("make -s -C %s build/student/01-vector-add.so > "
                        "/dev/null 2>&1 && test %s/build/student/"
                        "01-vector-add.so -nt %s/labs/01-vector-add/"
                        "vector_add.cu",
                        root, root, root),
                     0);
    ck_assert_int_eq(sh("%s/build/bin/grade --list >/dev/null", root), 0);
    snprintf(path, sizeof path, "%s/build/solution", root);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* make test: a maintainer's command, said plainly, exit 0 */
    ck_assert_int_eq(sh("make -s -C %s test > %s/test.log 2>&1", root, dir), 0);
    ck_assert_int_eq(sh("grep -q \"maintainer's command\" %s/test.log", dir),
                     0);
    /* the maintainers' tools stay in the course's tree: make soak says so
     * (exit 2); the student's and the instructor's tools are there */
    ck_assert_int_ne(sh("tar -tzf %s | grep -E -q \"/tools/(soak\\.py|"
                        "data-run\\.sh|gpu-check\\.sh|syscall-census\\.sh|"
                        "train-seq2seq\\.py)$\"",
                        tgz),
                     0);
    ck_assert_int_eq(sh("tar -tzf %s | grep -E -c \"/tools/(bench\\.sh|"
                        "profile\\.sh|memcheck\\.sh|peers\\.py|deps\\.sh|"
                        "grade-class\\.sh)$\" | grep -qx 6",
                        tgz),
                     0);
    ck_assert_int_eq(sh("make -s -C %s soak > %s/soak.log 2>&1", root, dir), 2);
    ck_assert_int_eq(sh("grep -q \"maintainer's command\" %s/soak.log", dir),
                     0);
    ck_assert_int_eq(sh("make -s -C %s data > %s/data.log 2>&1", root, dir), 2);
    ck_assert_int_eq(sh("grep -q \"maintainer's command\" %s/data.log", dir),
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
    /* the GitHub Classroom workflow's grading step, run as a runner runs
     * it: a result for the reporter in GITHUB_OUTPUT, whatever happens */
    classroom_step(root, dir, 0);
    classroom_step(root, dir, 1);
    /* make check: the skeleton compiles warning-free (host and device);
     * the static checks pass once the grader has them (--check) */
    int has_check =
        sh(CL_BUILD_DIR "/bin/grade --help | grep -q -- --check") == 0;
    int rc = sh("make -s -C %s check LAB=01 > %s/check.log 2>&1", root, dir);
    ck_assert_int_eq(sh("grep -q \"## 01-vector-add\" %s/check.log", dir), 0);
    /* (the backups are named there too, and do not break it) */
    ck_assert_int_eq(
        sh("grep -q \"vector_add_old.cu is not graded\" %s/check.log", dir), 0);
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

/* make handout packs the shipped paths and nothing else. In a git tree
 * (a copy of this one, made a repository here) an untracked file inside
 * them stops it, named; one outside them (a class's submissions/) stays
 * out; the grader's own tests stay out. Without git (the tree copied to a
 * GPU host) it says so and packs the shipped folders, never .deps/,
 * build/ or other leftovers. CLASSROOM=NN adds the Classroom workflow. */
START_TEST(test_handout_holds_exactly_the_shipped_files)
{
    char dir[] = "/tmp/cl-strays-XXXXXX", tree[64], tgz[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(tree, sizeof tree, "%s/tree", dir);
    snprintf(tgz, sizeof tgz, "%s/dist/cuda-labs-handout-9.9.tar.gz", dir);
    /* the shipped paths and the tests, copied (no build, no .git) */
    ck_assert_int_eq(sh("mkdir -p %s && tar -cf - README.md VERSION Makefile "
                        ".clang-format .editorconfig .gitignore labs common "
                        "grader tools docs | tar -xf - -C %s",
                        tree, tree),
                     0);
    int git = sh("command -v git > /dev/null") == 0;
    if (git) {
        ck_assert_int_eq(sh("cd %s && git init -q && git add -A", tree), 0);
        /* strays: a scratch answer and a file beside the labs' write-ups
         * (refused); a class's submissions at the root and a file under
         * the grader's tests (left out, never refused) */
        ck_assert_int_eq(
            sh("cd %s && echo x > \"labs/01-vector-add/my answer.cu\" && "
               "echo x > docs/notes.txt && mkdir -p submissions/alice && "
               "echo x > submissions/alice/vector_add.cu && "
               "echo x > grader/tests/scratch.c",
               tree),
            0);
        ck_assert_int_eq(sh("cd %s && sh tools/release.sh handout %s/dist 9.9 "
                            "> %s/out.log 2> %s/err.log",
                            tree, dir, dir, dir),
                         2);
        ck_assert_int_eq(sh("grep -q \"refused: 2 untracked\" %s/err.log && "
                            "grep -qx \"    labs/01-vector-add/my answer.cu\" "
                            "%s/err.log && grep -qx \"    docs/notes.txt\" "
                            "%s/err.log",
                            dir, dir, dir),
                         0);
        ck_assert_int_ne(
            sh("grep -E -q \"submissions/alice|scratch.c\" %s/err.log", dir),
            0);
        ck_assert_int_ne(access(tgz, F_OK), 0);
        /* gone (or ignored): it packs, without the class's submissions */
        ck_assert_int_eq(
            sh("cd %s && rm \"labs/01-vector-add/my answer.cu\" && "
               "echo docs/notes.txt >> .git/info/exclude && "
               "sh tools/release.sh handout %s/dist 9.9 > "
               "%s/out.log 2>&1",
               tree, dir, dir),
            0);
        ck_assert_int_eq(sh("grep -q \"not shipped (outside the shipped "
                            "paths): submissions/\" %s/out.log",
                            dir),
                         0);
        ck_assert_int_eq(sh("tar -tzf %s | sed 1d | grep -v /$ | sort > "
                            "%s/git.list && ! grep -E -q "
                            "\"submissions|notes.txt|/tests/|my answer\" "
                            "%s/git.list && grep -qx "
                            "cuda-labs-handout-9.9/labs/01-vector-add/"
                            "vector_add.cu %s/git.list",
                            tgz, dir, dir, dir),
                         0);
        ck_assert_int_eq(sh("rm -rf %s/.git %s/submissions %s/docs/notes.txt "
                            "%s",
                            tree, tree, tree, tgz),
                         0);
    }
    /* no git: what a copy of the tree on a GPU host holds besides */
    ck_assert_int_eq(sh("cd %s && mkdir -p .deps/debs build/obj "
                        "tools/__pycache__ && echo x > .deps/env.sh && "
                        "echo x > .deps/debs/check.deb && echo x > "
                        "build/obj/a.o && echo x > tools/__pycache__/a.pyc && "
                        "echo x > docs/x.tmp.1",
                        tree),
                     0);
    ck_assert_int_eq(sh("cd %s && CLASSROOM=03-matmul sh tools/release.sh "
                        "handout %s/dist 9.9 > %s/out.log 2>&1",
                        tree, dir, dir),
                     0);
    ck_assert_int_eq(sh("grep -q \"no git here: packing the shipped paths\" "
                        "%s/out.log",
                        dir),
                     0);
    ck_assert_int_eq(sh("tar -tzf %s | sed 1d | grep -v /$ | sort > "
                        "%s/nogit.list && ! grep -E -q "
                        "\"[.]deps|/build/|pycache|tmp[.]1|/tests/\" "
                        "%s/nogit.list",
                        tgz, dir, dir),
                     0);
    /* the same files as from git, and the workflow for lab 03 */
    ck_assert_int_eq(sh("grep -qx cuda-labs-handout-9.9/.github/workflows/"
                        "classroom.yml %s/nogit.list && tar -xzf %s -C %s "
                        "cuda-labs-handout-9.9/.github && grep -qx \"  LAB: "
                        "\\\"03\\\"\" %s/cuda-labs-handout-9.9/.github/"
                        "workflows/classroom.yml",
                        dir, tgz, dir, dir),
                     0);
    if (git)
        ck_assert_int_eq(sh("grep -v /.github/ %s/nogit.list | diff -q - "
                            "%s/git.list",
                            dir, dir),
                         0);
    /* a lab that is not there */
    ck_assert_int_eq(sh("cd %s && CLASSROOM=99-none sh tools/release.sh "
                        "handout %s/dist 9.9 > /dev/null 2>&1",
                        tree, dir),
                     2);
    sh("rm -rf %s", dir);
}
END_TEST

/* the GitHub Classroom workflow (tools/classroom/classroom.yml) is valid
 * YAML of the shape Classroom's actions expect: triggers, the GPU runner's
 * labels, LAB as a string, a grading step whose id names the reporter's
 * runner and whose output it reads, and a bash script that parses. With
 * PyYAML (python3-yaml) it is parsed whole; without, the lines are
 * checked for the YAML this file uses (spaces, even indents, keys). */
START_TEST(test_classroom_workflow)
{
    const char *yml = "tools/classroom/classroom.yml";
    char dir[] = "/tmp/cl-yml-XXXXXX", script[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(script, sizeof script, "%s/step.sh", dir);
    /* the grading step's script is bash */
    classroom_script(yml, script);
    ck_assert_int_eq(sh("bash -n %s", script), 0);
    ck_assert_int_eq(sh("grep -q \"make grade LAB=.*--json\" %s && grep -q "
                        "\"grade .*--classroom\" %s",
                        script, script),
                     0);
    const char *py = NULL;
    if (sh("python3 -c \"import yaml\" 2>/dev/null") == 0)
        py = "python3";
    else if (sh("/usr/bin/python3 -c \"import yaml\" 2>/dev/null") == 0)
        py = "/usr/bin/python3";
    if (py) {
        static const char check[] =
            "import re, sys, yaml\n"
            "w = yaml.safe_load(open(sys.argv[1]))\n"
            "on = w['on']\n"
            "assert 'push' in on and 'workflow_dispatch' in on, on\n"
            "assert w['env']['LAB'] == '01', w['env']\n"
            "assert w['permissions']['checks'] == 'write'\n"
            "(job,) = w['jobs'].values()\n"
            "assert job['name'] == 'Autograding Tests'\n"
            "assert 'self-hosted' in job['runs-on'] and 'gpu' in "
            "job['runs-on']\n"
            "steps = job['steps']\n"
            "grade = [s for s in steps if 'run' in s]\n"
            "assert len(grade) == 1 and grade[0]['shell'] == 'bash'\n"
            "rid = grade[0]['id']\n"
            "assert re.fullmatch('[a-zA-Z0-9]+', rid), rid\n"
            "rep = [s for s in steps if 'autograding-grading-reporter' in "
            "s.get('uses', '')]\n"
            "assert len(rep) == 1, rep\n"
            "assert rep[0]['with']['runners'] == rid\n"
            "assert rep[0]['env'][rid.upper() + '_RESULTS'] == "
            "'${{ steps.%s.outputs.result }}' % rid\n"
            "assert steps.index(rep[0]) > steps.index(grade[0])\n"
            "assert steps[0]['uses'].startswith('actions/checkout@')\n";
        char pyfile[96];
        snprintf(pyfile, sizeof pyfile, "%s/check.py", dir);
        ck_assert_int_eq(cl_write_atomic(pyfile, check, strlen(check)), 0);
        ck_assert_msg(sh("%s %s %s", py, pyfile, yml) == 0,
                      "the workflow's YAML does not parse to what Classroom "
                      "expects (above)");
    } else {
        printf("note: no PyYAML: the workflow's lines are checked, not "
               "parsed (apt-get install python3-yaml)\n");
        /* no tabs; indents even; outside block scalars every line is a
         * comment, "key:", "key: value" or "- item" */
        ck_assert_int_eq(sh("! grep -q \"$(printf \"\\t\")\" %s", yml), 0);
        ck_assert_int_eq(
            sh("awk '/^ *run: [|]$/ { ind = index($0, \"r\") - 1; blk = 1; "
               "next } blk && ($0 == \"\" || match($0, /^ */) && RLENGTH > "
               "ind) { next } { blk = 0 } /^ *#/ || /^$/ { next } "
               "{ match($0, /^ */); if (RLENGTH %% 2) exit 1 } "
               "!/^ *(- )?(\"[^\"]+\"|[A-Za-z_][-A-Za-z0-9_]*):( |$)/ && "
               "!/^ *- [^ ]/ { exit 1 }' %s",
               yml),
            0);
    }
    sh("rm -rf %s", dir);
}
END_TEST

/* what a student without a GPU is given: docs/colab.ipynb is a notebook
 * (nbformat 4) whose code cells run tools/hosted-gpu.sh, and the script
 * installs the build's packages with apt, then runs make grade; here,
 * without a GPU, it says so and stops (exit 3) before installing anything */
START_TEST(test_hosted_gpu_notebook)
{
    char *text = cl_read_file("docs/colab.ipynb", NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *nb = cJSON_Parse(text);
    free(text);
    ck_assert_msg(cJSON_IsObject(nb), "docs/colab.ipynb is not JSON");
    ck_assert_int_eq(
        (int)cJSON_GetNumberValue(cJSON_GetObjectItem(nb, "nbformat")), 4);
    int runs = 0, cells = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(nb, "cells"))
    {
        const char *type =
            cJSON_GetStringValue(cJSON_GetObjectItem(c, "cell_type"));
        ck_assert_ptr_nonnull(type);
        ck_assert(cJSON_IsArray(cJSON_GetObjectItem(c, "source")));
        cells++;
        if (strcmp(type, "code") != 0)
            continue;
        ck_assert(cJSON_IsArray(cJSON_GetObjectItem(c, "outputs")));
        const cJSON *line;
        cJSON_ArrayForEach(line, cJSON_GetObjectItem(c, "source"))
        {
            const char *l = cJSON_GetStringValue(line);
            runs += l && strstr(l, "!bash tools/hosted-gpu.sh $LAB") != NULL;
        }
    }
    cJSON_Delete(nb);
    ck_assert_int_ge(cells, 5);
    ck_assert_int_ge(runs, 1);
    ck_assert_int_eq(sh("bash -n tools/hosted-gpu.sh"), 0);
    ck_assert_int_eq(sh("grep -q \"check libsubunit-dev libcjson-dev "
                        "libseccomp-dev\" tools/hosted-gpu.sh && grep -q "
                        "\"make -s grade LAB=\" tools/hosted-gpu.sh"),
                     0);
    if (sh("nvidia-smi -L > /dev/null 2>&1") != 0) {
        char log[] = "/tmp/cl-hosted-XXXXXX";
        int fd = mkstemp(log);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(sh("bash tools/hosted-gpu.sh 01 > %s 2>&1", log), 3);
        ck_assert_int_eq(sh("grep -q \"no NVIDIA GPU in this notebook\" %s && "
                            "! grep -q apt-get %s",
                            log, log),
                         0);
        unlink(log);
    }
}
END_TEST

/* the Makefile builds a student's lab from NAME.cu beside its interface
 * NAME.h: the file the grader names (--which) and builds in a batch */
START_TEST(test_lab_source_is_the_graded_file)
{
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        char cmd[256], out[512];
        snprintf(cmd, sizeof cmd,
                 "ls labs/%s-%s/*.h | sed 's/[.]h$/.cu/' > /tmp/cl-src.%d",
                 (*l)->id, (*l)->slug, (int)getpid());
        ck_assert_int_eq(sh("%s", cmd), 0);
        snprintf(out, sizeof out, "/tmp/cl-src.%d", (int)getpid());
        char *got = cl_read_file(out, NULL);
        ck_assert_ptr_nonnull(got);
        unlink(out);
        char want[300];
        snprintf(want, sizeof want, "%s\n", (*l)->source);
        ck_assert_msg(strcmp(got, want) == 0,
                      "lab %s: one header giving %s, expected %s", (*l)->id,
                      got, (*l)->source);
        free(got);
    }
}
END_TEST

/* the rough edges of the Makefile a new user meets */
START_TEST(test_make_rough_edges)
{
    char dir[] = "/tmp/cl-make-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* make in a lab's folder works on that lab: every lab has the same
     * one-line Makefile, and make grade there is make grade LAB=NN at the
     * root (a dry run: the grade's command for that lab alone) */
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        if (!(*l)->needs_gpu)
            continue;
        ck_assert_int_eq(sh("cd labs/%s-%s && test \"$(cat Makefile)\" = "
                            "\"include ../lab.mk\" && make -n grade > "
                            "%s/here.log 2>&1 && grep -q \"for l in %s-%s; \" "
                            "%s/here.log && ! grep -q \"No "
                            "rule\" %s/here.log",
                            (*l)->id, (*l)->slug, dir, (*l)->id, (*l)->slug,
                            dir, dir),
                         0);
    }
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
    /* a lab's graded file gone (moved away): make says so and grades
     * nothing, never the old build (a copy of the tree's Makefile and
     * labs: make stops while reading the Makefile) */
    ck_assert_int_eq(sh("mkdir -p %s/t && cp -r Makefile VERSION labs %s/t/ && "
                        "rm %s/t/labs/01-vector-add/vector_add.cu",
                        dir, dir, dir),
                     0);
    ck_assert_int_eq(
        sh("make -s -C %s/t -n grade LAB=01 > %s/miss.log 2>&1", dir, dir), 2);
    ck_assert_int_eq(sh("grep -q 'labs/01-vector-add/vector_add.cu is "
                        "missing: it is the one file its lab grades' "
                        "%s/miss.log",
                        dir),
                     0);
    ck_assert_int_ne(sh("make -s -C %s/t -n grade LAB=02 2>&1 | grep -q "
                        "'is missing'",
                        dir),
                     0);
    /* make memcheck: no such lab, named; no compute-sanitizer, said where
     * it was looked for (here only: a GPU host has one) */
    ck_assert_int_eq(sh("make -s memcheck LAB=foo > %s/mc.log 2>&1", dir), 2);
    ck_assert_int_eq(sh("grep -q \"memcheck: no lab 'foo'\" %s/mc.log && ! "
                        "grep -q 'ls:' %s/mc.log",
                        dir, dir),
                     0);
    if (sh("command -v compute-sanitizer > /dev/null || test -x "
           "/usr/local/cuda/bin/compute-sanitizer") != 0) {
        ck_assert_int_eq(
            sh("bash tools/memcheck.sh 01 x.so > %s/mc.log 2>&1", dir), 1);
        ck_assert_int_eq(sh("grep -q 'compute-sanitizer is not installed "
                            "here: neither on PATH nor in /usr/local/cuda/bin' "
                            "%s/mc.log",
                            dir),
                         0);
    }
    /* Hopper builds sm_90a (Lab 3's wgmma rung needs it), named or by
     * default; a build without a GPU adds compute_90 PTX for later GPUs */
    ck_assert_int_eq(sh("make -s info GPU_ARCH='80 90' 2> /dev/null | grep -q "
                        "'arch=compute_80,code=sm_80 -gencode "
                        "arch=compute_90a,code=sm_90a$'"),
                     0);
    if (sh("nvidia-smi -L > /dev/null 2>&1") != 0)
        ck_assert_int_eq(sh("make -s info 2> /dev/null | grep -q "
                            "'arch=compute_90a,code=sm_90a -gencode "
                            "arch=compute_90,code=compute_90$'"),
                         0);
    /* make memcheck runs the grade in tool mode (the sanitizer's
     * injection must reach the runner), and a grade that ran no case
     * under the tool is no clean bill (a stand-in sanitizer that runs the
     * command and prints a summary of nothing, around a stand-in grade) */
    char cs[512], g[512];
    stand_in(cs, sizeof cs, dir, "cs",
             "#!/bin/sh\n"
             "echo \"$*\" >> %s/cs-args\n"
             "shift 4\n"
             "\"$@\"\n"
             "rc=$?\n"
             "echo '========= ERROR SUMMARY: 0 errors'\n"
             "exit $rc\n",
             dir);
    stand_in(g, sizeof g, dir, "g", "#!/bin/sh\nexit $FAKE_RC\n");
    ck_assert_int_eq(sh("COMPUTE_SANITIZER=%s GRADE=%s FAKE_RC=0 "
                        "MEMCHECK_DIR=%s/m bash tools/memcheck.sh 01 x.so > "
                        "%s/mc.log 2>&1",
                        cs, g, dir, dir),
                     0);
    ck_assert_int_eq(sh("grep -q 'memcheck: clean (ERROR SUMMARY: 0 errors)' "
                        "%s/mc.log && grep -q -- '--tool memcheck .* 01 --lib "
                        "x.so --tool-mode' %s/cs-args",
                        dir, dir),
                     0);
    ck_assert_int_eq(sh("COMPUTE_SANITIZER=%s GRADE=%s FAKE_RC=6 "
                        "MEMCHECK_DIR=%s/m bash tools/memcheck.sh 01 x.so > "
                        "%s/mc.log 2>&1",
                        cs, g, dir, dir),
                     1);
    ck_assert_int_eq(sh("grep -q 'memcheck: checked nothing: the grade under "
                        "it exited 6' %s/mc.log",
                        dir),
                     0);
    /* LAB names one lab or several, each as a number or a name */
    ck_assert_int_eq(sh("make -n grade LAB='1 stencil' 2> /dev/null | grep -q "
                        "'for l in 01-vector-add 02-stencil; do'"),
                     0);
    /* one rule names the graded file (lab_src): the recipes of grade,
     * check and memcheck take it from make, not from a shell search */
    static const char *const graded[] = {"grade", "check", "memcheck"};
    for (size_t i = 0; i < sizeof graded / sizeof *graded; i++)
        ck_assert_msg(sh("make -n %s LAB=01 2> /dev/null | grep -F -q "
                         "\"01-vector-add) src='labs/01-vector-add/"
                         "vector_add.cu';;\" && ! make -n %s LAB=01 2> "
                         "/dev/null | grep -q 'ls labs/'",
                         graded[i], graded[i]) == 0,
                      "make %s does not grade lab_src's file", graded[i]);
    /* the scripts grade with the build make names (SANITIZE=1, BUILD=) */
    static const char *const scripts[] = {"bench", "memcheck", "profile",
                                          "grade-class", "grade-class-slurm"};
    for (size_t i = 0; i < sizeof scripts / sizeof *scripts; i++)
        ck_assert_msg(sh("make -n %s LAB=01 SUBMISSIONS=x BUILD=%s/b 2> "
                         "/dev/null | grep -q 'GRADE=\"%s/b/bin/grade\"'",
                         scripts[i], dir, dir) == 0,
                      "make %s does not pass its build's grader", scripts[i]);
    /* bench: a grader that fails (no such lab, no grader at all) fails it,
     * named, with the grader's code */
    ck_assert_int_eq(
        sh("BENCH_DIR=%s bash tools/bench.sh 42 > %s/b.log 2>&1", dir, dir), 2);
    ck_assert_int_eq(sh("grep -q 'the grader exited 2' %s/b.log", dir), 0);
    ck_assert_int_eq(sh("GRADE=%s/none BENCH_DIR=%s bash tools/bench.sh 01 > "
                        "%s/b.log 2>&1",
                        dir, dir, dir),
                     127);
    /* bench: a rung of one group (Lab 2's part A, part B) is timed on that
     * group's speed and bench cases alone, each rung once (a stand-in for
     * the grader that lists the real cases and notes every other call) */
    char fake[512];
    stand_in(fake, sizeof fake, dir, "fake",
             "#!/bin/sh\n"
             "case \" $* \" in\n"
             "*\" --list \"*) exec %s \"$1\" --list ;;\n"
             "*\" --csv-header \"*) echo header; exit 0 ;;\n"
             "esac\n"
             "echo \"S$STENCIL_KERNEL C$CONV1D_KERNEL $*\" >> %s/calls\n",
             CL_BUILD_DIR "/bin/grade", dir);
    ck_assert_int_eq(sh("GRADE=%s BENCH_DIR=%s bash "
                        "tools/bench.sh 02 solution > %s/b.log 2>&1",
                        fake, dir, dir),
                     0);
    /* each rung of part A, then of part B, once (the LADDER's counts) */
    long ra = ladder_rungs("solutions/02-stencil/LADDER", "STENCIL_KERNEL"),
         rb = ladder_rungs("solutions/02-stencil/LADDER", "CONV1D_KERNEL");
    ck_assert(ra > 1 && rb > 1);
    ck_assert_int_eq(
        sh("test $(grep -c '^S[0-9][0-9]* C 02 ' %s/calls) -eq %ld "
           "&& test $(grep -c '^S C[0-9][0-9]* 02 ' %s/calls) -eq "
           "%ld && test $(wc -l < %s/calls) -eq %ld",
           dir, ra, dir, rb, dir, ra + rb),
        0);
    ck_assert_int_eq(sh("test $(grep '^S[1-5] ' %s/calls | grep -c -- "
                        "'-c A:n=2^26,R=8 .*-c A:n=2^24,R=3') -eq 5 && ! "
                        "grep '^S[1-5] ' %s/calls | grep -q -- '-c B:'",
                        dir, dir),
                     0);
    ck_assert_int_eq(sh("test $(grep '^S C' %s/calls | grep -c -- "
                        "'-c B:8x1024x4096,K=128') -eq %ld && ! grep '^S C' "
                        "%s/calls | grep -q -- '-c A:'",
                        dir, rb, dir),
                     0);
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

/* the rungs a lab's README names (VAR_KERNEL=k, VAR_KERNEL=a..b, and
 * "`VAR_KERNEL=a` to `b`") exist in the solution's LADDER ("VAR first
 * last [group]" lines), so that no README promises a rung the ladder does
 * not have or hides the ones it has; and no README counts the rungs
 * without saying where the solutions are */
START_TEST(test_readmes_match_ladders)
{
    if (access("solutions", F_OK) != 0) {
        printf("skip: no solutions/ in a handout tree\n");
        return;
    }
    int mentions = 0;
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        char path[256], ladder[256];
        snprintf(ladder, sizeof ladder, "solutions/%s-%s/LADDER", (*l)->id,
                 (*l)->slug);
        ck_assert_msg(access(ladder, R_OK) == 0, "no %s", ladder);
        snprintf(path, sizeof path, "labs/%s-%s/README.md", (*l)->id,
                 (*l)->slug);
        char *doc = cl_read_file(path, NULL);
        ck_assert_ptr_nonnull(doc);
        for (char *p = strstr(doc, "_KERNEL="); p;
             p = strstr(p + 1, "_KERNEL=")) {
            const char *v = p;
            while (v > doc && (isupper((unsigned char)v[-1]) ||
                               isdigit((unsigned char)v[-1]) || v[-1] == '_'))
                v--;
            char var[64];
            snprintf(var, sizeof var, "%.*s", (int)(p + 7 - v), v);
            const char *q = p + 8;
            if (!isdigit((unsigned char)*q))
                continue; /* VAR_KERNEL=N, VAR_KERNEL=k: no number */
            long a = strtol(q, (char **)&q, 10), b = a;
            if (q[0] == '.' && q[1] == '.')
                b = strtol(q + 2, NULL, 10);
            else if (strncmp(q, "` to `", 6) == 0)
                b = strtol(q + 6, NULL, 10);
            /* the variable's line in the LADDER */
            long first = -1, last = -1;
            (void)ladder_range(ladder, var, &first, &last);
            ck_assert_msg(first >= 0,
                          "%s names %s, which is no ladder of "
                          "the solution's LADDER",
                          path, var);
            ck_assert_msg(a >= first && b <= last && a <= b,
                          "%s names %s=%ld..%ld, the LADDER has %ld..%ld", path,
                          var, a, b, first, last);
            mentions++;
        }
        free(doc);
    }
    ck_assert_int_ge(mentions, 2); /* the scan sees the READMEs' rungs */
    /* a handout has no solutions: "SOLUTION=1" is said with where they are */
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        char path[256];
        snprintf(path, sizeof path, "labs/%s-%s/README.md", (*l)->id,
                 (*l)->slug);
        ck_assert_msg(sh("grep -E -q \"^- .make (grade|bench) LAB=[0-9]+ "
                         "SOLUTION=1\" %s",
                         path) != 0,
                      "%s offers SOLUTION=1 without saying where the "
                      "solutions are",
                      path);
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
            const char *const *entries = cl_lab_entries(lab->id);
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
    /* the 1000-small and gpt2-small lists of grader/specs/lab04_adamw.c */
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
    /* make peers LAB=NN SOLUTION=1 grades the reference into
     * grader-NN.csv (the docs' ref-NN.csv), a student's build does not,
     * and neither does PEERS_LIB=path */
    const char *peers = "make -s -n peers LAB=04 %s 2>/dev/null | "
                        "grep -q -e '--grader-rows'";
    ck_assert_int_eq(sh(peers, "SOLUTION=1"), 0);
    ck_assert_int_ne(sh(peers, ""), 0);
    ck_assert_int_ne(sh(peers, "SOLUTION=1 PEERS_LIB=/nonexistent.so"), 0);
    sh("rm -rf %s %s.d", path, path);
}
END_TEST

/* make docs: the site builds without a warning, and a link from one page
 * to a section of another (README's "threat model") lands on a section
 * the site has: make docs fails on one that does not */
START_TEST(test_docs_links_land)
{
    if (sh("command -v doxygen > /dev/null") != 0) {
        printf("skip: make docs needs doxygen (apt-get install doxygen)\n");
        return;
    }
    char dir[] = "/tmp/cl-docs-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(sh("make -s docs BUILD=%s > %s/docs.log 2>&1", dir, dir),
                     0);
    ck_assert_int_eq(sh("grep -q 'href=\"grading.html#threat-model\"' "
                        "%s/docs/html/index.html && grep -q "
                        "'id=\"threat-model\"' %s/docs/html/grading.html",
                        dir, dir),
                     0);
    ck_assert_int_ne(sh("grep -q 'href=\"docs/[a-z]*[.]md#' "
                        "%s/docs/html/*.html",
                        dir),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

/* make handout and edits not committed: in a git tree (a copy of this
 * one, made a repository here), a tracked file edited since the last
 * commit stops it, named, unless EDITS=1, which packs it as it is and says
 * so; a skeleton that is its lab's solution, or that defines a name only
 * the solution defines, stops it even then */
START_TEST(test_handout_refuses_edits_and_solutions)
{
    if (access("solutions", F_OK) != 0 || sh("command -v git >/dev/null")) {
        printf("skip: needs solutions/ and git\n");
        return;
    }
    char dir[] = "/tmp/cl-edits-XXXXXX", tree[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(tree, sizeof tree, "%s/tree", dir);
    ck_assert_int_eq(
        sh("mkdir -p %s && tar -cf - README.md VERSION Makefile .clang-format "
           ".editorconfig .gitignore labs common grader tools docs solutions "
           "| tar -xf - -C %s && cd %s && git init -q && git add -A && git "
           "-c user.email=t@t -c user.name=t commit -qm tree",
           tree, tree, tree),
        0);
    const char *pack = "cd %s && sh tools/release.sh handout %s/dist 9.9 "
                       "> %s/out.log 2> %s/err.log";
    ck_assert_int_eq(sh(pack, tree, dir, dir, dir), 0);
    /* the reference pasted over the skeleton, not committed */
    ck_assert_int_eq(sh("cd %s && cp solutions/01-vector-add/vector_add.cu "
                        "labs/01-vector-add/",
                        tree),
                     0);
    ck_assert_int_eq(sh(pack, tree, dir, dir, dir), 2);
    ck_assert_int_eq(sh("grep -q 'refused: 1 tracked file' %s/err.log && "
                        "grep -qx '    labs/01-vector-add/vector_add.cu' "
                        "%s/err.log && grep -q EDITS=1 %s/err.log",
                        dir, dir, dir),
                     0);
    /* told to pack edits, it still refuses the solution as a skeleton */
    ck_assert_int_eq(sh("cd %s && EDITS=1 sh tools/release.sh handout "
                        "%s/dist 9.9 > %s/out.log 2> %s/err.log",
                        tree, dir, dir, dir),
                     2);
    ck_assert_int_eq(sh("grep -q 'labs/01-vector-add/vector_add.cu is "
                        "solutions/01-vector-add/vector_add.cu' %s/err.log",
                        dir),
                     0);
    /* a skeleton that borrows one of the solution's kernels */
    ck_assert_int_eq(
        sh("cd %s && git checkout -q labs/01-vector-add/vector_add.cu && "
           "sed -n '/^__global__/,/^}/p' solutions/02-stencil/stencil.cu | "
           "head -n 40 >> labs/02-stencil/stencil.cu",
           tree),
        0);
    ck_assert_int_eq(sh("cd %s && EDITS=1 sh tools/release.sh handout "
                        "%s/dist 9.9 > %s/out.log 2> %s/err.log",
                        tree, dir, dir, dir),
                     2);
    ck_assert_int_eq(sh("grep -q 'labs/02-stencil/stencil.cu defines what "
                        "only solutions/02-stencil/stencil.cu defines: ' "
                        "%s/err.log",
                        dir),
                     0);
    /* an edit that is not a solution's: packed as it is, and named */
    ck_assert_int_eq(sh("cd %s && git checkout -q labs/02-stencil/stencil.cu "
                        "&& echo '// a note' >> labs/01-vector-add/README.md "
                        "&& EDITS=1 sh tools/release.sh handout %s/dist 9.9 > "
                        "%s/out.log 2> %s/err.log",
                        tree, dir, dir, dir),
                     0);
    ck_assert_int_eq(sh("grep -q 'EDITS=1: packing 1 file' %s/out.log && tar "
                        "-xzOf %s/dist/cuda-labs-handout-9.9.tar.gz "
                        "cuda-labs-handout-9.9/labs/01-vector-add/README.md "
                        "| tail -n 1 | grep -qx '// a note'",
                        dir, dir),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

/* make soak's bookkeeping, on the CPU self-test lab: TOTAL=N grades each
 * submission until the table holds N gradings of it, so a soak cut by
 * the device's 10-minute window resumes where it stopped, and GPUS grades
 * on several at once (its verdicts are the GPU host's: here only the rows
 * are counted) */
START_TEST(test_soak_resumes_to_a_total)
{
    char dir[] = "/tmp/cl-soak-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int run = 0; run < 2; run++) {
        int rc = sh("python3 tools/soak.py --labs 00 --total 1 --out %s "
                    "> %s/run%d.log 2>&1",
                    dir, dir, run);
        ck_assert_msg(rc == 0 || rc == 1, "soak.py exit %d", rc);
        ck_assert_int_eq(sh("test $(grep -c '^round ' %s/run%d.log) = %d", dir,
                            run, run == 0 ? 1 : 0),
                         0);
        ck_assert_int_eq(sh("test $(wc -l < %s/soak.tsv) = 2", dir), 0);
    }
    ck_assert_int_eq(sh("grep -q '^00\treference\t' %s/soak.tsv", dir), 0);
    /* each grading's sandbox line, as its results.json states it, and the
     * summary's count of each line */
    ck_assert_int_eq(sh("test $(wc -l < %s/sandbox.tsv) = 2", dir), 0);
    ck_assert_int_eq(sh("grep -q '^00\treference\t[0-9]*\tsandbox: own "
                        "session' %s/sandbox.tsv",
                        dir),
                     0);
    ck_assert_int_eq(
        sh("grep -q '^| sandbox: own session.* | 1 |$' %s/run1.log", dir), 0);
    /* GPUS: the rest graded side by side, one queue, each line naming
     * the GPU that graded it (the CPU lab ignores the name) */
    int rc = sh("python3 tools/soak.py --labs 00 --total 3 --gpus 'x y' "
                "--out %s > %s/gpus.log 2>&1",
                dir, dir);
    ck_assert_msg(rc == 0 || rc == 1, "soak.py exit %d", rc);
    ck_assert_int_eq(
        sh("test $(grep -c '^round .* gpu [xy] ' %s/gpus.log) = 2", dir), 0);
    ck_assert_int_eq(sh("test $(wc -l < %s/soak.tsv) = 4", dir), 0);
    sh("rm -rf %s", dir);
}
END_TEST

/* make data (tools/data-run.sh): one card's run, step by step. Stand-ins
 * for make (it writes what peers and bench write, notes each call, and
 * fails or dawdles as told) and nvidia-smi (the card it names) */
START_TEST(test_data_run_is_one_cards_and_resumes)
{
    char dir[] = "/tmp/cl-data-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char mk[512], smi[512];
    stand_in(mk, sizeof mk, dir, "make",
             "#!/bin/bash\n"
             "for a; do case $a in LAB=*) lab=${a#LAB=};; "
             "PEERS_OUT=*) po=${a#PEERS_OUT=};; esac; done\n"
             "what=$2\n"
             "echo \"$what $lab\" >> %s/calls\n"
             "[ \"$FAKE_SLOW\" = \"$what $lab\" ] && sleep 5\n"
             "if [ \"$FAKE_FAIL\" = \"$what $lab\" ]; then\n"
             "  echo \"make: *** [Makefile:330: $what] Error 6\"; exit 2; fi\n"
             "if [ $what = peers ]; then echo r$lab > $po/grader-$lab.csv; "
             "echo p$lab > $po/peers.csv;\n"
             "else echo b$lab > $BENCH_DIR/lab$lab.csv; fi\n",
             dir);
    stand_in(smi, sizeof smi, dir, "smi",
             "#!/bin/sh\necho \"NVIDIA H200, ${FAKE_UUID:-GPU-1}, 580\"\n");
    char env[1600];
    snprintf(env, sizeof env, "MAKE=%s NVIDIA_SMI=%s DATA_OUT=%s/out", mk, smi,
             dir);
    /* usage, and no GPU */
    ck_assert_int_eq(sh("%s bash tools/data-run.sh > /dev/null 2>&1", env), 2);
    ck_assert_int_eq(sh("%s bash tools/data-run.sh 07 > /dev/null 2>&1", env),
                     2);
    ck_assert_int_eq(
        sh("%s DEADLINE=soon bash tools/data-run.sh 01 > /dev/null 2>&1", env),
        2);
    ck_assert_int_eq(sh("MAKE=%s NVIDIA_SMI=false DATA_OUT=%s/out bash "
                        "tools/data-run.sh 01 > %s/no.log 2>&1",
                        mk, dir, dir),
                     3);
    ck_assert_int_eq(sh("grep -q 'no NVIDIA GPU' %s/no.log", dir), 0);
    /* a step that fails: its tool's status, the steps before it kept */
    ck_assert_int_eq(sh("%s FAKE_FAIL='bench 02' bash tools/data-run.sh 01 02 "
                        "> %s/run1.log 2>&1",
                        env, dir),
                     6);
    ck_assert_int_eq(
        sh("grep -q 'bench 02 failed (make exited 6' %s/run1.log", dir), 0);
    ck_assert_int_eq(sh("test $(grep -c '^done: ' %s/out/MANIFEST) = 3", dir),
                     0);
    ck_assert_int_eq(sh("test ! -e %s/out/lab02.csv && grep -qx b01 "
                        "%s/out/lab01.csv && grep -qx r02 %s/out/ref-02.csv "
                        "&& grep -qx p02 %s/out/peers-02.csv",
                        dir, dir, dir, dir),
                     0);
    /* again on the same card: only the step left is run */
    ck_assert_int_eq(
        sh("%s bash tools/data-run.sh 01 02 > %s/run2.log 2>&1", env, dir), 0);
    ck_assert_int_eq(sh("test \"$(tail -n 1 %s/calls)\" = 'bench 02' && "
                        "test $(wc -l < %s/calls) = 5 && grep -qx b02 "
                        "%s/out/lab02.csv",
                        dir, dir, dir),
                     0);
    /* another card: refused, nothing run */
    ck_assert_int_eq(sh("%s FAKE_UUID=GPU-2 bash tools/data-run.sh 03 > "
                        "%s/run3.log 2>&1",
                        env, dir),
                     4);
    ck_assert_int_eq(sh("grep -q 'another card or commit' %s/run3.log && test "
                        "$(wc -l < %s/calls) = 5",
                        dir, dir),
                     0);
    /* a deadline: the step under way is cut short (not done, no CSV), the
     * next is not started */
    ck_assert_int_eq(sh("%s FAKE_SLOW='peers 03' DEADLINE=2 bash "
                        "tools/data-run.sh 03 04 > %s/run4.log 2>&1",
                        env, dir),
                     7);
    ck_assert_int_eq(sh("grep -q 'peers 03 cut short' %s/run4.log && test ! -e "
                        "%s/out/ref-03.csv && ! grep -q '^done: peers 03' "
                        "%s/out/MANIFEST && ! grep -q 'peers 04' %s/calls",
                        dir, dir, dir, dir),
                     0);
    ck_assert_int_eq(sh("test -z \"$(ls -A %s/out | grep '^\\.step')\"", dir),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

/* make tables: every speed table in the docs is the one its data gives
 * (a hand edit, or data replaced without make tables, fails here); a
 * changed figure is caught, and the data's errors are named (exit 2) */
START_TEST(test_perf_tables_match_their_data)
{
    const char *grade = CL_BUILD_DIR "/bin/grade";
    ck_assert_int_eq(
        sh("python3 tools/perf-tables.py --check --grade %s", grade), 0);
    char dir[] = "/tmp/cl-tables-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(sh("cp -r docs/data %s/data && cp "
                        "labs/05-gru/README.md %s/README.md",
                        dir, dir),
                     0);
    ck_assert_int_eq(sh("python3 tools/perf-tables.py --check --grade %s "
                        "--data %s/data %s/README.md",
                        grade, dir, dir),
                     0);
    /* the reference's t32-b8 time in the data (one row), made 0.172144 ms,
     * whatever it was */
    ck_assert_int_eq(
        sh("awk -F, -v OFS=, '$3 == \"t32-b8\" { $5 = \"0.172144\"; n++ } "
           "{ print } END { exit n != 1 }' %s/data/ref-05.csv > %s/ref && "
           "mv %s/ref %s/data/ref-05.csv",
           dir, dir, dir, dir),
        0);
    ck_assert_int_eq(sh("python3 tools/perf-tables.py --check --grade %s "
                        "--data %s/data %s/README.md 2>/dev/null",
                        grade, dir, dir),
                     1);
    ck_assert_int_eq(sh("python3 tools/perf-tables.py --grade %s --data "
                        "%s/data %s/README.md >/dev/null && grep -q '| "
                        "t32-b8 | 0.1721 ms |' %s/README.md",
                        grade, dir, dir, dir),
                     0);
    /* a speed case with no row, and a marker with no end: exit 2, named */
    ck_assert_int_eq(sh("sed -i '/,t32-b64,/d' %s/data/ref-05.csv && "
                        "python3 tools/perf-tables.py --grade %s --data "
                        "%s/data %s/README.md 2> %s/err; test $? = 2 && grep "
                        "-q 'ref-05.csv has no row for speed case t32-b64' "
                        "%s/err",
                        dir, grade, dir, dir, dir, dir),
                     0);
    ck_assert_int_eq(sh("printf '<!-- perf 01 -->\\n| x |\\n' > %s/bad.md && "
                        "python3 tools/perf-tables.py --grade %s %s/bad.md "
                        "2> %s/err; test $? = 2 && grep -q 'has no "
                        "' %s/err",
                        dir, grade, dir, dir, dir),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

/* make test's runner: a program's Check cases as suites of their own
 * (PROGRAM@CASE, side by side), which add up to the whole program */
START_TEST(test_suites_run_by_case)
{
    char dir[] = "/tmp/cl-suites-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(sh("bash grader/tests/run-suites.sh -j 2 "
                        "" CL_BUILD_DIR "/tests/test_measure@core "
                        "" CL_BUILD_DIR "/tests/test_measure@limits -- "
                        "" CL_BUILD_DIR "/tests/test_measure > %s/log 2>&1",
                        dir),
                     0);
    ck_assert_int_eq(
        sh("cd %s && grep -q '^== test_measure@core: 5 passed, 0 failed' log "
           "&& grep -q '^== test_measure@limits: 1 passed, 0 failed' log && "
           "grep -q '^== test_measure: 6 passed, 0 failed' log && grep -q "
           "'^tests: 12 passed, 0 failed, 0 skipped in ' log",
           dir),
        0);
    /* a case the program lacks (a renamed one) ran nothing: a failure */
    ck_assert_int_eq(sh("bash grader/tests/run-suites.sh " CL_BUILD_DIR
                        "/tests/test_measure@none > %s/none 2>&1",
                        dir),
                     1);
    ck_assert_int_eq(sh("grep -q \"^== test_measure@none: no test ran: no "
                        "Check case 'none' in test_measure\" %s/none && "
                        "grep -q '^tests: 0 passed, 1 failed' %s/none",
                        dir, dir),
                     0);
    sh("rm -rf %s", dir);
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
    tcase_add_test(core, test_handout_holds_exactly_the_shipped_files);
    tcase_add_test(core, test_handout_refuses_edits_and_solutions);
    tcase_add_test(core, test_docs_links_land);
    tcase_add_test(core, test_lab_source_is_the_graded_file);
    tcase_add_test(core, test_classroom_workflow);
    tcase_add_test(core, test_readmes_match_ladders);
    tcase_add_test(core, test_hosted_gpu_notebook);
    tcase_add_test(core, test_soak_resumes_to_a_total);
    tcase_add_test(core, test_data_run_is_one_cards_and_resumes);
    tcase_add_test(core, test_suites_run_by_case);
    tcase_add_test(core, test_perf_tables_match_their_data);
    suite_add_tcase(s, core);
    return cl_suite_run(s, 0, NULL);
}
