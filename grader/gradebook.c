/* gradebook.c: the JSON and status files of a batch into gradebook.csv. */
#define _GNU_SOURCE
#include "gradebook.h"

#include "fileio.h"
#include "policy.h"

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
        double s = num(c, "speedup", 0);
        if (cJSON_IsTrue(cJSON_GetObjectItem(c, "timed")) && s > 0) {
            logsum += log(s);
            n++;
        }
    }
    row->speedup = n ? exp(logsum / n) : 0;
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

void cl_grade_row_csv(FILE *f, const struct cl_grade_row *row)
{
    char b[4][32];
    snprintf(b[0], sizeof b[0], "%.2f", row->score);
    snprintf(b[1], sizeof b[1], "%.2f", row->max_score);
    snprintf(b[2], sizeof b[2], "%.2f", row->correct);
    if (row->speedup > 0)
        snprintf(b[3], sizeof b[3], "%.3f", row->speedup);
    else
        b[3][0] = '\0';
    field(f, row->student, 0);
    field(f, row->lab, 0);
    field(f, b[0], 0);
    field(f, b[1], 0);
    field(f, b[2], 0);
    field(f, b[3], 0);
    field(f, row->status, 0);
    field(f, row->detail, 1);
}

/* results/NAME.status: "status<TAB>message" */
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
    row->max_score = cl_policy_lab_max(cl_policy_default(), lab);
    free(text);
    return 0;
}

static int by_student(const void *a, const void *b)
{
    return strcmp(((const struct cl_grade_row *)a)->student,
                  ((const struct cl_grade_row *)b)->student);
}

/* NAME from NAME.json / NAME.status; 0 when the file is neither */
static int split_name(const char *file, char *name, size_t len, int *is_json)
{
    const char *dot = strrchr(file, '.');
    if (!dot || dot == file)
        return 0;
    if (strcmp(dot, ".json") == 0)
        *is_json = 1;
    else if (strcmp(dot, ".status") == 0)
        *is_json = 0;
    else
        return 0;
    snprintf(name, len, "%.*s", (int)(dot - file), file);
    return 1;
}

int cl_gradebook_collect(const char *dir, const struct cl_lab *lab, char *err,
                         size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/results", dir);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct cl_grade_row *rows = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char name[128];
        int is_json = 0;
        if (!split_name(e->d_name, name, sizeof name, &is_json))
            continue;
        /* a student with a JSON and a status: the JSON is the later word */
        int k;
        for (k = 0; k < n && strcmp(rows[k].student, name) != 0; k++)
            ;
        if (k < n && !is_json)
            continue;
        if (k == n) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                struct cl_grade_row *nr = realloc(rows, cap * sizeof *rows);
                if (!nr) {
                    free(rows);
                    closedir(d);
                    snprintf(err, len, "out of memory");
                    return -1;
                }
                rows = nr;
            }
            n++;
        }
        struct cl_grade_row *row = &rows[k];
        memset(row, 0, sizeof *row);
        snprintf(row->student, sizeof row->student, "%s", name);
        snprintf(path, sizeof path, "%s/results/%s", dir, e->d_name);
        char why[512];
        if (is_json ? cl_grade_row_from_json(path, row, why, sizeof why)
                    : row_from_status(path, lab, row)) {
            snprintf(row->status, sizeof row->status, "internal error");
            snprintf(row->detail, sizeof row->detail, "%s",
                     is_json ? why : "unreadable status file");
            snprintf(row->student, sizeof row->student, "%s", name);
        }
    }
    closedir(d);
    qsort(rows, (size_t)n, sizeof *rows, by_student);

    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    fprintf(f, "student,lab,score,max_score,correctness,speedup,status,"
               "detail\n");
    for (int i = 0; i < n; i++)
        cl_grade_row_csv(f, &rows[i]);
    fclose(f);
    free(rows);
    snprintf(path, sizeof path, "%s/gradebook.csv", dir);
    int rc = cl_write_atomic(path, text, tlen);
    free(text);
    if (rc != 0) {
        snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return n;
}
