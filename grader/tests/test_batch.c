/* test_batch.c: grading a whole class. The gradebook from results, the
 * local batch (statuses decided without a GPU, skips, resumption) and the
 * same batch as a Slurm job array on a one-node cluster on localhost,
 * where Slurm is installed and we are root. Runs from the project root. */
#define _GNU_SOURCE
#include "fileio.h"
#include "gradebook.h"

#include "shell.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the gradebook line of @p student in DIR/gradebook.csv (static buffer) */
static const char *row(const char *dir, const char *student)
{
    static char line[2048];
    char path[512];
    snprintf(path, sizeof path, "%s/gradebook.csv", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = strlen(student);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, student, n) == 0 && line[n] == ',') {
            fclose(f);
            return line;
        }
    fclose(f);
    ck_abort_msg("no row for %s", student);
    return NULL;
}

/* a submissions folder: alice (correct), bob (does not compile), carol
 * (calls cuBLAS), dave/ (a folder), erin.tar.gz (a tarball), frank/ (no
 * source at all) */
static void make_submissions(const char *subs)
{
    ck_assert_int_eq(
        sh("mkdir -p %s/dave %s/frank %s/t && "
           "cp grader/tests/batch/alice.cu grader/tests/batch/bob.cu %s/ && "
           "cp grader/tests/fixtures/lab01/cublas.cu %s/carol.cu && "
           "cp grader/tests/batch/alice.cu %s/dave/vector_add.cu && "
           "cp grader/tests/batch/alice.cu %s/t/vector_add.cu && "
           "tar -czf %s/erin.tar.gz -C %s/t vector_add.cu && rm -rf %s/t && "
           "echo notes > %s/frank/README",
           subs, subs, subs, subs, subs, subs, subs, subs, subs, subs, subs),
        0);
}

static int have_gpu(const char *dir, const char *student)
{
    return strstr(row(dir, student), "no GPU") == NULL;
}

static void expect_statuses(const char *out)
{
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), ",compile-error,"));
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), "error"));
    ck_assert_ptr_nonnull(strstr(row(out, "carol"), ",forbidden library,"));
    ck_assert_ptr_nonnull(strstr(row(out, "carol"), "cublas"));
    ck_assert_ptr_nonnull(strstr(row(out, "frank"), ",no-source,"));
    const char *correct[] = {"alice", "dave", "erin"};
    for (int i = 0; i < 3; i++) {
        const char *r = row(out, correct[i]);
        if (have_gpu(out, correct[i]))
            /* graded, every correctness point: 60 of 60 */
            ck_assert_msg(strstr(r, ",graded,") && strstr(r, ",60.00,"), "%s",
                          r);
        else
            ck_assert_msg(strstr(r, ",not graded: no GPU,") != NULL, "%s", r);
    }
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), ",0.00,100.00,"));
}

START_TEST(test_gradebook_from_results)
{
    char dir[] = "/tmp/cl-book-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results", dir);
    ck_assert_int_eq(cl_mkdirs(path), 0);
    const char *json =
        "{\"score\": 87.5, \"max_score\": 100, \"output\": \"Lab 01, ok\","
        " \"tests\": [], \"extra_data\": {\"lab\": \"01\", \"status\":"
        " \"graded\", \"correctness_score\": 60, \"cases\": ["
        " {\"name\": \"a\", \"timed\": true, \"speedup\": 2},"
        " {\"name\": \"b\", \"timed\": true, \"speedup\": 8},"
        " {\"name\": \"c\", \"timed\": false}]}}";
    const char *crashed =
        "{\"score\": 10, \"max_score\": 100, \"output\": \"x\", \"tests\": [],"
        " \"extra_data\": {\"lab\": \"01\", \"status\": \"graded\","
        " \"correctness_score\": 10, \"cases\": ["
        " {\"name\": \"a\", \"status\": \"pass\", \"timed\": false},"
        " {\"name\": \"b\", \"status\": \"crash\", \"timed\": false},"
        " {\"name\": \"c\", \"status\": \"timeout\", \"timed\": false}]}}";
    snprintf(path, sizeof path, "%s/results/max.json", dir);
    ck_assert_int_eq(cl_write_atomic(path, crashed, strlen(crashed)), 0);
    snprintf(path, sizeof path, "%s/results/zed.json", dir);
    ck_assert_int_eq(cl_write_atomic(path, json, strlen(json)), 0);
    snprintf(path, sizeof path, "%s/results/amy.status", dir);
    const char *st = "compile-error\tx.cu(3): error: \"quoted\"\n";
    ck_assert_int_eq(cl_write_atomic(path, st, strlen(st)), 0);
    snprintf(path, sizeof path, "%s/results/bad.json", dir);
    ck_assert_int_eq(cl_write_atomic(path, "{", 1), 0);
    snprintf(path, sizeof path, "%s/results/ignored.txt", dir);
    ck_assert_int_eq(cl_write_atomic(path, "x", 1), 0);

    char err[256];
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    ck_assert_int_eq(cl_gradebook_collect(dir, lab, err, sizeof err), 4);
    snprintf(path, sizeof path, "%s/gradebook.csv", dir);
    char *csv = cl_read_file(path, NULL);
    ck_assert_str_eq(csv,
                     "student,lab,score,max_score,correctness,speedup,status,"
                     "detail\n"
                     "amy,01,0.00,100.00,0.00,,compile-error,"
                     "\"x.cu(3): error: \"\"quoted\"\"\"\n"
                     "bad,,0.00,0.00,0.00,,internal error,"
                     "bad.json is not a results.json of this grader\n"
                     "max,01,10.00,100.00,10.00,,graded: crash,x\n"
                     "zed,01,87.50,100.00,60.00,4.000,graded,"
                     "\"Lab 01, ok\"\n");
    free(csv);
    /* no results folder: an error, not a crash */
    ck_assert_int_eq(cl_gradebook_collect("/nonexistent", lab, err, sizeof err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open"));
    sh("rm -rf %s", dir);
}
END_TEST

START_TEST(test_local_batch)
{
    char dir[] = "/tmp/cl-batch-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char subs[128], out[128];
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    make_submissions(subs);
    ck_assert_int_eq(sh("make -s grade-class LAB=01 SUBMISSIONS=%s OUT=%s "
                        "> %s/run1.log 2>&1",
                        subs, out, dir),
                     0);
    expect_statuses(out);

    /* a second run grades nothing again */
    ck_assert_int_eq(sh("make -s grade-class LAB=01 SUBMISSIONS=%s OUT=%s "
                        "> %s/run2.log 2>&1",
                        subs, out, dir),
                     0);
    /* (without a GPU, the three correct ones are graded again: their
     * results say no GPU was there) */
    int gpu = have_gpu(out, "alice");
    ck_assert_int_eq(
        sh("test $(grep -c ^skip %s/run2.log) = %d", dir, gpu ? 6 : 3), 0);

    /* an interrupted batch: results of two students gone, a stale work
     * folder left: the next run grades just those two */
    ck_assert_int_eq(sh("rm %s/results/carol.json %s/results/frank.status && "
                        "touch %s/work/carol/stale",
                        out, out, out),
                     0);
    ck_assert_int_eq(sh("make -s grade-class LAB=01 SUBMISSIONS=%s OUT=%s "
                        "> %s/run3.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(
        sh("test $(grep -c ^skip %s/run3.log) = %d", dir, gpu ? 4 : 1), 0);
    ck_assert_int_eq(sh("grep -q \"^done   carol\" %s/run3.log", dir), 0);
    expect_statuses(out);

    /* FORCE=1 grades everyone again */
    ck_assert_int_eq(sh("FORCE=1 make -s grade-class LAB=01 SUBMISSIONS=%s "
                        "OUT=%s > %s/run4.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(sh("test $(grep -c ^done %s/run4.log) = 6", dir), 0);
    /* two GPU queues (GPUS="0 1"): every submission once, split between
     * them, and one gradebook (here the GPUs may not exist: the queues,
     * the split and the collection are what is tested) */
    ck_assert_int_eq(sh("FORCE=1 GPUS=\"0 1\" make -s grade-class LAB=01 "
                        "SUBMISSIONS=%s OUT=%s > %s/run5.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(
        sh("test $(grep -c \"^\\[gpu 0\\] done\" %s/run5.log) = 3 && "
           "test $(grep -c \"^\\[gpu 1\\] done\" %s/run5.log) = 3",
           dir, dir),
        0);
    ck_assert_int_eq(sh("test $(wc -l < %s/gradebook.csv) = 7", out), 0);
    /* bad arguments */
    ck_assert_int_ne(sh("make -s grade-class LAB=01 SUBMISSIONS=/nonexistent "
                        "OUT=%s > /dev/null 2>&1",
                        out),
                     0);
    ck_assert_int_ne(sh("make -s grade-class LAB=99 SUBMISSIONS=%s OUT=%s "
                        "> /dev/null 2>&1",
                        subs, out),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

/* a Lab 4 metadata struct over the kernel-parameter limit does not
 * compile: the batch says so, with nvcc's reason */
START_TEST(test_over_limit_is_a_compile_error)
{
    char dir[] = "/tmp/cl-limit-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(
        sh("mkdir -p %s/subs && cp "
           "grader/tests/compile-fail/lab04_over_limit.cu "
           "%s/subs/zoe.cu && make -s grade-class LAB=04 SUBMISSIONS=%s/subs "
           "OUT=%s/out > %s/log 2>&1",
           dir, dir, dir, dir, dir),
        0);
    char out[128];
    snprintf(out, sizeof out, "%s/out", dir);
    const char *r = row(out, "zoe");
    ck_assert_ptr_nonnull(strstr(r, ",compile-error,"));
    ck_assert_ptr_nonnull(strstr(r, "parameter space"));
    sh("rm -rf %s", dir);
}
END_TEST

START_TEST(test_slurm_batch)
{
    char dir[] = "/tmp/cl-slurm-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char subs[128], out[128];
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    make_submissions(subs);
    ck_assert_int_eq(sh("bash grader/tests/slurm-cluster.sh start > %s/up.log "
                        "2>&1",
                        dir),
                     0);
    setenv("SLURM_CONF", "/tmp/cuda-labs-slurm/slurm.conf", 1);
    int rc = sh("SLURM_GRES= make -s grade-class-slurm LAB=01 SUBMISSIONS=%s "
                "OUT=%s SBATCH_ARGS=--cpus-per-task=1 > %s/submit.log 2>&1",
                subs, out, dir);
    /* wait for the array and the collect job, at most 10 minutes */
    int waited = sh("for i in $(seq 300); do "
                    "[ -z \"$(squeue -h 2>/dev/null)\" ] && exit 0; sleep 2; "
                    "done; exit 1");
    sh("bash grader/tests/slurm-cluster.sh stop > /dev/null 2>&1");
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(waited, 0);
    expect_statuses(out);
    /* one task per submission ran */
    ck_assert_int_eq(sh("test $(ls %s/logs/slurm-*_*.out | wc -l) = 6", out),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batch");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 1200);
    tcase_add_test(core, test_gradebook_from_results);
    tcase_add_test(core, test_local_batch);
    tcase_add_test(core, test_over_limit_is_a_compile_error);
    int slurm = geteuid() == 0 && sh("command -v sbatch slurmctld slurmd "
                                     "munged > /dev/null") == 0;
    if (slurm)
        tcase_add_test(core, test_slurm_batch);
    suite_add_tcase(s, core);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!slurm)
        printf("SKIPPED: 1 tests: the Slurm batch needs root and Slurm "
               "(bash grader/tests/slurm-cluster.sh install)\n");
    return failed;
}
