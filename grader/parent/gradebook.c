/* gradebook.c: a batch's results, status and student files into the
 * gradebook, in the project's CSV or an LMS's import layout. */
#define _GNU_SOURCE
#include "parent/gradebook.h"

#include "fileio.h"
#include "parent/policy.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static double json_number(const cJSON *o, const char *key, double fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int cl_book_format_parse(const char *name, enum cl_book_format *f)
{
    static const char *const names[] = {"csv", "canvas", "gradescope"};
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *f = (enum cl_book_format)i;
            return 0;
        }
    return -1;
}

/* a status whose score is no grade: nothing could be graded */
static int is_grade(const char *status)
{
    return strncmp(status, "not graded", 10) != 0 &&
           strcmp(status, "internal error") != 0 &&
           strcmp(status, "usage error") != 0;
}

int cl_grade_row_from_json(const char *path, struct cl_grade_row *row,
                           char *err, size_t len)
{
    char *text = cl_read_file(path, NULL);
    if (!text) {
        snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    cJSON *o = cJSON_Parse(text);
    free(text);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "extra_data");
    if (!cJSON_IsObject(o) ||
        !cJSON_IsNumber(cJSON_GetObjectItem(o, "score")) ||
        !cJSON_IsObject(x)) {
        const char *slash = strrchr(path, '/');
        snprintf(err, len, "%s is not a results.json of this grader",
                 slash ? slash + 1 : path);
        cJSON_Delete(o);
        return -1;
    }
    row->score = json_number(o, "score", 0);
    row->max_score = json_number(o, "max_score", 0);
    row->correct = json_number(x, "correctness_score", 0);
    const char *lab = str(x, "lab"), *status = str(x, "status"),
               *out = str(o, "output");
    snprintf(row->lab, sizeof row->lab, "%s", lab ? lab : "");
    snprintf(row->status, sizeof row->status, "%s", status ? status : "");
    snprintf(row->detail, sizeof row->detail, "%s", out ? out : "");
    row->graded = is_grade(row->status);
    const char *subset = str(x, "subset");
    double logsum = 0;
    int n = 0, failed = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(x, "cases"))
    {
        /* a graded row names its first failure: "graded: crash" */
        const char *cs = str(c, "status");
        if (!failed && cs && strcmp(cs, "pass") != 0 && status &&
            strcmp(status, "graded") == 0) {
            snprintf(row->status, sizeof row->status, "graded: %s", cs);
            failed = 1;
        }
        /* the ratio the case was scored on (speedup or fraction of the
         * ceiling); results of older graders have the speedup alone */
        double s = json_number(c, "ratio", json_number(c, "speedup", 0));
        if (cJSON_IsTrue(cJSON_GetObjectItem(c, "timed")) && s > 0) {
            logsum += log(s);
            n++;
        }
    }
    row->speed = n ? exp(logsum / n) : 0;
    /* a quick pass (or one case) is never exported as a grade, and a
     * graded row says so wherever it is read */
    if (subset && row->graded) {
        row->partial = 1;
        size_t at = strlen(row->status);
        if (strncmp(row->status, "graded", 6) == 0)
            snprintf(row->status + at, sizeof row->status - at, " (only %s%s)",
                     strcmp(subset, "quick") == 0 ? "the " : "case ",
                     strcmp(subset, "quick") == 0 ? "quick cases" : subset);
    }
    cJSON_Delete(o);
    return 0;
}

/* does @p s read as a formula in a spreadsheet? (OWASP's CSV injection: a
 * cell that starts with = + - @, a tab or a carriage return); a number,
 * "-1.5" too, is a number */
static int formula_like(const char *s)
{
    if (!s[0] || !strchr("=+-@\t\r", s[0]))
        return 0;
    char *end = NULL;
    errno = 0;
    (void)strtod(s, &end);
    return !(end && end != s && *end == '\0' && errno == 0);
}

/* a CSV field, quoted when it holds a comma, a quote or a line break; a
 * text a spreadsheet would run as a formula starts with ' and is quoted,
 * so that it is read as text (a student named "=HYPERLINK(...)") */
static void field(FILE *f, const char *s, int last)
{
    if (formula_like(s)) {
        fputs("\"'", f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s, f);
        }
        fputc('"', f);
    } else if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static void fmt2(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.2f", v);
}

void cl_grade_row_csv(FILE *f, const struct cl_grade_row *row)
{
    char b[4][32];
    fmt2(b[0], sizeof b[0], row->score);
    fmt2(b[1], sizeof b[1], row->max_score);
    fmt2(b[2], sizeof b[2], row->correct);
    if (row->speed > 0)
        snprintf(b[3], sizeof b[3], "%.3f", row->speed);
    else
        b[3][0] = '\0';
    field(f, row->student, 0);
    field(f, row->lab, 0);
    field(f, b[0], 0);
    field(f, b[1], 0);
    field(f, b[2], 0);
    field(f, b[3], 0);
    field(f, row->status, 0);
    field(f, row->detail, 0);
    field(f, row->key, 0);
    field(f, row->id, 0);
    field(f, row->email, 0);
    field(f, row->late ? "1" : "", 1);
}

/* the policy the batch was graded with (NULL: the built-in one) */
static const struct cl_policy *book_policy;

/* points the lab is out of, under the batch's policy */
static double lab_max(const struct cl_lab *lab)
{
    return cl_policy_lab_max(book_policy ? book_policy : cl_policy_default(),
                             lab);
}

/* results/KEY.status: "status<TAB>message" */
static int row_from_status(const char *path, const struct cl_lab *lab,
                           struct cl_grade_row *row)
{
    char *text = cl_read_file(path, NULL);
    if (!text)
        return -1;
    char *tab = strchr(text, '\t');
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    if (tab)
        *tab = '\0';
    snprintf(row->status, sizeof row->status, "%s", text);
    snprintf(row->detail, sizeof row->detail, "%s", tab ? tab + 1 : "");
    snprintf(row->lab, sizeof row->lab, "%s", lab->id);
    row->max_score = lab_max(lab);
    row->graded = is_grade(row->status);
    free(text);
    return 0;
}

/* the next tab-separated field of *s (cut in place); "" at the end */
static char *next_field(char **s)
{
    char *f = *s, *tab = strchr(f, '\t');
    if (tab) {
        *tab = '\0';
        *s = tab + 1;
    } else {
        *s = f + strlen(f);
    }
    return f;
}

/* Rows of one submission (@p base, one per person of results/KEY.student)
 * appended to *rows; the number added, or -1 out of memory. */
static int add_people(const char *dir, const struct cl_grade_row *base,
                      struct cl_grade_row **rows, int *n, int *cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/results/%s.student", dir, base->key);
    char *text = cl_read_file(path, NULL);
    int late = 0, added = 0;
    /* two passes: the late flag may follow the people */
    for (int pass = 0; pass < 2; pass++) {
        char *line = text;
        while (line && *line) {
            char *nl = strchr(line, '\n');
            char *next = nl ? nl + 1 : line + strlen(line);
            char buf[1024];
            snprintf(buf, sizeof buf, "%.*s", (int)(nl ? nl - line : 1023),
                     line);
            char *s = buf;
            const char *tag = next_field(&s);
            if (pass == 0 && strcmp(tag, "late") == 0) {
                late = atoi(s) != 0;
            } else if (pass == 1 && strcmp(tag, "person") == 0) {
                if (*n == *cap) {
                    int nc = *cap ? 2 * *cap : 64;
                    struct cl_grade_row *nr = realloc(*rows, nc * sizeof *nr);
                    if (!nr) {
                        free(text);
                        return -1;
                    }
                    *rows = nr;
                    *cap = nc;
                }
                struct cl_grade_row *r = &(*rows)[(*n)++];
                *r = *base;
                const char *name = next_field(&s);
                snprintf(r->student, sizeof r->student, "%s",
                         *name ? name : base->key);
                snprintf(r->id, sizeof r->id, "%s", next_field(&s));
                snprintf(r->email, sizeof r->email, "%s", next_field(&s));
                r->late = late;
                added++;
            }
            line = next;
        }
    }
    free(text);
    if (added)
        return added;
    /* nobody named: the key stands for the student */
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        struct cl_grade_row *nr = realloc(*rows, nc * sizeof *nr);
        if (!nr)
            return -1;
        *rows = nr;
        *cap = nc;
    }
    struct cl_grade_row *r = &(*rows)[(*n)++];
    *r = *base;
    snprintf(r->student, sizeof r->student, "%s", base->key);
    r->late = late;
    return 1;
}

static int by_student(const void *a, const void *b)
{
    const struct cl_grade_row *x = a, *y = b;
    int c = strcmp(x->student, y->student);
    return c ? c : strcmp(x->key, y->key);
}

/* KEY from KEY.json / KEY.status / KEY.student; the kind in *kind (0 json,
 * 1 status, 2 student); 0 when the file is none of them */
static int split_name(const char *file, char *name, size_t len, int *kind)
{
    static const char *const ext[] = {".json", ".status", ".student"};
    const char *dot = strrchr(file, '.');
    if (!dot || dot == file || (size_t)(dot - file) >= len)
        return 0;
    for (int k = 0; k < 3; k++)
        if (strcmp(dot, ext[k]) == 0) {
            *kind = k;
            snprintf(name, len, "%.*s", (int)(dot - file), file);
            return 1;
        }
    return 0;
}

/* one submission seen in results/ */
struct seen {
    char key[128];
    int has[3]; /* json, status, student */
};

static void write_canvas(FILE *f, const struct cl_grade_row *rows, int n,
                         const struct cl_lab *lab, const char *assignment)
{
    char title[256], b[32];
    if (assignment && *assignment)
        snprintf(title, sizeof title, "%s", assignment);
    else
        snprintf(title, sizeof title, "Lab %s %s", lab->id, lab->title);
    double max = lab_max(lab);
    for (int i = 0; i < n; i++)
        if (rows[i].max_score > 0 && !rows[i].partial) {
            max = rows[i].max_score;
            break;
        }
    fputs("Student,ID,SIS User ID,SIS Login ID,Section,", f);
    field(f, title, 1);
    fmt2(b, sizeof b, max);
    fprintf(f, "Points Possible,,,,,%s\n", b);
    for (int i = 0; i < n; i++) {
        field(f, rows[i].student, 0);
        field(f, rows[i].id, 0);
        fputs(",,,", f);
        if (rows[i].graded && !rows[i].partial)
            fmt2(b, sizeof b, rows[i].score);
        else
            b[0] = '\0';
        field(f, b, 1);
    }
}

static void write_gradescope(FILE *f, const struct cl_grade_row *rows, int n)
{
    fputs("Name,SID,Email,Total Score,Max Points,Status\n", f);
    for (int i = 0; i < n; i++) {
        char s[32], m[32];
        if (rows[i].graded && !rows[i].partial)
            fmt2(s, sizeof s, rows[i].score);
        else
            s[0] = '\0';
        fmt2(m, sizeof m, rows[i].max_score);
        field(f, rows[i].student, 0);
        field(f, rows[i].id, 0);
        field(f, rows[i].email, 0);
        field(f, s, 0);
        field(f, m, 0);
        field(f, rows[i].status, 1);
    }
}

/* write DIR/FILE in @p format, atomically; 0, or -1 with a reason */
static int write_book(const char *dir, const char *file,
                      const struct cl_grade_row *rows, int n,
                      const struct cl_lab *lab, enum cl_book_format format,
                      const char *assignment, char *err, size_t len)
{
    char *text = NULL, path[4096];
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (!f) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    if (format == CL_BOOK_CANVAS) {
        write_canvas(f, rows, n, lab, assignment);
    } else if (format == CL_BOOK_GRADESCOPE) {
        write_gradescope(f, rows, n);
    } else {
        fputs("student,lab,score,max_score,correctness,speed,status,detail,"
              "key,id,email,late\n",
              f);
        for (int i = 0; i < n; i++)
            cl_grade_row_csv(f, &rows[i]);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = cl_write_atomic(path, text, tlen);
    free(text);
    if (rc != 0) {
        snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* DIR/lab (written by tools/grade-class.sh: "NN slug"): the lab the
 * batch was listed for; 0 when it is @p lab's or absent, -1 otherwise */
static int batch_lab_is(const char *dir, const struct cl_lab *lab, char *other,
                        size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/lab", dir);
    char *text = cl_read_file(path, NULL);
    if (!text)
        return 0;
    snprintf(other, len, "%.*s", (int)strcspn(text, " \t\n"), text);
    free(text);
    return other[0] && strcmp(other, lab->id) != 0 ? -1 : 0;
}

int cl_gradebook_collect_as(const char *dir, const struct cl_lab *lab,
                            enum cl_book_format format, const char *assignment,
                            const struct cl_policy *policy, char *err,
                            size_t len)
{
    char path[4096], other[16];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, len, "%s is not a folder (--collect takes a batch's OUT)",
                 dir);
        return CL_BOOK_NOT_A_BATCH;
    }
    if (batch_lab_is(dir, lab, other, sizeof other) != 0) {
        snprintf(err, len,
                 "%s is a batch of lab %s, not of lab %s: collect it with "
                 "'grade %s --collect %s'",
                 dir, other, lab->id, other, dir);
        return CL_BOOK_NOT_A_BATCH;
    }
    snprintf(path, sizeof path, "%s/results", dir);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(err, len, "cannot open %s: %s (not a batch's OUT folder?)",
                 path, strerror(errno));
        return errno == ENOENT || errno == ENOTDIR ? CL_BOOK_NOT_A_BATCH : -1;
    }
    book_policy = policy;
    struct seen *subs = NULL;
    int ns = 0, caps = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char key[128];
        int kind;
        if (!split_name(e->d_name, key, sizeof key, &kind))
            continue;
        int k;
        for (k = 0; k < ns && strcmp(subs[k].key, key) != 0; k++)
            ;
        if (k == ns) {
            if (ns == caps) {
                caps = caps ? 2 * caps : 64;
                struct seen *nsubs = realloc(subs, caps * sizeof *subs);
                if (!nsubs) {
                    free(subs);
                    closedir(d);
                    snprintf(err, len, "out of memory");
                    return -1;
                }
                subs = nsubs;
            }
            memset(&subs[ns], 0, sizeof subs[ns]);
            snprintf(subs[ns].key, sizeof subs[ns].key, "%s", key);
            ns++;
        }
        subs[k].has[kind] = 1;
    }
    closedir(d);

    struct cl_grade_row *rows = NULL;
    int n = 0, cap = 0;
    for (int k = 0; k < ns; k++) {
        struct cl_grade_row base;
        memset(&base, 0, sizeof base);
        snprintf(base.key, sizeof base.key, "%s", subs[k].key);
        char why[512];
        /* a submission with a JSON and a status: the JSON is the later
         * word; one with neither was listed but has no result yet */
        if (subs[k].has[0]) {
            snprintf(path, sizeof path, "%s/results/%s.json", dir, base.key);
            if (cl_grade_row_from_json(path, &base, why, sizeof why) != 0) {
                snprintf(base.status, sizeof base.status, "internal error");
                snprintf(base.detail, sizeof base.detail, "%s", why);
            } else if (base.lab[0] && strcmp(base.lab, lab->id) != 0) {
                /* another lab's result: the whole batch is not this lab's */
                snprintf(err, len,
                         "%s/results/%s.json is a result of lab %s, not of "
                         "lab %s: collect that batch with 'grade %s "
                         "--collect %s'",
                         dir, base.key, base.lab, lab->id, base.lab, dir);
                free(rows);
                free(subs);
                return CL_BOOK_NOT_A_BATCH;
            }
        } else if (subs[k].has[1]) {
            snprintf(path, sizeof path, "%s/results/%s.status", dir, base.key);
            base.decided = 1;
            if (row_from_status(path, lab, &base) != 0) {
                snprintf(base.status, sizeof base.status, "internal error");
                snprintf(base.detail, sizeof base.detail,
                         "unreadable status file");
            }
        } else {
            snprintf(base.status, sizeof base.status, "not graded: no result");
            snprintf(base.detail, sizeof base.detail,
                     "listed, but no result yet (the batch did not reach "
                     "it, or its task died)");
            snprintf(base.lab, sizeof base.lab, "%s", lab->id);
            base.max_score = lab_max(lab);
        }
        if (add_people(dir, &base, &rows, &n, &cap) < 0) {
            free(rows);
            free(subs);
            snprintf(err, len, "out of memory");
            return -1;
        }
    }
    free(subs);
    /* a rehearsal (QUICK=1): the rows decided without the grader (a
     * compile error, no source) belong to it as much as the rows it
     * graded: out of the same total, and never an LMS score */
    double quick_max = 0;
    for (int i = 0; i < n && quick_max <= 0; i++)
        if (rows[i].partial && rows[i].max_score > 0)
            quick_max = rows[i].max_score;
    for (int i = 0; i < n && quick_max > 0; i++)
        if (rows[i].decided && !rows[i].partial) {
            rows[i].partial = 1;
            rows[i].max_score = quick_max;
            size_t at = strlen(rows[i].status);
            snprintf(rows[i].status + at, sizeof rows[i].status - at,
                     " (in a rehearsal)");
        }
    if (n > 1)
        qsort(rows, (size_t)n, sizeof *rows, by_student);

    int rc = write_book(dir, "gradebook.csv", rows, n, lab, CL_BOOK_CSV, NULL,
                        err, len);
    if (rc == 0 && format == CL_BOOK_CANVAS)
        rc = write_book(dir, "gradebook-canvas.csv", rows, n, lab, format,
                        assignment, err, len);
    if (rc == 0 && format == CL_BOOK_GRADESCOPE)
        rc = write_book(dir, "gradebook-gradescope.csv", rows, n, lab, format,
                        assignment, err, len);
    free(rows);
    book_policy = NULL;
    return rc == 0 ? n : -1;
}

int cl_gradebook_collect(const char *dir, const struct cl_lab *lab, char *err,
                         size_t len)
{
    return cl_gradebook_collect_as(dir, lab, CL_BOOK_CSV, NULL, NULL, err, len);
}

// ---- GitHub Classroom -------------------------------------------------------

/* one test of Classroom's result */
static void classroom_test(cJSON *tests, const char *name, const char *status,
                           double score, const char *message,
                           const struct cl_lab *lab)
{
    char code[64];
    snprintf(code, sizeof code, "make grade LAB=%s", lab->id);
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", name);
    cJSON_AddStringToObject(t, "status", status);
    cJSON_AddNumberToObject(t, "score", score);
    cJSON_AddStringToObject(t, "message", message);
    cJSON_AddStringToObject(t, "test_code", code);
    cJSON_AddStringToObject(t, "filename", "");
    cJSON_AddNumberToObject(t, "line_no", 0);
    cJSON_AddNumberToObject(t, "duration", 0);
    cJSON_AddItemToArray(tests, t);
}

/* the tests of a results.json into Classroom's; 0, or -2 another lab's */
static int classroom_from_json(cJSON *res, const cJSON *o,
                               const struct cl_lab *lab, char *err, size_t len)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "extra_data");
    const char *rlab = str(x, "lab"), *status = str(x, "status"),
               *out = str(o, "output");
    if (rlab && strcmp(rlab, lab->id) != 0) {
        snprintf(err, len, "the results are of lab %s, not of lab %s", rlab,
                 lab->id);
        return CL_BOOK_NOT_A_BATCH;
    }
    cJSON *tests = cJSON_AddArrayToObject(res, "tests");
    if (!status || !is_grade(status)) { /* nothing graded: no score at all */
        cJSON_AddStringToObject(res, "status", "error");
        cJSON_AddNumberToObject(res, "max_score", 0);
        classroom_test(tests, status ? status : "not graded", "error", 0,
                       out ? out : "", lab);
        return 0;
    }
    int code = (int)json_number(x, "exit_code", 1);
    cJSON_AddStringToObject(res, "status",
                            code == CL_EXIT_OK ? "pass" : "fail");
    cJSON_AddNumberToObject(res, "max_score", json_number(o, "max_score", 0));
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(o, "tests"))
    {
        const char *name = str(t, "name"), *st = str(t, "status"),
                   *msg = str(t, "output");
        classroom_test(tests, name ? name : "?",
                       st && strcmp(st, "passed") == 0 ? "pass" : "fail",
                       json_number(t, "score", 0), msg ? msg : "", lab);
    }
    if (cJSON_GetArraySize(tests) == 0) /* refused before any case ran */
        classroom_test(tests, status, "fail", 0, out ? out : "", lab);
    return 0;
}

int cl_classroom_result(const char *path, const struct cl_lab *lab,
                        const struct cl_policy *policy, char **json, char *err,
                        size_t len)
{
    *json = NULL;
    cJSON *res = cJSON_CreateObject();
    cJSON_AddNumberToObject(res, "version", 1);
    int rc = 0;
    size_t n = strlen(path);
    char *text = cl_read_file(path, NULL);
    if (!text) {
        /* the grader left nothing: not the student's doing to judge */
        char why[600];
        snprintf(why, sizeof why,
                 "not graded: no results in %s (the grader did not run to "
                 "the end; the job's log says why)",
                 path);
        cJSON_AddStringToObject(res, "status", "error");
        cJSON_AddNumberToObject(res, "max_score", 0);
        classroom_test(cJSON_AddArrayToObject(res, "tests"), "not graded",
                       "error", 0, why, lab);
    } else if (n > 7 && strcmp(path + n - 7, ".status") == 0) {
        /* a status decided without the grader (compile-error, ...): the
         * student's when it is a grade */
        struct cl_grade_row row;
        memset(&row, 0, sizeof row);
        book_policy = policy;
        row_from_status(path, lab, &row);
        book_policy = NULL;
        cJSON *tests = cJSON_AddArrayToObject(res, "tests");
        cJSON_AddStringToObject(res, "status", row.graded ? "fail" : "error");
        cJSON_AddNumberToObject(res, "max_score",
                                row.graded ? row.max_score : 0);
        classroom_test(tests, row.status, row.graded ? "fail" : "error", 0,
                       row.detail, lab);
    } else {
        cJSON *o = cJSON_Parse(text);
        if (!cJSON_IsObject(o) ||
            !cJSON_IsObject(
                cJSON_GetObjectItemCaseSensitive(o, "extra_data"))) {
            snprintf(err, len, "%s is not a results.json of this grader", path);
            rc = CL_BOOK_NOT_A_BATCH;
        } else {
            rc = classroom_from_json(res, o, lab, err, len);
        }
        cJSON_Delete(o);
    }
    free(text);
    if (rc == 0 && !(*json = cJSON_PrintUnformatted(res))) {
        snprintf(err, len, "out of memory");
        rc = -1;
    }
    cJSON_Delete(res);
    return rc;
}
