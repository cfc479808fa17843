/* policy.c: the grading policy as JSON (cJSON), checked against the labs. */
#define _POSIX_C_SOURCE 200809L
#include "parent/policy.h"

#include "fileio.h"
#include "specs/labs.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cl_lab *find_lab(const struct cl_lab *const *labs,
                                     const struct cl_lab *const *extra,
                                     const char *id)
{
    for (const struct cl_lab *const *l = extra; l && *l; l++)
        if (strcmp((*l)->id, id) == 0)
            return *l;
    for (const struct cl_lab *const *l = labs; l && *l; l++)
        if (strcmp((*l)->id, id) == 0)
            return *l;
    /* the grader's own (hidden) labs, by their exact id */
    const struct cl_lab *lab = labs == cl_labs ? cl_lab_find(id, NULL) : NULL;
    return lab && strcmp(lab->id, id) == 0 ? lab : NULL;
}

static int bad(char *err, size_t len, const char *where, const char *what)
{
    snprintf(err, len, "%s: %s", where, what);
    return -1;
}

/* a non-negative finite number, or -1 with the reason */
static int number(const cJSON *v, double max, double *out, char *err,
                  size_t len, const char *where)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > max)
        return bad(err, len, where, "must be a number from 0 up");
    *out = v->valuedouble;
    return 0;
}

static int speed_rule(const cJSON *o, struct cl_speed_rule *r, char *err,
                      size_t len, const char *where)
{
    if (!cJSON_IsObject(o))
        return bad(err, len, where, "\"speed\" must be an object");
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        char w[256];
        snprintf(w, sizeof w, "%s.speed.%s", where, v->string);
        if (strcmp(v->string, "vs") == 0) {
            if (!cJSON_IsString(v))
                return bad(err, len, w, "must be \"baseline\" or \"ceiling\"");
            if (strcmp(v->valuestring, "baseline") == 0)
                r->vs = CL_VS_BASELINE;
            else if (strcmp(v->valuestring, "ceiling") == 0)
                r->vs = CL_VS_CEILING;
            else
                return bad(err, len, w, "must be \"baseline\" or \"ceiling\"");
        } else if (strcmp(v->string, "zero_at") == 0) {
            if (number(v, 1e6, &r->zero_at, err, len, w))
                return -1;
        } else if (strcmp(v->string, "full_at") == 0) {
            if (number(v, 1e6, &r->full_at, err, len, w))
                return -1;
        } else {
            return bad(err, len, w, "unknown key (vs, zero_at, full_at)");
        }
    }
    if (!(r->full_at > r->zero_at))
        return bad(err, len, where, "speed.full_at must be above zero_at");
    if (r->vs == CL_VS_DEFAULT)
        r->vs = CL_VS_BASELINE;
    return 0;
}

static struct cl_case_policy *case_slot(struct cl_lab_policy *lp,
                                        const char *name)
{
    for (int i = 0; i < lp->ncases; i++)
        if (strcmp(lp->cases[i].name, name) == 0)
            return &lp->cases[i];
    if (lp->ncases == CL_MAX_CASES)
        return NULL;
    struct cl_case_policy *c = &lp->cases[lp->ncases++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

static int has_case(const struct cl_lab *lab, const char *name)
{
    for (int i = 0; i < lab->ncases; i++)
        if (strcmp(lab->cases[i].name, name) == 0)
            return lab->cases[i].kind == CL_CASE_CORRECT ||
                   lab->cases[i].kind == CL_CASE_SPEED;
    return 0;
}

static int lab_part(struct cl_lab_policy *lp, const struct cl_lab *lab,
                    const cJSON *o, char *err, size_t len)
{
    char where[128];
    snprintf(where, sizeof where, "labs.%s", lab->id);
    if (!cJSON_IsObject(o))
        return bad(err, len, where, "must be an object");
    /* the lab's rule first: a case's own rule starts from it, wherever
     * "speed" stands in the file */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "speed");
    if (v && speed_rule(v, &lp->speed, err, len, where))
        return -1;
    cJSON_ArrayForEach(v, o)
    {
        char w[256];
        snprintf(w, sizeof w, "%s.%s", where, v->string);
        if (strcmp(v->string, "speed") == 0) {
            continue; /* read above */
        } else if (strcmp(v->string, "timeout_s") == 0) {
            if (number(v, 86400, &lp->timeout_s, err, len, w))
                return -1;
            if (lp->timeout_s <= 0)
                return bad(err, len, w, "must be above 0");
        } else if (strcmp(v->string, "bonus_at") == 0) {
            if (number(v, 1e6, &lp->bonus_at, err, len, w))
                return -1;
        } else if (strcmp(v->string, "cases") == 0) {
            if (!cJSON_IsObject(v))
                return bad(err, len, w, "must be an object");
            const cJSON *c;
            cJSON_ArrayForEach(c, v)
            {
                char cw[256];
                snprintf(cw, sizeof cw, "%s.cases.%s", where, c->string);
                if (!has_case(lab, c->string))
                    return bad(err, len, cw,
                               "no such correctness or speed case in the lab");
                struct cl_case_policy *cp = case_slot(lp, c->string);
                if (!cp)
                    return bad(err, len, cw, "too many cases");
                if (cJSON_IsNumber(c)) {
                    if (number(c, 1e6, &cp->points, err, len, cw))
                        return -1;
                    continue;
                }
                if (!cJSON_IsObject(c))
                    return bad(err, len, cw,
                               "must be points, or an object with points "
                               "and speed");
                const cJSON *k;
                cJSON_ArrayForEach(k, c)
                {
                    char kw[300];
                    snprintf(kw, sizeof kw, "%s.%s", cw, k->string);
                    if (strcmp(k->string, "points") == 0) {
                        if (number(k, 1e6, &cp->points, err, len, kw))
                            return -1;
                    } else if (strcmp(k->string, "speed") == 0) {
                        if (!cp->has_speed)
                            cp->speed = lp->speed;
                        if (speed_rule(k, &cp->speed, err, len, cw))
                            return -1;
                        cp->has_speed = 1;
                    } else {
                        return bad(err, len, kw, "unknown key (points, speed)");
                    }
                }
            }
        } else {
            return bad(err, len, w,
                       "unknown key (timeout_s, bonus_at, speed, cases)");
        }
    }
    return 0;
}

static int parse(struct cl_policy *p, const char *json,
                 const struct cl_lab *const *labs,
                 const struct cl_lab *const *extra, char *err, size_t len)
{
    cJSON *o = cJSON_Parse(json);
    if (!cJSON_IsObject(o)) {
        const char *at = cJSON_GetErrorPtr();
        snprintf(err, len, "not valid JSON%s%.30s%s", at ? " near '" : "",
                 at ? at : "", at ? "'" : "");
        cJSON_Delete(o);
        return -1;
    }
    int rc = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        if (strcmp(v->string, "name") == 0) {
            if (!cJSON_IsString(v)) {
                rc = bad(err, len, "name", "must be a string");
                break;
            }
            snprintf(p->name, sizeof p->name, "%s", v->valuestring);
        } else if (strcmp(v->string, "labs") == 0) {
            if (!cJSON_IsObject(v)) {
                rc = bad(err, len, "labs", "must be an object");
                break;
            }
            const cJSON *l;
            cJSON_ArrayForEach(l, v)
            {
                const struct cl_lab *lab = find_lab(labs, extra, l->string);
                if (!lab) {
                    char w[64];
                    snprintf(w, sizeof w, "labs.%s", l->string);
                    rc = bad(err, len, w, "no such lab (use ids: \"01\")");
                    break;
                }
                struct cl_lab_policy *lp =
                    (struct cl_lab_policy *)cl_policy_lab(p, lab->id);
                if (!lp) {
                    if (p->nlabs == CL_POLICY_LABS) {
                        rc = bad(err, len, "labs", "too many labs");
                        break;
                    }
                    lp = &p->labs[p->nlabs++];
                    memset(lp, 0, sizeof *lp);
                    snprintf(lp->id, sizeof lp->id, "%s", lab->id);
                    lp->timeout_s = 60;
                    lp->speed.vs = CL_VS_BASELINE;
                    lp->speed.full_at = 1.0;
                }
                if ((rc = lab_part(lp, lab, l, err, len)) != 0)
                    break;
            }
            if (rc)
                break;
        } else {
            rc = bad(err, len, v->string, "unknown key (name, labs)");
            break;
        }
    }
    cJSON_Delete(o);
    return rc;
}

int cl_policy_parse(struct cl_policy *p, const char *json,
                    const struct cl_lab *const *labs, char *err, size_t len)
{
    return parse(p, json, labs ? labs : cl_labs, NULL, err, len);
}

const struct cl_policy *cl_policy_default(void)
{
    static struct cl_policy p;
    static int done;
    if (!done) {
        char err[256];
        memset(&p, 0, sizeof p);
        if (parse(&p, cl_policy_default_json, cl_labs, NULL, err, sizeof err) !=
            0) {
            fprintf(stderr, "grade: the built-in policy is broken: %s\n", err);
            exit(CL_EXIT_INTERNAL);
        }
        if (!p.name[0])
            snprintf(p.name, sizeof p.name, "default");
        snprintf(p.source, sizeof p.source, "built in");
        done = 1;
    }
    return &p;
}

int cl_policy_load(struct cl_policy *p, const char *path,
                   const struct cl_lab *const *extra, char *err, size_t len)
{
    *p = *cl_policy_default();
    if (!path)
        return 0;
    char *text = cl_read_file(path, NULL);
    if (!text) {
        snprintf(err, len, "cannot read the policy %s: %s", path,
                 strerror(errno));
        return -1;
    }
    char why[400];
    p->name[0] = '\0';
    int rc = parse(p, text, cl_labs, extra, why, sizeof why);
    free(text);
    if (rc) {
        snprintf(err, len, "policy %s: %s", path, why);
        return -1;
    }
    if (!p->name[0])
        snprintf(p->name, sizeof p->name, "%s", path);
    snprintf(p->source, sizeof p->source, "%s over the built-in default", path);
    return 0;
}

const struct cl_lab_policy *cl_policy_lab(const struct cl_policy *p,
                                          const char *id)
{
    for (int i = 0; p && i < p->nlabs; i++)
        if (strcmp(p->labs[i].id, id) == 0)
            return &p->labs[i];
    return NULL;
}

static const struct cl_case_policy *case_of(const struct cl_policy *p,
                                            const struct cl_lab *lab, int index)
{
    const struct cl_lab_policy *lp = cl_policy_lab(p, lab->id);
    for (int i = 0; lp && i < lp->ncases; i++)
        if (strcmp(lp->cases[i].name, lab->cases[index].name) == 0)
            return &lp->cases[i];
    return NULL;
}

double cl_policy_points(const struct cl_policy *p, const struct cl_lab *lab,
                        int index)
{
    const struct cl_case_policy *c = case_of(p, lab, index);
    return c ? c->points : 0.0;
}

struct cl_speed_rule cl_policy_speed(const struct cl_policy *p,
                                     const struct cl_lab *lab, int index)
{
    const struct cl_case_policy *c = case_of(p, lab, index);
    if (c && c->has_speed)
        return c->speed;
    const struct cl_lab_policy *lp = cl_policy_lab(p, lab->id);
    if (lp)
        return lp->speed;
    struct cl_speed_rule r = {CL_VS_BASELINE, 0.0, 1.0};
    return r;
}

double cl_policy_timeout(const struct cl_policy *p, const struct cl_lab *lab)
{
    const struct cl_lab_policy *lp = cl_policy_lab(p, lab->id);
    return lp && lp->timeout_s > 0 ? lp->timeout_s : 60.0;
}

double cl_policy_bonus(const struct cl_policy *p, const struct cl_lab *lab)
{
    const struct cl_lab_policy *lp = cl_policy_lab(p, lab->id);
    return lp ? lp->bonus_at : 0.0;
}

double cl_policy_lab_max(const struct cl_policy *p, const struct cl_lab *lab)
{
    double sum = 0;
    for (int i = 0; i < lab->ncases; i++)
        if (lab->cases[i].kind == CL_CASE_CORRECT ||
            lab->cases[i].kind == CL_CASE_SPEED)
            sum += cl_policy_points(p, lab, i);
    return sum;
}
