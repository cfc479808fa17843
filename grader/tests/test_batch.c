/* test_batch.c: grading a whole class. The gradebook from results, the
 * local batch (statuses decided without a GPU, skips, resumption) and the
 * same batch as a Slurm job array on a one-node cluster on localhost,
 * where Slurm is installed and we are root. Runs from the project root. */
#define _GNU_SOURCE
#include "fileio.h"
#include "parent/gradebook.h"

#include <cjson/cJSON.h>

#include "tests/shell.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif

/* the gradebook line of @p student in DIR/FILE (static buffer) */
static const char *row_in(const char *dir, const char *file,
                          const char *student)
{
    static char line[2048];
    char path[512], want[300];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no %s", path);
    /* the name as the CSV writes it: quoted when it holds a quote */
    if (strpbrk(student, ",\"")) {
        size_t k = 0;
        want[k++] = '"';
        for (const char *c = student; *c && k + 3 < sizeof want; c++) {
            if (*c == '"')
                want[k++] = '"';
            want[k++] = *c;
        }
        want[k++] = '"';
        want[k] = '\0';
    } else {
        snprintf(want, sizeof want, "%s", student);
    }
    size_t n = strlen(want);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, want, n) == 0 && line[n] == ',') {
            fclose(f);
            return line;
        }
    fclose(f);
    ck_abort_msg("no row for %s in %s", student, path);
    return NULL;
}

/* the gradebook.csv line of @p student */
static const char *row(const char *dir, const char *student)
{
    return row_in(dir, "gradebook.csv", student);
}

/* the key of @p student's submission, from OUT/results/KEY.student */
static const char *key_of(const char *out, const char *student)
{
    static char key[256];
    char path[512], want[300];
    snprintf(path, sizeof path, "%s/results", out);
    snprintf(want, sizeof want, "person\t%s\t", student);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".student") != 0)
            continue;
        char file[1024];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        char *text = cl_read_file(file, NULL);
        int hit = text && strstr(text, want) != NULL;
        free(text);
        if (hit) {
            snprintf(key, sizeof key, "%.*s", (int)(dot - e->d_name),
                     e->d_name);
            closedir(d);
            return key;
        }
    }
    closedir(d);
    ck_abort_msg("no key for %s in %s", student, path);
    return NULL;
}

/* what an LMS export names its students: spaces, quotes, letters beyond
 * ASCII, and two names that a plain "A-Za-z0-9" filter maps to one */
static const char *const odd[] = {"john smith", "mary o'neil", "Zoë Ä", "Zoé Ä",
                                  "it's \"$5\""};
#define N_ODD 5

/* a submissions folder: alice (correct), bob (does not compile), carol
 * (calls cuBLAS), dave/ (a folder), erin.tar.gz (a tarball), frank/ (no
 * source at all), and correct ones under odd names: "john smith.cu",
 * "mary o'neil/vector_add.cu", "Zoë Ä.cu", "Zoé Ä.cu", "it's "$5".cu"
 * (nvcc reads $ itself: the batch builds a copy) */
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
    ck_assert_int_eq(sh("mkdir \"%s/mary o'neil\"", subs), 0);
    ck_assert_int_eq(
        sh("cp grader/tests/batch/alice.cu \"%s/john smith.cu\" "
           "&& cp grader/tests/batch/alice.cu \"%s/mary "
           "o'neil/vector_add.cu\" && "
           "cp grader/tests/batch/alice.cu \"%s/Zoë Ä.cu\" && "
           "cp grader/tests/batch/alice.cu \"%s/Zoé Ä.cu\" && "
           "cp grader/tests/batch/alice.cu \"%s/it's \\\"\\$5\\\".cu\"",
           subs, subs, subs, subs, subs),
        0);
}
#define N_SUBMISSIONS 11

static int have_gpu(const char *dir, const char *student)
{
    return strstr(row(dir, student), "no GPU") == NULL;
}

/* the Lab 1 classes below are graded with QUICK=1 (a rehearsal: the
 * quick cases alone), so that a GPU host grades them in seconds; what is
 * tested is the batch, not Lab 1 */
#define QUICK_CLASS "QUICK=1 "

/* a correct submission's row: graded with every quick correctness point,
 * marked as a rehearsal, or not graded for want of a GPU */
static void expect_correct(const char *out, const char *student)
{
    const char *r = row(out, student);
    if (have_gpu(out, student))
        /* graded, every quick correctness point: 33 of 33 */
        ck_assert_msg(strstr(r, ",graded (only the quick cases),") &&
                          strstr(r, ",33.00,"),
                      "%s", r);
    else
        ck_assert_msg(strstr(r, ",not graded: no GPU,") != NULL, "%s", r);
}

static void expect_statuses(const char *out)
{
    /* (the classes are rehearsals, QUICK=1: what the grader never saw is
     * part of the rehearsal, out of its 33 points) */
    ck_assert_ptr_nonnull(
        strstr(row(out, "bob"), ",compile-error (in a rehearsal),"));
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), "error"));
    ck_assert_ptr_nonnull(strstr(row(out, "carol"), ",forbidden library,"));
    ck_assert_ptr_nonnull(strstr(row(out, "carol"), "cublas"));
    ck_assert_ptr_nonnull(
        strstr(row(out, "frank"), ",no-source (in a rehearsal),"));
    const char *correct[] = {"alice", "dave", "erin"};
    for (int i = 0; i < 3; i++)
        expect_correct(out, correct[i]);
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), ",0.00,33.00,"));
    /* the odd names: graded under their own names, five keys, each safe
     * in a file name, and "Zoë Ä" and "Zoé Ä" apart */
    char keys[N_ODD][256];
    for (int i = 0; i < N_ODD; i++) {
        expect_correct(out, odd[i]);
        snprintf(keys[i], sizeof keys[i], "%s", key_of(out, odd[i]));
        for (const char *c = keys[i]; *c; c++)
            ck_assert_msg(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQR"
                                 "STUVWXYZ0123456789._-",
                                 *c) != NULL,
                          "key '%s'", keys[i]);
        ck_assert_msg(strstr(row(out, odd[i]), keys[i]) != NULL, "%s",
                      row(out, odd[i]));
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(keys[i], keys[j]);
    }
    ck_assert_str_eq(keys[0], "john_smith-1e811c09");
    ck_assert_int_eq(strncmp(keys[2], "Zo", 2), 0);
    ck_assert_int_eq(strncmp(keys[3], "Zo", 2), 0);
    /* one row per submission */
    ck_assert_int_eq(
        sh("test $(wc -l < %s/gradebook.csv) = %d", out, N_SUBMISSIONS + 1), 0);
}

START_TEST(test_gradebook_from_results)
{
    char dir[] = "/tmp/cl-book-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results", dir);
    ck_assert_int_eq(cl_mkdirs(path), 0);
    /* zed: two timed cases scored on a ratio (speedup 2, then a fraction
     * of the ceiling, 0.5), and a speedup only (an older grader) */
    const char *json =
        "{\"score\": 87.5, \"max_score\": 100, \"output\": \"Lab 01, ok\","
        " \"tests\": [], \"extra_data\": {\"lab\": \"01\", \"status\":"
        " \"graded\", \"correctness_score\": 60, \"cases\": ["
        " {\"name\": \"a\", \"timed\": true, \"speedup\": 9, \"ratio\": 2},"
        " {\"name\": \"b\", \"timed\": true, \"speedup\": 3, \"ratio\": 0.5,"
        " \"target\": 0.9},"
        " {\"name\": \"d\", \"timed\": true, \"speedup\": 8},"
        " {\"name\": \"c\", \"timed\": false}]}}";
    const char *crashed =
        "{\"score\": 10, \"max_score\": 100, \"output\": \"x\", \"tests\": [],"
        " \"extra_data\": {\"lab\": \"01\", \"status\": \"graded\","
        " \"correctness_score\": 10, \"cases\": ["
        " {\"name\": \"a\", \"status\": \"pass\", \"timed\": false},"
        " {\"name\": \"b\", \"status\": \"crash\", \"timed\": false},"
        " {\"name\": \"c\", \"status\": \"timeout\", \"timed\": false}]}}";
    const char *nogpu =
        "{\"score\": 0, \"max_score\": 100, \"output\": \"no GPU\", "
        "\"tests\": [], \"extra_data\": {\"lab\": \"01\", \"status\": "
        "\"not graded: no GPU\", \"correctness_score\": 0, \"cases\": []}}";
    struct {
        const char *file, *text;
    } files[] = {
        {"max.json", crashed},
        {"zed.json", json},
        {"amy.status", "compile-error\tx.cu(3): error: \"quoted\"\n"},
        {"bad.json", "{"},
        {"ignored.txt", "x"},
        /* a Gradescope group: two people, one submission */
        {"pair-0a1b2c3d.json", nogpu},
        {"pair-0a1b2c3d.student",
         "source\tsubmission_7\nperson\tO'Neil, Mary\t200\tm@x.edu\n"
         "person\tZoë Ä\t201\tz@x.edu\n"},
        /* Canvas: a late one, with its user id */
        {"smithjohn-11111111.status", "no-source\tno vector_add.cu\n"},
        {"smithjohn-11111111.student",
         "source\tsmithjohn_12345\nlate\t1\nperson\tsmithjohn\t12345\t\n"},
        /* listed, never graded (its Slurm task died) */
        {"lost-22222222.student", "source\tlost.cu\nperson\tlost\t\t\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/results/%s", dir, files[i].file);
        ck_assert_int_eq(
            cl_write_atomic(path, files[i].text, strlen(files[i].text)), 0);
    }

    char err[256];
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    ck_assert_int_eq(cl_gradebook_collect(dir, lab, err, sizeof err), 8);
    snprintf(path, sizeof path, "%s/gradebook.csv", dir);
    char *csv = cl_read_file(path, NULL);
    ck_assert_str_eq(
        csv,
        "student,lab,score,max_score,correctness,speed,status,detail,key,id,"
        "email,late\n"
        "\"O'Neil, Mary\",01,0.00,100.00,0.00,,not graded: no GPU,no GPU,"
        "pair-0a1b2c3d,200,m@x.edu,\n"
        "Zoë Ä,01,0.00,100.00,0.00,,not graded: no GPU,no GPU,pair-0a1b2c3d,"
        "201,z@x.edu,\n"
        "amy,01,0.00,100.00,0.00,,compile-error,"
        "\"x.cu(3): error: \"\"quoted\"\"\",amy,,,\n"
        "bad,,0.00,0.00,0.00,,internal error,"
        "bad.json is not a results.json of this grader,bad,,,\n"
        "lost,01,0.00,100.00,0.00,,not graded: no result,\"listed, but no "
        "result yet (the batch did not reach it, or its task died)\","
        "lost-22222222,,,\n"
        "max,01,10.00,100.00,10.00,,graded: crash,x,max,,,\n"
        "smithjohn,01,0.00,100.00,0.00,,no-source,no vector_add.cu,"
        "smithjohn-11111111,12345,,1\n"
        /* the speed: geometric mean of 2, 0.5 and 8 */
        "zed,01,87.50,100.00,60.00,2.000,graded,\"Lab 01, ok\",zed,,,\n");
    free(csv);

    /* Canvas's layout: no score where nothing was graded */
    ck_assert_int_eq(cl_gradebook_collect_as(dir, lab, CL_BOOK_CANVAS,
                                             "Lab 1 (4242)", NULL, err,
                                             sizeof err),
                     8);
    snprintf(path, sizeof path, "%s/gradebook-canvas.csv", dir);
    csv = cl_read_file(path, NULL);
    ck_assert_str_eq(csv, "Student,ID,SIS User ID,SIS Login ID,Section,"
                          "Lab 1 (4242)\n"
                          "Points Possible,,,,,100.00\n"
                          "\"O'Neil, Mary\",200,,,,\n"
                          "Zoë Ä,201,,,,\n"
                          "amy,,,,,0.00\n"
                          "bad,,,,,\n"
                          "lost,,,,,\n"
                          "max,,,,,10.00\n"
                          "smithjohn,12345,,,,0.00\n"
                          "zed,,,,,87.50\n");
    free(csv);
    /* Gradescope's */
    ck_assert_int_eq(cl_gradebook_collect_as(dir, lab, CL_BOOK_GRADESCOPE, NULL,
                                             NULL, err, sizeof err),
                     8);
    snprintf(path, sizeof path, "%s/gradebook-gradescope.csv", dir);
    csv = cl_read_file(path, NULL);
    ck_assert_str_eq(csv,
                     "Name,SID,Email,Total Score,Max Points,Status\n"
                     "\"O'Neil, Mary\",200,m@x.edu,,100.00,not graded: no GPU\n"
                     "Zoë Ä,201,z@x.edu,,100.00,not graded: no GPU\n"
                     "amy,,,0.00,100.00,compile-error\n"
                     "bad,,,,0.00,internal error\n"
                     "lost,,,,100.00,not graded: no result\n"
                     "max,,,10.00,100.00,graded: crash\n"
                     "smithjohn,12345,,0.00,100.00,no-source\n"
                     "zed,,,87.50,100.00,graded\n");
    free(csv);
    /* the format names */
    enum cl_book_format f;
    ck_assert_int_eq(cl_book_format_parse("canvas", &f), 0);
    ck_assert_int_eq(f, CL_BOOK_CANVAS);
    ck_assert_int_eq(cl_book_format_parse("gradescope", &f), 0);
    ck_assert_int_eq(f, CL_BOOK_GRADESCOPE);
    ck_assert_int_eq(cl_book_format_parse("moodle", &f), -1);
    /* the command line: a bad format is a usage error */
    ck_assert_int_eq(sh(CL_BUILD_DIR "/bin/grade 01 --collect %s --format "
                                     "moodle > /dev/null 2>&1",
                        dir),
                     2);
    ck_assert_int_eq(sh(CL_BUILD_DIR
                        "/bin/grade 01 --collect %s --format "
                        "gradescope | grep -q gradebook-gradescope.csv",
                        dir),
                     0);
    /* no batch there: said, not a crash */
    ck_assert_int_eq(cl_gradebook_collect("/nonexistent", lab, err, sizeof err),
                     CL_BOOK_NOT_A_BATCH);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent is not a folder"));
    ck_assert_int_eq(cl_gradebook_collect("/tmp", lab, err, sizeof err),
                     CL_BOOK_NOT_A_BATCH);
    ck_assert_ptr_nonnull(strstr(err, "cannot open /tmp/results"));
    /* another lab's results: refused, naming the lab and the file */
    ck_assert_int_eq(
        cl_gradebook_collect(dir, cl_lab_find("02", NULL), err, sizeof err),
        CL_BOOK_NOT_A_BATCH);
    ck_assert_msg(strstr(err, "is a result of lab 01, not of lab 02") != NULL,
                  "%s", err);
    sh("rm -rf %s", dir);
}
END_TEST

/* names an LMS hands over that a spreadsheet would run as formulas (a
 * plain file name, a Canvas folder, Gradescope's metadata: name, SID,
 * email): every gradebook writes them as text, quoted and led by ',
 * and leaves numbers alone */
START_TEST(test_gradebook_cells_are_never_formulas)
{
    char dir[] = "/tmp/cl-formula-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results", dir);
    ck_assert_int_eq(cl_mkdirs(path), 0);
    const char *st = "compile-error\t=cmd|' /C calc'!A0\n";
    struct {
        const char *file, *text;
    } files[] = {
        {"a-00000001.status", st},
        {"a-00000001.student",
         "source\t=HYPERLINK(\"http://x\",\"y\")\nperson\t=HYPERLINK("
         "\"http://x\",\"y\")\t+41\t@evil.edu\n"},
        {"b-00000002.status", st},
        {"b-00000002.student", "source\tb\nperson\t-2+3\t-1.5\t\tx@y\n"},
        {"c-00000003.status", st},
        {"c-00000003.student", "source\tc\nperson\t\t=1+1\t\t\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/results/%s", dir, files[i].file);
        ck_assert_int_eq(
            cl_write_atomic(path, files[i].text, strlen(files[i].text)), 0);
    }
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    char err[256];
    const enum cl_book_format fmts[] = {CL_BOOK_CANVAS, CL_BOOK_GRADESCOPE};
    for (int k = 0; k < 2; k++)
        ck_assert_int_eq(cl_gradebook_collect_as(dir, lab, fmts[k], NULL, NULL,
                                                 err, sizeof err),
                         3);
    const char *books[] = {"gradebook.csv", "gradebook-canvas.csv",
                           "gradebook-gradescope.csv"};
    for (int b = 0; b < 3; b++) {
        snprintf(path, sizeof path, "%s/%s", dir, books[b]);
        char *csv = cl_read_file(path, NULL);
        ck_assert_ptr_nonnull(csv);
        /* no cell, quoted or not, starts with a formula's first letter */
        for (const char *c = csv; *c; c++) {
            int starts = c == csv || c[-1] == ',' || c[-1] == '\n';
            if (!starts)
                continue;
            const char *v = *c == '"' ? c + 1 : c;
            if (!*v || !strchr("=+-@\t", *v))
                continue;
            /* only a number may: "-1.5" (an id), "+41" */
            char *end = NULL;
            (void)strtod(v, &end);
            ck_assert_msg(end != v && (*end == ',' || *end == '\n'),
                          "%s: a cell starts with '%c': %.60s", books[b], *v,
                          c);
        }
        ck_assert_msg(
            strstr(csv, "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""),
            "%s: %s", books[b], csv);
        free(csv);
    }
    snprintf(path, sizeof path, "%s/gradebook.csv", dir);
    char *csv = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(strstr(csv, ",\"'=cmd|' /C calc'!A0\","));
    ck_assert_ptr_nonnull(strstr(csv, "\"'-2+3\""));
    ck_assert_ptr_nonnull(strstr(csv, ",-1.5,"));
    ck_assert_ptr_nonnull(strstr(csv, ",\"'@evil.edu\","));
    ck_assert_ptr_nonnull(strstr(csv, ",+41,")); /* a number */
    free(csv);
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
    ck_assert_int_eq(sh(QUICK_CLASS
                        "make -s grade-class LAB=01 SUBMISSIONS=%s OUT=%s "
                        "> %s/run1.log 2>&1",
                        subs, out, dir),
                     0);
    expect_statuses(out);

    /* the build cache: one entry per distinct file that built (alice's
     * eight copies are one; carol's cuBLAS call builds; bob's compile
     * error is not kept) */
    ck_assert_int_eq(sh("test $(ls %s/cache | wc -l) = 2", out), 0);

    /* a second run grades nothing again */
    ck_assert_int_eq(sh(QUICK_CLASS
                        "make -s grade-class LAB=01 SUBMISSIONS=%s OUT=%s "
                        "> %s/run2.log 2>&1",
                        subs, out, dir),
                     0);
    /* (without a GPU, the eight correct ones are graded again: their
     * results say no GPU was there) */
    int gpu = have_gpu(out, "alice");
    ck_assert_int_eq(sh("test $(grep -c ^skip %s/run2.log) = %d", dir,
                        gpu ? N_SUBMISSIONS : 3),
                     0);

    /* an interrupted batch: results of two students gone, a stale work
     * folder left: the next run grades just those two */
    char carol[256], frank[256];
    snprintf(carol, sizeof carol, "%s", key_of(out, "carol"));
    snprintf(frank, sizeof frank, "%s", key_of(out, "frank"));
    ck_assert_int_eq(sh("rm %s/results/%s.json %s/results/%s.status && "
                        "touch %s/work/%s/stale",
                        out, carol, out, frank, out, carol),
                     0);
    ck_assert_int_eq(sh(QUICK_CLASS
                        "make -s grade-class LAB=01 SUBMISSIONS=%s OUT=%s "
                        "> %s/run3.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(sh("test $(grep -c ^skip %s/run3.log) = %d", dir,
                        gpu ? N_SUBMISSIONS - 2 : 1),
                     0);
    ck_assert_int_eq(sh("grep -q \"^done   carol\" %s/run3.log", dir), 0);
    expect_statuses(out);

    /* FORCE=1 grades everyone again */
    ck_assert_int_eq(sh(QUICK_CLASS
                        "FORCE=1 make -s grade-class LAB=01 SUBMISSIONS=%s "
                        "OUT=%s > %s/run4.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(
        sh("test $(grep -c ^done %s/run4.log) = %d", dir, N_SUBMISSIONS), 0);
    /* (built from the cache: nothing new in it; a file changed by one
     * byte is a new entry, its log its own) */
    ck_assert_int_eq(sh("test $(ls %s/cache | wc -l) = 2", out), 0);
    ck_assert_int_eq(
        sh("echo \"// v2\" >> \"%s/john smith.cu\" && " QUICK_CLASS
           "FORCE=1 make -s grade-class LAB=01 SUBMISSIONS=%s OUT=%s "
           "> %s/run4b.log 2>&1 && test $(ls %s/cache | wc -l) = "
           "3 && grep -q \"^done   john smith\" %s/run4b.log",
           subs, subs, out, dir, out, dir),
        0);
    /* two GPU queues (GPUS="0 1"): every submission once, split between
     * them, and one gradebook (here the GPUs may not exist: the queues,
     * the split and the collection are what is tested) */
    ck_assert_int_eq(sh(QUICK_CLASS
                        "FORCE=1 GPUS=\"0 1\" make -s grade-class LAB=01 "
                        "SUBMISSIONS=%s OUT=%s > %s/run5.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(
        sh("test $(grep -c \"^\\[gpu 0\\] done\" %s/run5.log) = %d && "
           "test $(grep -c \"^\\[gpu 1\\] done\" %s/run5.log) = %d",
           dir, N_SUBMISSIONS - N_SUBMISSIONS / 2, dir, N_SUBMISSIONS / 2),
        0);
    expect_statuses(out);
    /* bad arguments */
    ck_assert_int_ne(sh(QUICK_CLASS
                        "make -s grade-class LAB=01 SUBMISSIONS=/nonexistent "
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

/* Canvas's "Download Submissions": files lastfirst[_LATE]_USERID_SUBID_FILE;
 * a student's files are graded together, a resubmission's FILE-1.cu is
 * FILE.cu, a zip inside is unpacked; the gradebook in Canvas's layout */
START_TEST(test_canvas_export)
{
    char dir[] = "/tmp/cl-canvas-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(
        sh("mkdir -p %s/subs %s/t && cd %s/subs && "
           "cp ~-/grader/tests/batch/alice.cu "
           "smithjohn_12345_6789012_vector_add.cu && "
           "cp ~-/grader/tests/batch/bob.cu "
           "oneilmary_LATE_23456_6789013_vector_add-1.cu && "
           "echo notes > oneilmary_LATE_23456_6789013_README.txt && "
           "cp ~-/grader/tests/batch/alice.cu %s/t/vector_add.cu && "
           "(cd %s/t && tar -cf - vector_add.cu) > "
           "zoe_34567_6789014_lab1.tar",
           dir, dir, dir, dir, dir),
        0);
    /* what else lies in a download that went through a desktop: a note of
     * the instructor's and the litter of a Mac's archiver and Windows */
    ck_assert_int_eq(sh("cd %s/subs && echo todo > notes.txt && mkdir "
                        "__MACOSX && echo x > "
                        "__MACOSX/._smithjohn_12345_6789012_vector_add.cu && "
                        "echo x > .DS_Store && echo x > Thumbs.db",
                        dir),
                     0);
    ck_assert_int_eq(sh(QUICK_CLASS
                        "FORMAT=canvas make -s grade-class LAB=01 "
                        "SUBMISSIONS=%s/subs OUT=%s/out ASSIGNMENT=\"Lab 1 "
                        "(4242)\" > %s/log 2>&1",
                        dir, dir, dir),
                     0);
    char out[128];
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(
        sh("grep -q \"3 submissions (canvas layout)\" %s/log", dir), 0);
    ck_assert_int_eq(sh("grep -q \"skipping .notes.txt.\" %s/log", dir), 0);
    ck_assert_int_eq(sh("test $(wc -l < %s/out/gradebook.csv) = 4", dir), 0);
    /* the user ids and the late flag; bob's file compiled as vector_add.cu
     * (on a GPU host the class is a rehearsal, and bob's row part of it) */
    int rehearsal = have_gpu(out, "smithjohn");
    const char *r = row(out, "oneilmary");
    ck_assert_msg(strstr(r, rehearsal ? ",compile-error (in a rehearsal),"
                                      : ",compile-error,") &&
                      strstr(r, "vector_add.cu(") && strstr(r, ",23456,,1\n"),
                  "%s", r);
    expect_correct(out, "smithjohn");
    ck_assert_ptr_nonnull(strstr(row(out, "smithjohn"), ",12345,,\n"));
    expect_correct(out, "zoe");
    /* Canvas's import: the column titled as asked, the ids, no score where
     * nothing was graded */
    ck_assert_int_eq(sh("head -n 2 %s/gradebook-canvas.csv | tr -d \"\\r\" | "
                        "paste -sd \"|\" | grep -qx \"Student,ID,SIS User "
                        "ID,SIS Login ID,Section,Lab 1 (4242)|Points "
                        "Possible,,,,,100.00\"",
                        out),
                     0);
    ck_assert_ptr_nonnull(
        strstr(row_in(out, "gradebook-canvas.csv", "oneilmary"),
               rehearsal ? ",23456,,,,\n" : ",23456,,,,0.00\n"));
    /* no score for smithjohn: no GPU, or a rehearsal (never imported) */
    ck_assert_ptr_nonnull(strstr(
        row_in(out, "gradebook-canvas.csv", "smithjohn"), ",12345,,,,\n"));
    sh("rm -rf %s", dir);
}
END_TEST

/* lab 00's submissions (plain C, graded on the CPU): right, wrong (a - b),
 * and one that does not compile */
static const char sub_right[] =
    "void selftest_add(const float *a, const float *b, float *c, int n)\n"
    "{\n    for (int i = 0; i < n; i++)\n        c[i] = a[i] + b[i];\n}\n";
static const char sub_wrong[] =
    "void selftest_add(const float *a, const float *b, float *c, int n)\n"
    "{\n    for (int i = 0; i < n; i++)\n        c[i] = a[i] - b[i];\n}\n";
static const char sub_broken[] = "void selftest_add(int n) { int x = ; }\n";

static void put(const char *dir, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ck_assert_int_eq(cl_write_atomic(path, text, strlen(text)), 0);
}

/* right on n = 1, then never returns (the hang a Ctrl-C stops) */
static const char sub_hang[] =
    "void selftest_add(const float *a, const float *b, float *c, int n)\n"
    "{\n    volatile int forever = n > 1;\n    while (forever)\n        ;\n"
    "    for (int i = 0; i < n; i++)\n        c[i] = a[i] + b[i];\n}\n";

/* Ctrl-C during make grade-class, as a terminal sends it (SIGINT to the
 * whole foreground group: timeout's own group here), while bob's grade
 * hangs on a case with a minute's limit: the grade under way is told and
 * ends at once, no other starts, the batch says how far it got and exits
 * 130; bob's incomplete result is graded again by the next run, which
 * grades carol too and skips alice. With two queues (GPUS="0 1"), each
 * says what it stopped. */
START_TEST(test_interrupted_batch_resumes)
{
    char dir[] = "/tmp/cl-intr-XXXXXX", subs[64], out[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(sh("mkdir -p %s", subs), 0);
    put(subs, "alice.c", sub_right);
    put(subs, "bob.c", sub_hang);
    put(subs, "carol.c", sub_right);
    put(dir, "slow.json",
        "{\"name\": \"slow\", \"labs\": {\"00\": {\"timeout_s\": 60}}}\n");
    /* ^C once bob's grade is under way: alice done, and bob's grade has
     * forked its judge (three processes name this batch's bob's library:
     * timeout, the grade, its judge), so the grade has its handler: a ^C
     * before that ends it with nothing written, and bob is graded again
     * all the same */
    const char *run =
        "cd %s && (timeout -s INT --preserve-status 300 env "
        "POLICY=$PWD/slow.json "
        "%s make -s -C %s grade-class LAB=00 SUBMISSIONS=%s OUT=%s > "
        "%s.log 2>&1 & p=$!; i=0; until grep -q '%s' %s.log && "
        "[ $(pgrep -c -f \"$PWD/out/[w]ork/bob-[0-9a-f]*/lab[.]so\") -ge 3 ] "
        "|| [ $i -ge 240 ]; do sleep 0.5; i=$((i + 1)); done; sleep 2; "
        "t=$(date +%%s); kill -INT $p; wait $p; echo $? > %s.rc; "
        "echo $(( $(date +%%s) - t )) > %s.secs)";
    ck_assert_int_eq(sh(run, dir, "", CL_ROOT, subs, out, "run1",
                        "^done   alice", "run1", "run1", "run1"),
                     0);
    ck_assert_int_eq(sh("cd %s && test $(cat run1.rc) = 130 && test $(cat "
                        "run1.secs) -lt 15",
                        dir),
                     0);
    ck_assert_int_eq(
        sh("cd %s && grep -q '^stop   bob .*interrupted (exit 130)' run1.log "
           "&& grep -q '^grade-class: interrupted: 1 of 3 graded; run again "
           "to resume' run1.log && ! grep -q carol run1.log",
           dir),
        0);
    ck_assert_int_eq(
        sh("grep -Eq '\"incomplete\":[[:space:]]*true' %s/results/bob-*.json",
           out),
        0);
    /* the next run: bob (fixed) and carol graded, alice kept */
    put(subs, "bob.c", sub_right);
    ck_assert_int_eq(sh("make -s grade-class LAB=00 SUBMISSIONS=%s OUT=%s > "
                        "%s/run2.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(sh("cd %s && grep -q '^skip   alice' run2.log && grep "
                        "-q '^done   bob' run2.log && grep -q '^done   carol' "
                        "run2.log",
                        dir),
                     0);
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), ",graded,"));
    /* two queues: each stops its own grade and says so */
    put(subs, "bob.c", sub_hang);
    ck_assert_int_eq(sh(run, dir, "FORCE=1 GPUS=\"0 1\"", CL_ROOT, subs, out,
                        "run3", "^\\[gpu 0\\] done   alice", "run3", "run3",
                        "run3"),
                     0);
    ck_assert_int_eq(
        sh("cd %s && test $(cat run3.rc) = 130 && grep -q '^\\[gpu 1\\] stop "
           "  bob' run3.log && grep -q '^grade-class: interrupted: ' run3.log",
           dir),
        0);
    sh("rm -rf %s", dir);
}
END_TEST

/* A speed case timed while another process used the GPU is `unconfirmed`
 * (docs/grading.md): with GPUS="0 0" the two queues on one GPU time each
 * other (and one's memory hog can make the other's grader fail:
 * `internal-error`). A stand-in for the grader (the real one, then bob's first
 * result rewritten with a case unconfirmed, as the judge writes it) shows the
 * batch grading bob again at the end, alone, and keeping his second
 * result, and never dave, whose code prints both statuses as the JSON
 * spells them (only the judge's verdicts reach results.json); the warning
 * for a GPU named twice; a later run grading again a result left with an
 * internal-error case and skipping the rest; and the GPU each grading
 * was given (GPUS=7 alone is GPU 7, not the first; without GPUS, the GPUs
 * CUDA_VISIBLE_DEVICES leaves, as in a Slurm allocation). */
START_TEST(test_unconfirmed_graded_again)
{
    char dir[] = "/tmp/cl-unconf-XXXXXX", subs[64], out[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(sh("mkdir -p %s", subs), 0);
    put(subs, "alice.c", sub_right);
    put(subs, "bob.c", sub_right);
    put(subs, "carol.c", sub_right);
    put(subs, "dave.c",
        "#include <stdio.h>\n"
        "void selftest_add(const float *a, const float *b, float *c, int n)\n"
        "{\n"
        "    printf(\"\\\"status\\\": \\\"unconfirmed\\\"\\n\");\n"
        "    fprintf(stderr, \"\\\"status\\\":\\\"internal-error\\\"\\n\");\n"
        "    for (int i = 0; i < n; i++)\n"
        "        c[i] = a[i] + b[i];\n"
        "}\n");
    char stand_in[4096];
    snprintf(stand_in, sizeof stand_in,
             "#!/bin/sh\n"
             "%s%s%s/bin/grade \"$@\"\n"
             "rc=$?\n"
             "json= prev=\n"
             "for a in \"$@\"; do [ \"$prev\" = --json ] && json=$a; "
             "prev=$a; done\n"
             "[ -z \"$json\" ] || echo \"${CUDA_VISIBLE_DEVICES-unset}\" >> "
             "%s/gpus\n"
             "case $json in\n"
             "*/bob-*.json)\n"
             "    if [ -n \"${ALWAYS:-}\" ] || [ ! -e %s/once ]; then\n"
             "        : > %s/once\n"
             "        sed -i -E '0,/\"status\":[[:space:]]*\"pass\"/"
             "s//\"status\": \"unconfirmed\"/' \"$json\"\n"
             "    fi ;;\n"
             "esac\n"
             "exit $rc\n",
             CL_BUILD_DIR[0] == '/' ? "" : CL_ROOT,
             CL_BUILD_DIR[0] == '/' ? "" : "/", CL_BUILD_DIR, dir, dir, dir);
    put(dir, "grade", stand_in);
    ck_assert_int_eq(sh("chmod +x %s/grade", dir), 0);
    const char *run = "cd %s && %s GRADE=%s/grade bash tools/grade-class.sh "
                      "00 %s %s > %s/%s.log 2>&1";
    ck_assert_int_eq(
        sh(run, CL_ROOT, "GPUS=\"0 0\"", dir, subs, out, dir, "run1"), 0);
    /* the warning, both queues, and bob again at the end, alone */
    ck_assert_int_eq(
        sh("cd %s && grep -q '^grade-class: GPUS names GPU 0 more than "
           "once' run1.log && grep -q '^\\[gpu 0\\] done   alice' run1.log && "
           "grep -q '^grade-class: 1 graded again, one at a time' run1.log && "
           "test $(grep -c 'done   bob' run1.log) = 2 && "
           "grep -q '^done   bob' run1.log && "
           "! grep -q 'still unconfirmed' run1.log && test -e once",
           dir),
        0);
    ck_assert_int_eq(
        sh("! grep -q unconfirmed %s/results/%s.json", out, key_of(out, "bob")),
        0);
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), ",graded,"));
    ck_assert_ptr_nonnull(strstr(row(out, "dave"), ",graded,"));
    ck_assert_int_eq(sh("test $(grep -c 'done   dave' %s/run1.log) = 1", dir),
                     0);
    /* a result left with a case the grader failed (internal-error: the
     * GPU's memory taken by a neighbour, say) is graded again by the next
     * run, the rest skipped; GPUS=7 alone is GPU 7 */
    char carol[256];
    snprintf(carol, sizeof carol, "%s/results/%s.json", out,
             key_of(out, "carol"));
    ck_assert_int_eq(sh("sed -i -E '0,/\"status\":[[:space:]]*\"pass\"/"
                        "s//\"status\": \"internal-error\"/' %s && : > "
                        "%s/gpus",
                        carol, dir),
                     0);
    ck_assert_int_eq(sh(run, CL_ROOT, "GPUS=7", dir, subs, out, dir, "run2"),
                     0);
    ck_assert_int_eq(sh("cd %s && grep -q '^skip   alice' run2.log && grep "
                        "-q '^skip   bob' run2.log && grep -q '^skip   dave' "
                        "run2.log && grep -q '^done   carol' run2.log && ! "
                        "grep -q 'graded again' run2.log && "
                        "test \"$(cat gpus)\" = 7",
                        dir),
                     0);
    /* bob unconfirmed every time: graded twice, then told to run again */
    ck_assert_int_eq(sh(run, CL_ROOT, "ALWAYS=1 FORCE=1 GPUS=0", dir, subs, out,
                        dir, "run3"),
                     0);
    ck_assert_int_eq(
        sh("cd %s && test $(grep -c 'done   bob' run3.log) = 2 && grep -q "
           "'^grade-class: 1 still unconfirmed or internal-error: .* run the "
           "same command again on an idle GPU' run3.log",
           dir),
        0);
    /* without GPUS: the GPUs CUDA_VISIBLE_DEVICES leaves, one queue each */
    ck_assert_int_eq(sh("cd %s && : > %s/gpus && env -u GPUS "
                        "CUDA_VISIBLE_DEVICES=3,5 FORCE=1 GRADE=%s/grade bash "
                        "tools/grade-class.sh 00 %s %s > %s/run4.log 2>&1",
                        CL_ROOT, dir, dir, subs, out, dir),
                     0);
    ck_assert_int_eq(
        sh("cd %s && grep -q '^\\[gpu 3\\] done   alice' run4.log && grep -q "
           "'^\\[gpu 5\\] done   bob' run4.log && test \"$(sort -u gpus | tr "
           "'\\n' ' ')\" = '3 5 '",
           dir),
        0);
    sh("rm -rf %s", dir);
}
END_TEST

/* The same confinement on a GPU lab (nvcc, no GPU needed to build): a
 * Lab 3 submission that #includes the reference solution by its path
 * builds nothing and scores 0, "forbidden include", the file named; the
 * reference's kernel never reaches the compiler */
START_TEST(test_gpu_lab_build_is_confined)
{
    char dir[] = "/tmp/cl-confine3-XXXXXX", subs[64], out[64], text[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(sh("mkdir -p %s", subs), 0);
    snprintf(text, sizeof text,
             "#include \"%s/solutions/03-matmul/matmul.cu\"\n", CL_ROOT);
    put(subs, "borrow_reference.cu", text);
    ck_assert_int_eq(sh("QUICK=1 make -s grade-class LAB=03 SUBMISSIONS=%s "
                        "OUT=%s > %s/run.log 2>&1",
                        subs, out, dir),
                     0);
    const char *r = row(out, "borrow_reference");
    ck_assert_msg(strstr(r, ",0.00,") && strstr(r, ",forbidden include") &&
                      strstr(r, "solutions/03-matmul/matmul.cu") &&
                      strstr(r, "which the build may not read"),
                  "%s", r);
    ck_assert_int_ne(sh("grep -l matmul_kernel %s/logs/*build*", out), 0);
    sh("rm -rf %s", dir);
}
END_TEST

/* Every submission is built by cl-build, confined: a scratch copy of the
 * one file, the lab's headers, the toolkit and the system's headers. An
 * #include or .incbin of a course file (found by its path), an #include
 * of /dev/zero (which never ends), a relative #include of a course file:
 * none builds, the first three named as reading outside the build
 * ("forbidden include", cl-build's exit 4, 0 points), the last a compile
 * error. The honest one beside them is graded. Where the kernel has no
 * Landlock the strict build of a grading path refuses to build (the
 * grader's failure: not graded), and a student's own build warns. */
START_TEST(test_batch_build_is_confined)
{
    char dir[] = "/tmp/cl-confine-XXXXXX", subs[64], out[64], text[1024];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(sh("mkdir -p %s", subs), 0);
    put(subs, "honest.c", sub_right);
    snprintf(text, sizeof text,
             "#include \"%s/grader/tests/selftest/honest.c\"\n", CL_ROOT);
    put(subs, "include_course.c", text);
    snprintf(text, sizeof text,
             "__asm__(\".section .rodata\\n.incbin \\\"%s/Makefile\\\"\\n"
             ".text\");\n%s",
             CL_ROOT, sub_right);
    put(subs, "incbin_course.c", text);
    put(subs, "dev_zero.c", "#include \"/dev/zero\"\n");
    put(subs, "relative.c",
        "#include \"../../../../grader/tests/selftest/honest.c\"\n");
    ck_assert_int_eq(sh("QUICK=1 make -s grade-class LAB=00 SUBMISSIONS=%s "
                        "OUT=%s > %s/run1.log 2>&1",
                        subs, out, dir),
                     0);
    const char *r = row(out, "honest");
    ck_assert_msg(strstr(r, ",graded (only the quick cases),"), "%s", r);
    r = row(out, "include_course");
    ck_assert_msg(strstr(r, ",0.00,") &&
                      strstr(r, ",forbidden include (in a rehearsal),") &&
                      strstr(r, "selftest/honest.c") &&
                      strstr(r, "which the build may not read"),
                  "%s", r);
    r = row(out, "incbin_course");
    ck_assert_msg(strstr(r, ",forbidden include (in a rehearsal),") &&
                      strstr(r, "/Makefile"),
                  "%s", r);
    r = row(out, "dev_zero");
    ck_assert_msg(strstr(r, ",forbidden include (in a rehearsal),") &&
                      strstr(r, "/dev/zero"),
                  "%s", r);
    r = row(out, "relative");
    ck_assert_msg(strstr(r, ",compile-error (in a rehearsal),"), "%s", r);
    /* the compiler never saw the course: nothing of it in any build log */
    ck_assert_int_ne(
        sh("grep -l \"selftest_add(const float\" %s/logs/*build*", out), 0);

    /* no Landlock: a grading path refuses (not graded), a student's own
     * build warns and builds */
    ck_assert_int_eq(sh("rm -rf %s/out2 && CL_BUILD_TEST_NO_LANDLOCK=1 QUICK=1 "
                        "make -s grade-class LAB=00 SUBMISSIONS=%s OUT=%s/out2 "
                        "> %s/run2.log 2>&1",
                        dir, subs, dir, dir),
                     0);
    snprintf(text, sizeof text, "%s/out2", dir);
    r = row(text, "honest");
    ck_assert_msg(strstr(r, ",internal error,") && strstr(r, "no Landlock"),
                  "%s", r);
    ck_assert_int_eq(
        sh("CL_BUILD_TEST_NO_LANDLOCK=1 " CL_BUILD_DIR "/bin/cl-build "
           "%s/honest.c %s/h.so -- cc -shared -fPIC > %s/own.log 2>&1 && "
           "test -s %s/h.so && grep -q \"NOT confined\" %s/own.log",
           subs, dir, dir, dir, dir),
        0);
    ck_assert_int_eq(
        sh("CL_BUILD_TEST_NO_LANDLOCK=1 " CL_BUILD_DIR "/bin/cl-build --strict "
           "%s/honest.c %s/h2.so -- cc -shared -fPIC > %s/strict.log 2>&1",
           subs, dir, dir),
        6);
    /* a build that outlives its wall clock is stopped, its group killed */
    put(subs, "slow.c", "int x;\n");
    ck_assert_int_eq(sh(CL_BUILD_DIR
                        "/bin/cl-build --timeout 1 %s/slow.c "
                        "%s/s.so -- sh -c \"sleep 30\" > %s/slow.log 2>&1",
                        subs, dir, dir),
                     1);
    ck_assert_int_eq(sh("grep -q \"ran past 1 s\" %s/slow.log", dir), 0);
    sh("rm -rf %s", dir);
}
END_TEST

/* A course's policy reaches every submission of a batch and its gradebook
 * (graded on the CPU self-test lab 00): the points are the policy's, a
 * compile error is out of the policy's total, the policy is kept with the
 * batch and another one refused until FORCE=1; a bad one grades nothing.
 * The folder mixes Canvas's files, plain entries, a stray notes.txt and
 * desktop litter: each entry is read for what it is, so the Canvas
 * students keep their ids. */
START_TEST(test_batch_policy_and_mixed_entries)
{
    char dir[] = "/tmp/cl-pol-XXXXXX", subs[64], out[64], pol[64], pol2[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(pol, sizeof pol, "%s/course.json", dir);
    snprintf(pol2, sizeof pol2, "%s/course2.json", dir);
    ck_assert_int_eq(sh("mkdir -p %s/dave/__MACOSX %s/__MACOSX", subs, subs),
                     0);
    put(subs, "smithjohn_12345_6789012_honest.c", sub_right);
    put(subs, "oneilmary_LATE_23456_6789013_honest-1.c", sub_wrong);
    put(subs, "bob.c", sub_broken);
    put(subs, "dave/honest.c", sub_right);
    /* litter, beside and inside: never a student, never a second source */
    put(subs, "dave/._honest.c", "junk");
    put(subs, "dave/__MACOSX/._honest.c", "junk");
    put(subs, "__MACOSX/._smithjohn_12345_6789012_honest.c", "junk");
    put(subs, ".DS_Store", "junk");
    put(subs, "Thumbs.db", "junk");
    put(subs, "desktop.ini", "junk");
    put(subs, "notes.txt", "remember to grade lab 0\n");
    const char *course = "{\"name\": \"course X\", \"labs\": {\"00\": "
                         "{\"cases\": {\"n=1\": 5, \"n=1000\": 7, "
                         "\"n=2^20\": 3, \"speed\": 0}}}}\n";
    put(dir, "course.json", course);
    ck_assert_int_eq(sh("POLICY=%s FORMAT=canvas make -s grade-class LAB=00 "
                        "SUBMISSIONS=%s OUT=%s > %s/run1.log 2>&1",
                        pol, subs, out, dir),
                     0);
    ck_assert_int_eq(sh("grep -q \"4 submissions (canvas+plain layout)\" "
                        "%s/run1.log && grep -q \"policy %s/policy.json\" "
                        "%s/run1.log && grep -q \"skipping .notes.txt.: not a "
                        "submission\" %s/run1.log",
                        dir, out, dir, dir),
                     0);
    ck_assert_int_ne(sh("grep -E -q \"MACOSX|Thumbs|desktop|DS_Store\" "
                        "%s/run1.log %s/gradebook.csv",
                        dir, out),
                     0);
    /* the policy's points: 15 in all; Canvas's ids kept */
    const char *r = row(out, "smithjohn");
    ck_assert_msg(strstr(r, ",00,15.00,15.00,15.00,") &&
                      strstr(r, ",graded,") && strstr(r, ",12345,,\n"),
                  "%s", r);
    r = row(out, "oneilmary");
    ck_assert_msg(strstr(r, ",0.00,15.00,") && strstr(r, ",graded: wrong,") &&
                      strstr(r, ",23456,,1\n"),
                  "%s", r);
    r = row(out, "bob");
    ck_assert_msg(strstr(r, ",0.00,15.00,") && strstr(r, ",compile-error,"),
                  "%s", r);
    r = row(out, "dave");
    ck_assert_msg(strstr(r, ",15.00,15.00,") && strstr(r, ",graded,"), "%s", r);
    ck_assert_int_eq(sh("test $(wc -l < %s/gradebook.csv) = 5", out), 0);
    ck_assert_int_eq(sh("grep -q \"Points Possible,,,,,15.00\" "
                        "%s/gradebook-canvas.csv",
                        out),
                     0);
    /* every result names the policy; the batch keeps it and its lab */
    ck_assert_int_eq(sh("grep -l '\"policy\":.*\"course X\"' %s/results/*.json "
                        "| wc -l | grep -qx 3",
                        out),
                     0);
    ck_assert_int_eq(sh("cmp -s %s %s/policy.json && grep -qx \"00 selftest\" "
                        "%s/lab",
                        pol, out, out),
                     0);
    /* the gradebook again, by hand: the policy still gives the points of
     * the compile error */
    ck_assert_int_eq(sh(CL_BUILD_DIR "/bin/grade 00 --collect %s --policy "
                                     "%s/policy.json > /dev/null",
                        out, out),
                     0);
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), ",0.00,15.00,"));
    /* not another lab's batch */
    ck_assert_int_eq(sh(CL_BUILD_DIR "/bin/grade 01 --collect %s > /dev/null "
                                     "2>&1",
                        out),
                     2);

    /* another policy: refused while the batch has results... */
    const char *course2 = "{\"name\": \"course Y\", \"labs\": {\"00\": "
                          "{\"cases\": {\"n=1\": 10, \"n=1000\": 7, "
                          "\"n=2^20\": 3, \"speed\": 0}}}}\n";
    put(dir, "course2.json", course2);
    ck_assert_int_ne(sh("POLICY=%s make -s grade-class LAB=00 SUBMISSIONS=%s "
                        "OUT=%s > %s/run2.log 2>&1",
                        pol2, subs, out, dir),
                     0);
    ck_assert_int_eq(
        sh("grep -q \"graded with another policy\" %s/run2.log", dir), 0);
    /* ...and FORCE=1 grades everyone with it */
    ck_assert_int_eq(sh("FORCE=1 POLICY=%s make -s grade-class LAB=00 "
                        "SUBMISSIONS=%s OUT=%s > %s/run3.log 2>&1",
                        pol2, subs, out, dir),
                     0);
    ck_assert_ptr_nonnull(strstr(row(out, "dave"), ",20.00,20.00,"));
    ck_assert_ptr_nonnull(strstr(row(out, "bob"), ",0.00,20.00,"));
    /* a re-run without POLICY keeps the batch's (nothing graded again) */
    ck_assert_int_eq(sh("make -s grade-class LAB=00 SUBMISSIONS=%s OUT=%s > "
                        "%s/run4.log 2>&1 && test $(grep -c ^skip %s/run4.log) "
                        "= 4",
                        subs, out, dir, dir),
                     0);
    ck_assert_ptr_nonnull(strstr(row(out, "dave"), ",20.00,20.00,"));

    /* a bad policy: one line, exit 2 from the script, nothing graded */
    put(dir, "bad.json", "{\"labs\": {\"00\": {\"cases\": {\"nope\": 1}}}}");
    ck_assert_int_ne(sh("POLICY=%s/bad.json make -s grade-class LAB=00 "
                        "SUBMISSIONS=%s OUT=%s/out2 > %s/run5.log 2>&1",
                        dir, subs, dir, dir),
                     0);
    ck_assert_int_eq(
        sh("grep -q \"labs.00.cases.nope: no such\" %s/run5.log && "
           "grep -q \"is refused\" %s/run5.log && "
           "test -z \"$(ls -A %s/out2/results 2>/dev/null)\"",
           dir, dir, dir),
        0);
    sh("rm -rf %s", dir);
}
END_TEST

/* Gradescope's "Export Submissions", as the zip it downloads: the
 * students' names, SIDs and emails from submission_metadata.yml (quoted
 * names, a group of two); the gradebook in Gradescope's layout */
/* QUICK=1 rehearses a class on the quick cases (lab 00, on the CPU): the
 * gradebook says so, the LMS exports carry no score for it, and the next
 * run without QUICK=1 grades everyone again, in full */
START_TEST(test_quick_rehearsal)
{
    char dir[] = "/tmp/cl-quick-XXXXXX", subs[64], out[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(sh("mkdir -p %s", subs), 0);
    put(subs, "alice.c", sub_right);
    put(subs, "bob.c", sub_wrong);
    ck_assert_int_eq(sh("QUICK=1 FORMAT=gradescope make -s grade-class "
                        "LAB=00 SUBMISSIONS=%s OUT=%s > %s/run1.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(
        sh("grep -q \"lab 00, quick cases only\" %s/run1.log", dir), 0);
    /* lab 00's quick cases: n=1 and n=1000, 10 points each */
    const char *r = row(out, "alice");
    ck_assert_msg(strstr(r, ",20.00,20.00,20.00,") &&
                      strstr(r, ",graded (only the quick cases),"),
                  "%s", r);
    r = row(out, "bob");
    ck_assert_msg(strstr(r, ",0.00,20.00,0.00,") &&
                      strstr(r, ",graded: wrong (only the quick cases),"),
                  "%s", r);
    ck_assert_str_eq(row_in(out, "gradebook-gradescope.csv", "alice"),
                     "alice,,,,20.00,graded (only the quick cases)\n");
    /* QUICK=1 again: the rehearsal stands */
    ck_assert_int_eq(sh("QUICK=1 make -s grade-class LAB=00 SUBMISSIONS=%s "
                        "OUT=%s > %s/run2.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(sh("test $(grep -c ^skip %s/run2.log) = 2", dir), 0);
    /* the real grading: everyone again, every case */
    ck_assert_int_eq(sh("FORMAT=gradescope make -s grade-class LAB=00 "
                        "SUBMISSIONS=%s OUT=%s > %s/run3.log 2>&1",
                        subs, out, dir),
                     0);
    ck_assert_int_eq(sh("test $(grep -c ^done %s/run3.log) = 2", dir), 0);
    r = row(out, "alice");
    ck_assert_msg(strstr(r, ",graded,") && !strstr(r, "quick"), "%s", r);
    ck_assert_ptr_nonnull(
        strstr(row_in(out, "gradebook-gradescope.csv", "alice"), "alice,,,"));
    ck_assert_ptr_null(
        strstr(row_in(out, "gradebook-gradescope.csv", "alice"), "alice,,,,"));
    sh("rm -rf %s", dir);
}
END_TEST

START_TEST(test_gradescope_export)
{
    char dir[] = "/tmp/cl-gs-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char top[256];
    snprintf(top, sizeof top, "%s/e/assignment_9100_export", dir);
    ck_assert_int_eq(
        sh("mkdir -p %s/submission_111 %s/submission_222/src "
           "%s/submission_333 && "
           "cp grader/tests/batch/alice.cu %s/submission_111/vector_add.cu && "
           "cp grader/tests/batch/alice.cu "
           "%s/submission_222/src/vector_add.cu && "
           "echo notes > %s/submission_333/notes.txt",
           top, top, top, top, top, top),
        0);
    const char *yml = "submission_111:\n"
                      "  :submitters:\n"
                      "  - :name: Zoë Ä\n"
                      "    :sid: '100'\n"
                      "    :email: zoe@example.edu\n"
                      "  :created_at: 2026-01-01 10:00:00.000000000 -08:00\n"
                      "  :score: \n"
                      "submission_222:\n"
                      "  :submitters:\n"
                      "  - :name: \"Mary \\\"Moe\\\" O'Neil\"\n"
                      "    :sid: '200'\n"
                      "    :email: mary@example.edu\n"
                      "  - :name: 'John O''Smith'\n"
                      "    :sid: '201'\n"
                      "    :email: john@example.edu\n"
                      "  :created_at: 2026-01-01 11:00:00.000000000 -08:00\n"
                      "submission_333:\n"
                      "  :submitters:\n"
                      "  - :name: Nobody Source\n"
                      "    :sid: '300'\n"
                      "    :email: nobody@example.edu\n";
    char path[512];
    snprintf(path, sizeof path, "%s/submission_metadata.yml", top);
    ck_assert_int_eq(cl_write_atomic(path, yml, strlen(yml)), 0);
    ck_assert_int_eq(sh("cd %s/e && (zip -qr ../export.zip . 2>/dev/null || "
                        "python3 -m zipfile -c ../export.zip "
                        "assignment_9100_export)",
                        dir),
                     0);
    ck_assert_int_eq(sh(QUICK_CLASS
                        "FORMAT=gradescope make -s grade-class LAB=01 "
                        "SUBMISSIONS=%s/export.zip OUT=%s/out > %s/log 2>&1",
                        dir, dir, dir),
                     0);
    char out[128];
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(
        sh("grep -q \"3 submissions (gradescope layout)\" %s/log", dir), 0);
    expect_correct(out, "Zoë Ä");
    expect_correct(out, "Mary \"Moe\" O'Neil");
    expect_correct(out, "John O'Smith");
    /* the group: one submission, one key, a row each */
    ck_assert_str_eq(key_of(out, "John O'Smith"),
                     key_of(out, "Mary \"Moe\" O'Neil"));
    ck_assert_ptr_nonnull(
        strstr(row(out, "John O'Smith"), ",201,john@example.edu,\n"));
    /* on a GPU host the class is a rehearsal: the row decided without the
     * grader is part of it, out of its 33 points, and never imported */
    int rehearsal = have_gpu(out, "Zoë Ä");
    ck_assert_ptr_nonnull(
        strstr(row(out, "Nobody Source"),
               rehearsal ? ",no-source (in a rehearsal)," : ",no-source,"));
    const char *g = row_in(out, "gradebook-gradescope.csv", "Nobody Source");
    ck_assert_str_eq(g, rehearsal ? "Nobody Source,300,nobody@example.edu,,"
                                    "33.00,no-source (in a rehearsal)\n"
                                  : "Nobody Source,300,nobody@example.edu,"
                                    "0.00,100.00,no-source\n");
    if (!rehearsal)
        ck_assert_str_eq(row_in(out, "gradebook-gradescope.csv", "Zoë Ä"),
                         "Zoë Ä,100,zoe@example.edu,,33.00,not graded: "
                         "no GPU\n");
    else /* a rehearsal is never a score to import */
        ck_assert_str_eq(row_in(out, "gradebook-gradescope.csv", "Zoë Ä"),
                         "Zoë Ä,100,zoe@example.edu,,33.00,graded (only "
                         "the quick cases)\n");
    ck_assert_int_eq(sh("head -n 1 %s/gradebook-gradescope.csv | grep -qx "
                        "\"Name,SID,Email,Total Score,Max Points,Status\"",
                        out),
                     0);
    ck_assert_int_eq(sh("test $(wc -l < %s/gradebook.csv) = 5", out), 0);
    sh("rm -rf %s", dir);
}
END_TEST

/* the Gradescope autograder: make autograder builds the zip; setup.sh
 * builds the grader in it (NO_APT=1: this machine has the packages);
 * run_autograder, with /autograder moved by AUTOGRADER_ROOT, writes
 * results.json: graded on a GPU, hidden from the student without one; a
 * compile error and a missing file are the student's and shown */
START_TEST(test_autograder)
{
    char dir[] = "/tmp/cl-ag-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* the bundle builds as on Gradescope's machine: sh() drops the make
     * variables of the make that runs this suite, and this drops the one
     * make exports (SANITIZE=1 would move the bundle's build) */
    unsetenv("SANITIZE");
    ck_assert_int_eq(
        sh("make -s autograder LAB=1 DIST=%s/dist > %s/make.log 2>&1", dir,
           dir),
        0);
    char zip[256], root[256], json[300];
    snprintf(zip, sizeof zip, "%s/dist/autograder-01-vector-add.zip", dir);
    snprintf(root, sizeof root, "%s/root", dir);
    snprintf(json, sizeof json, "%s/results/results.json", root);
    ck_assert_int_eq(access(zip, R_OK), 0);
    /* the zip: the two scripts at the top, the grader's sources, no
     * skeleton, no solution, no test */
    ck_assert_int_eq(sh("python3 tools/unzip.py -l %s > %s/list", zip, dir), 0);
    ck_assert_int_eq(sh("grep -qx setup.sh %s/list && grep -qx run_autograder "
                        "%s/list && grep -qx cuda-labs/Makefile %s/list && "
                        "grep -qx cuda-labs/labs/01-vector-add/vector_add.h "
                        "%s/list",
                        dir, dir, dir, dir),
                     0);
    ck_assert_int_ne(sh("grep -E \"(solutions/|/tests/|vector_add\\.cu$)\" "
                        "%s/list",
                        dir),
                     0);
    ck_assert_int_eq(
        sh("mkdir -p %s/source %s/submission && python3 tools/unzip.py %s "
           "%s/source && "
           "cp %s/source/run_autograder %s/ && test -x %s/run_autograder && "
           "NO_APT=1 bash %s/source/setup.sh > %s/setup.log 2>&1",
           root, root, zip, root, root, root, root, root, dir),
        0);

    /* a correct submission */
    ck_assert_int_eq(sh("cp grader/tests/batch/alice.cu "
                        "%s/submission/vector_add.cu && "
                        "AUTOGRADER_ROOT=%s %s/run_autograder > %s/run1.log "
                        "2>&1",
                        root, root, root, dir),
                     0);
    char *text = cl_read_file(json, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *o = cJSON_Parse(text);
    ck_assert_msg(cJSON_IsObject(o), "not JSON: %s", text);
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(o, "score")));
    const cJSON *x = cJSON_GetObjectItem(o, "extra_data");
    const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(x, "status"));
    ck_assert_ptr_nonnull(st);
    if (strcmp(st, "not graded: no GPU") == 0) {
        /* staff see why; the student sees nothing: no 0/100, no failed
         * test */
        ck_assert_str_eq(
            cJSON_GetStringValue(cJSON_GetObjectItem(o, "visibility")),
            "hidden");
        ck_assert_str_eq(
            cJSON_GetStringValue(cJSON_GetObjectItem(o, "stdout_visibility")),
            "hidden");
        ck_assert_ptr_nonnull(strstr(
            cJSON_GetStringValue(cJSON_GetObjectItem(o, "output")), "no GPU"));
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(o, "tests"))
        {
            ck_assert_str_eq(
                cJSON_GetStringValue(cJSON_GetObjectItem(t, "visibility")),
                "hidden");
            ck_assert_ptr_null(cJSON_GetObjectItem(t, "max_score"));
        }
    } else {
        /* on a GPU: graded, every correctness point */
        ck_assert_str_eq(st, "graded");
        ck_assert_ptr_null(cJSON_GetObjectItem(o, "visibility"));
        ck_assert(cJSON_GetArraySize(cJSON_GetObjectItem(o, "tests")) > 5);
        ck_assert_double_ge(
            cJSON_GetNumberValue(cJSON_GetObjectItem(x, "correctness_score")),
            59.99);
    }
    cJSON_Delete(o);
    free(text);

    /* one that does not compile: 0, with the compiler's words, shown */
    ck_assert_int_eq(sh("rm %s/submission/* && cp grader/tests/batch/bob.cu "
                        "\"%s/submission/my lab.cu\" && "
                        "AUTOGRADER_ROOT=%s %s/run_autograder > %s/run2.log "
                        "2>&1",
                        root, root, root, root, dir),
                     0);
    text = cl_read_file(json, NULL);
    o = cJSON_Parse(text);
    ck_assert_msg(cJSON_IsObject(o), "not JSON: %s", text);
    ck_assert_double_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "score")),
                        0);
    ck_assert_ptr_null(cJSON_GetObjectItem(o, "visibility"));
    const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(o, "output"));
    ck_assert_msg(strstr(msg, "my lab.cu does not compile") &&
                      strstr(msg, "error"),
                  "%s", msg);
    cJSON_Delete(o);
    free(text);

    /* nothing to grade */
    ck_assert_int_eq(sh("rm %s/submission/* && echo hi > %s/submission/x.txt "
                        "&& AUTOGRADER_ROOT=%s %s/run_autograder > %s/run3.log "
                        "2>&1",
                        root, root, root, root, dir),
                     0);
    text = cl_read_file(json, NULL);
    o = cJSON_Parse(text);
    ck_assert_msg(cJSON_IsObject(o), "not JSON: %s", text);
    msg = cJSON_GetStringValue(cJSON_GetObjectItem(o, "output"));
    ck_assert_msg(strstr(msg, "No vector_add.cu in your submission") &&
                      strstr(msg, "holds:\n  x.txt"),
                  "%s", msg);
    cJSON_Delete(o);
    free(text);

    /* two candidates, neither named vector_add.cu: both named, none
     * guessed at */
    ck_assert_int_eq(sh("rm %s/submission/* && cp grader/tests/batch/alice.cu "
                        "%s/submission/a.cu && cp grader/tests/batch/bob.cu "
                        "%s/submission/b.cu && AUTOGRADER_ROOT=%s "
                        "%s/run_autograder > %s/run4.log 2>&1",
                        root, root, root, root, root, dir),
                     0);
    text = cl_read_file(json, NULL);
    o = cJSON_Parse(text);
    ck_assert_msg(cJSON_IsObject(o), "not JSON: %s", text);
    msg = cJSON_GetStringValue(cJSON_GetObjectItem(o, "output"));
    ck_assert_msg(strstr(msg, "2 .cu files") && strstr(msg, "  a.cu\n  b.cu") &&
                      strstr(msg, "Name the file to be graded vector_add.cu"),
                  "%s", msg);
    ck_assert_double_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "score")),
                        0);
    cJSON_Delete(o);
    free(text);

    /* a course's policy in the bundle, graded for real on the CPU (lab 00,
     * the same grader tree): make autograder checks the policy and puts it
     * beside the scripts as policy.json, autograder.env names it, and
     * run_autograder grades with it */
    const char *course = "{\"name\": \"course X\", \"labs\": {\"00\": "
                         "{\"cases\": {\"n=1\": 5, \"n=1000\": 7, "
                         "\"n=2^20\": 3, \"speed\": 0}}}}\n";
    put(dir, "course.json", course);
    put(dir, "bad.json", "{\"labs\": {\"00\": {\"timeout_s\": -1}}}");
    ck_assert_int_eq(sh("make -s autograder LAB=00 POLICY=%s/bad.json "
                        "DIST=%s/dist0 > %s/make0.log 2>&1",
                        dir, dir, dir),
                     2);
    ck_assert_int_eq(sh("grep -q \"timeout_s: must be a number\" %s/make0.log "
                        "&& test ! -e %s/dist0/autograder-00-selftest.zip",
                        dir, dir),
                     0);
    ck_assert_int_eq(sh("make -s autograder LAB=00 POLICY=%s/course.json "
                        "DIST=%s/dist0 > %s/make0.log 2>&1",
                        dir, dir, dir),
                     0);
    snprintf(zip, sizeof zip, "%s/dist0/autograder-00-selftest.zip", dir);
    ck_assert_int_eq(sh("python3 tools/unzip.py -l %s > %s/list0 && grep -qx "
                        "policy.json %s/list0 && grep -qx autograder.env "
                        "%s/list0",
                        zip, dir, dir, dir),
                     0);
    ck_assert_int_eq(
        sh("python3 tools/unzip.py %s %s/source autograder.env "
           "policy.json && grep -qx LAB=00 %s/source/autograder.env "
           "&& grep -qx POLICY=policy.json "
           "%s/source/autograder.env && cmp -s %s/course.json "
           "%s/source/policy.json",
           zip, root, root, root, dir, root),
        0);
    const char *subs[] = {sub_right, sub_wrong};
    const double want[] = {15, 0};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(sh("rm -rf %s/submission/* %s/results", root, root),
                         0);
        snprintf(json, sizeof json, "%s/submission", root);
        put(json, "honest.c", subs[i]);
        snprintf(json, sizeof json, "%s/results/results.json", root);
        ck_assert_int_eq(sh("AUTOGRADER_ROOT=%s %s/run_autograder > "
                            "%s/run-policy.log 2>&1",
                            root, root, dir),
                         0);
        text = cl_read_file(json, NULL);
        ck_assert_ptr_nonnull(text);
        o = cJSON_Parse(text);
        ck_assert_msg(cJSON_IsObject(o), "not JSON: %s", text);
        x = cJSON_GetObjectItem(o, "extra_data");
        ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(x, "policy")),
                         "course X");
        ck_assert_double_eq(
            cJSON_GetNumberValue(cJSON_GetObjectItem(o, "max_score")), 15);
        ck_assert_double_eq(
            cJSON_GetNumberValue(cJSON_GetObjectItem(o, "score")), want[i]);
        cJSON_Delete(o);
        free(text);
    }
    sh("rm -rf %s", dir);
}
END_TEST

/* make grade-class refuses what would grade nothing or the wrong things:
 * an empty SUBMISSIONS (exit 2, not "0 rows" and success), and an OUT
 * inside SUBMISSIONS (which the batch would list as a student, graded 0),
 * before it creates OUT there */
START_TEST(test_batch_refuses_empty_and_nested)
{
    char dir[] = "/tmp/cl-refuse-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(sh("mkdir -p %s/subs", dir), 0);
    ck_assert_int_eq(sh("make -s grade-class LAB=00 SUBMISSIONS=%s/subs "
                        "OUT=%s/out > %s/empty.log 2>&1",
                        dir, dir, dir),
                     2);
    ck_assert_int_eq(
        sh("grep -q 'no submissions in %s/subs' %s/empty.log", dir, dir), 0);
    put(dir, "subs/alice.c", sub_right);
    ck_assert_int_eq(sh("make -s grade-class LAB=00 SUBMISSIONS=%s/subs "
                        "OUT=%s/subs/graded > %s/nested.log 2>&1",
                        dir, dir, dir),
                     2);
    ck_assert_int_eq(sh("grep -q 'is inside SUBMISSIONS' %s/nested.log && "
                        "test ! -e %s/subs/graded",
                        dir, dir),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

/* --collect without --policy writes a batch's gradebook with the policy
 * the batch was graded with (OUT/policy.json), never the default: the
 * totals a course set (15 points here, not 50) */
START_TEST(test_collect_keeps_the_batch_policy)
{
    char dir[] = "/tmp/cl-colpol-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(sh("mkdir -p %s/subs", dir), 0);
    put(dir, "subs/alice.c", sub_right);
    put(dir, "course.json",
        "{\"name\": \"course X\", \"labs\": {\"00\": {\"cases\": "
        "{\"n=1\": 5, \"n=1000\": 7, \"n=2^20\": 3, \"speed\": 0}}}}\n");
    ck_assert_int_eq(sh("POLICY=%s/course.json make -s grade-class LAB=00 "
                        "SUBMISSIONS=%s/subs OUT=%s/out > %s/run.log 2>&1",
                        dir, dir, dir, dir),
                     0);
    char out[64];
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_ptr_nonnull(strstr(row(out, "alice"), ",15.00,15.00,"));
    ck_assert_int_eq(sh("rm %s/out/gradebook.csv && " CL_BUILD_DIR
                        "/bin/grade 00 --collect %s/out > %s/col.log 2>&1",
                        dir, dir, dir),
                     0);
    ck_assert_int_eq(
        sh("grep -q \"with the batch's policy %s/out/policy.json\" "
           "%s/col.log",
           dir, dir),
        0);
    const char *r = row(out, "alice");
    ck_assert_msg(strstr(r, ",15.00,15.00,"), "%s", r);
    sh("rm -rf %s", dir);
}
END_TEST

/* a QUICK=1 rehearsal with a submission that does not compile: its row
 * is out of the rehearsal's total (20, lab 00's quick cases), like the
 * rows it graded, not the full lab's (50); and the Canvas import carries
 * no score for anyone, the compile error included */
START_TEST(test_rehearsal_rows_agree)
{
    char dir[] = "/tmp/cl-rehearse-XXXXXX", out[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(sh("mkdir -p %s/subs", dir), 0);
    put(dir, "subs/alice.c", sub_right);
    put(dir, "subs/bob.c", sub_broken);
    ck_assert_int_eq(sh("QUICK=1 FORMAT=canvas make -s grade-class LAB=00 "
                        "SUBMISSIONS=%s/subs OUT=%s > %s/run.log 2>&1",
                        dir, out, dir),
                     0);
    const char *r = row(out, "alice");
    ck_assert_msg(strstr(r, ",20.00,20.00,"), "%s", r);
    r = row(out, "bob");
    ck_assert_msg(strstr(r, ",0.00,20.00,") &&
                      strstr(r, ",compile-error (in a rehearsal),"),
                  "%s", r);
    ck_assert_str_eq(row_in(out, "gradebook-canvas.csv", "bob"), "bob,,,,,\n");
    ck_assert_str_eq(row_in(out, "gradebook-canvas.csv", "alice"),
                     "alice,,,,,\n");
    sh("rm -rf %s", dir);
}
END_TEST

/* make grade-class-slurm on a partition whose nodes have fewer CPUs than
 * a task asks for (here sbatch and sinfo are stand-ins that record what
 * they are asked: the real cluster is test_slurm_batch): each task asks
 * for what the largest node has, and says so; a SLURM_CPUS beyond it is
 * refused (exit 2), never left to wait for good in the queue */
START_TEST(test_slurm_cpus_fit_the_partition)
{
    char dir[] = "/tmp/cl-sinfo-XXXXXX", subs[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(subs, sizeof subs, "%s/subs", dir);
    ck_assert_int_eq(sh("mkdir -p %s/bin %s", dir, subs), 0);
    put(subs, "alice.c", sub_right);
    put(dir, "bin/sbatch", "#!/bin/sh\necho \"$*\" >> \"$STUB_LOG\"\necho 7\n");
    put(dir, "bin/sinfo",
        "#!/bin/sh\necho \"sinfo $*\" >> \"$STUB_LOG\"\nprintf '2\\n2+\\n'\n");
    ck_assert_int_eq(sh("chmod +x %s/bin/sbatch %s/bin/sinfo", dir, dir), 0);
    const char *submit = "STUB_LOG=%s/%s.args PATH=%s/bin:$PATH %s "
                         "make -s grade-class-slurm LAB=00 SUBMISSIONS=%s "
                         "OUT=%s/out%s SBATCH_ARGS=\"-p small\" > %s/%s.log "
                         "2>&1";
    ck_assert_int_eq(sh(submit, dir, "a", dir, "", subs, dir, "a", dir, "a"),
                     0);
    ck_assert_int_eq(sh("grep -q 'sinfo -h -o %%c -p small' %s/a.args && grep "
                        "-q -- '--cpus-per-task=2 ' %s/a.args && grep -q "
                        "'at most 2 CPUs: each task asks for 2' %s/a.log",
                        dir, dir, dir),
                     0);
    ck_assert_int_eq(
        sh(submit, dir, "b", dir, "SLURM_CPUS=8", subs, dir, "b", dir, "b"), 2);
    ck_assert_int_eq(sh("grep -q 'SLURM_CPUS=8, but no node of small has more "
                        "than 2 CPUs' %s/b.log && ! grep -q -- --array "
                        "%s/b.args",
                        dir, dir),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

static void slurm_stop(void)
{
    sh("bash grader/tests/slurm-cluster.sh stop > /dev/null 2>&1");
}

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
    int rc = sh(QUICK_CLASS
                "SLURM_GRES= make -s grade-class-slurm LAB=01 SUBMISSIONS=%s "
                "OUT=%s SBATCH_ARGS=--cpus-per-task=1 > %s/submit.log 2>&1",
                subs, out, dir);
    /* and a course's policy through the same path (lab 00, on the CPU):
     * kept in OUT, used by every task and by the collect job */
    char subs0[128], out0[128];
    snprintf(subs0, sizeof subs0, "%s/subs0", dir);
    snprintf(out0, sizeof out0, "%s/out0", dir);
    ck_assert_int_eq(sh("mkdir -p %s", subs0), 0);
    put(subs0, "alice.c", sub_right);
    put(subs0, "bob.c", sub_broken);
    put(dir, "course.json",
        "{\"name\": \"course X\", \"labs\": {\"00\": {\"cases\": "
        "{\"n=1\": 5, \"n=1000\": 7, \"n=2^20\": 3, \"speed\": 0}}}}\n");
    int rc0 = sh("SLURM_GRES= make -s grade-class-slurm LAB=00 SUBMISSIONS=%s "
                 "OUT=%s POLICY=%s/course.json "
                 "SBATCH_ARGS=--cpus-per-task=1 > %s/submit0.log 2>&1",
                 subs0, out0, dir, dir);
    /* wait for the arrays and the collect jobs, at most 10 minutes */
    int waited = sh("for i in $(seq 300); do "
                    "[ -z \"$(squeue -h 2>/dev/null)\" ] && exit 0; sleep 2; "
                    "done; exit 1");
    sh("bash grader/tests/slurm-cluster.sh stop > /dev/null 2>&1");
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(rc0, 0);
    ck_assert_int_eq(waited, 0);
    expect_statuses(out);
    ck_assert_int_eq(
        sh("grep -q \"policy %s/policy.json\" %s/submit0.log", out0, dir), 0);
    const char *r = row(out0, "alice");
    ck_assert_msg(strstr(r, ",15.00,15.00,") && strstr(r, ",graded,"), "%s", r);
    r = row(out0, "bob");
    ck_assert_msg(strstr(r, ",0.00,15.00,") && strstr(r, ",compile-error,"),
                  "%s", r);
    /* one task per submission ran, and the tasks shared the batch's
     * build cache (alice's copies and carol's file: two entries) */
    ck_assert_int_eq(
        sh("test $(ls %s/logs/slurm-*_*.out | wc -l) = %d", out, N_SUBMISSIONS),
        0);
    ck_assert_int_eq(sh("test $(ls %s/cache | wc -l) = 2 && ! grep -l "
                        "\"unbound variable\" %s/logs/slurm-*",
                        out, out),
                     0);
    sh("rm -rf %s", dir);
}
END_TEST

/* Three Check cases of about a minute and a half each on the CPU
 * machine, which make test runs as three suites side by side on a machine
 * of many cores (run-suites.sh: test_batch@classes, CK_RUN_CASE); the
 * Slurm batch, where this host lacks it, is counted skipped by the case
 * that holds it. */
int main(void)
{
    /* one queue, as on a host of one GPU, unless the caller names the
     * GPUs: the tests read the batch's lines unprefixed (a host of several
     * GPUs would give each queue's "[gpu N] " prefix); the two-queue test
     * names its own */
    setenv("GPUS", "0", 0);
    Suite *s = suite_create("batch");
    /* whole classes: mixed entries and a course policy, a rehearsal */
    TCase *classes = tcase_create("classes");
    tcase_set_timeout(classes, 1200);
    tcase_add_test(classes, test_batch_policy_and_mixed_entries);
    tcase_add_test(classes, test_quick_rehearsal);
    tcase_add_test(classes, test_gradebook_from_results);
    tcase_add_test(classes, test_gradebook_cells_are_never_formulas);
    suite_add_tcase(s, classes);
    /* the build's confinement, a local batch, the LMS files */
    TCase *exports = tcase_create("exports");
    tcase_set_timeout(exports, 1200);
    tcase_add_test(exports, test_batch_build_is_confined);
    tcase_add_test(exports, test_gpu_lab_build_is_confined);
    tcase_add_test(exports, test_local_batch);
    tcase_add_test(exports, test_over_limit_is_a_compile_error);
    tcase_add_test(exports, test_canvas_export);
    tcase_add_test(exports, test_gradescope_export);
    tcase_add_test(exports, test_autograder);
    suite_add_tcase(s, exports);
    /* Slurm, refusals, and a Ctrl-C */
    TCase *shortcase = tcase_create("short");
    tcase_set_timeout(shortcase, 1200);
    tcase_add_test(shortcase, test_slurm_cpus_fit_the_partition);
    tcase_add_test(shortcase, test_batch_refuses_empty_and_nested);
    tcase_add_test(shortcase, test_collect_keeps_the_batch_policy);
    tcase_add_test(shortcase, test_rehearsal_rows_agree);
    tcase_add_test(shortcase, test_interrupted_batch_resumes);
    tcase_add_test(shortcase, test_unconfirmed_graded_again);
    int slurm = geteuid() == 0 && sh("command -v sbatch slurmctld slurmd "
                                     "munged > /dev/null") == 0;
    if (slurm) {
        tcase_add_test(shortcase, test_slurm_batch);
        /* in the parent, whatever became of the test: no daemon left */
        tcase_add_unchecked_fixture(shortcase, NULL, slurm_stop);
    }
    suite_add_tcase(s, shortcase);
    const char *only = getenv("CK_RUN_CASE");
    int counts_slurm = !only || !strcmp(only, "short");
    return cl_suite_run(s, !slurm && counts_slurm,
                        "the Slurm batch needs root and Slurm (bash "
                        "grader/tests/slurm-cluster.sh install)");
}
