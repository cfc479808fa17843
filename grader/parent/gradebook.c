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

static double num(const cJSON *o, const char *key, double fallback)
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
    row->score = num(o, "score", 0);
    row->max_score = num(o, "max_score", 0);
    row->correct = num(x, "correctness_score", 0);
    const char *lab = str(x, "lab"), *status = str(x, "status"),
               *out = str(o, "output");
    snprintf(row->lab, sizeof row->lab, "%s", lab ? lab : "");
    snprintf(row->status, sizeof row->status, "%s", status ? status : "");
    snprintf(row->detail, sizeof row->detail, "%s", out ? out : "");
    row->graded = is_grade(row->status);
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
        double s = num(c, "ratio", num(c, "speedup", 0));
        if (cJSON_IsTrue(cJSON_GetObjectItem(c, "timed")) && s > 0) {
            logsum += log(s);
            n++;
        }
    }
    row->speed = n ? exp(logsum / n) : 0;
    cJSON_Delete(o);
    return 0;
}

/* a CSV field, quoted when it holds a comma, a quote or a line break */
static void field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\n\r")) {
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

/* points the lab is out of (the built-in policy) */
static double lab_max(const struct cl_lab *lab)
{
    return cl_policy_lab_max(cl_policy_default(), lab);
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
        if (rows[i].max_score > 0) {
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
        if (rows[i].graded)
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
        if (rows[i].graded)
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

int cl_gradebook_collect_as(const char *dir, const struct cl_lab *lab,
                            enum cl_book_format format, const char *assignment,
                            char *err, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/results", dir);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
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
            }
        } else if (subs[k].has[1]) {
            snprintf(path, sizeof path, "%s/results/%s.status", dir, base.key);
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
    return rc == 0 ? n : -1;
}

int cl_gradebook_collect(const char *dir, const struct cl_lab *lab, char *err,
                         size_t len)
{
    return cl_gradebook_collect_as(dir, lab, CL_BOOK_CSV, NULL, err, len);
}
