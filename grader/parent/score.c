/* score.c: speed credit, the physical floor, and totals. */
#include "parent/score.h"

#include "parent/policy.h"

#include <stdio.h>

double cl_speed_credit(double points, double ratio,
                       const struct cl_speed_rule *rule)
{
    double span = rule->full_at - rule->zero_at;
    if (ratio <= 0 || span <= 0 || ratio <= rule->zero_at)
        return 0.0;
    double f = (ratio - rule->zero_at) / span;
    return points * (f < 1.0 ? f : 1.0);
}

double cl_speed_ratio(const struct cl_speed_rule *rule,
                      const struct cl_result *r)
{
    if (!r->timed || r->t_ms <= 0)
        return 0.0;
    if (rule->vs == CL_VS_CEILING)
        return r->ceil_ms > 0 && r->ceil_work > 0
                   ? (r->work / r->t_ms) / (r->ceil_work / r->ceil_ms)
                   : 0.0;
    return r->base_ms > 0 ? r->base_ms / r->t_ms : 0.0;
}

const char *cl_ceiling_name(const struct cl_lab *lab)
{
    if (lab->ceiling)
        return lab->ceiling;
    return lab->metric == CL_METRIC_GBPS ? "copy" : "SGEMM peak";
}

int cl_speed_rule_text(char *buf, size_t len, const struct cl_lab *lab,
                       const struct cl_speed_rule *rule)
{
    if (rule->vs != CL_VS_CEILING)
        return snprintf(buf, len, "%.2fx %s", rule->full_at, lab->baseline);
    if (rule->zero_at > 0)
        return snprintf(buf, len, "%.0f%% of the %s ceiling (none at %.0f%%)",
                        100 * rule->full_at, cl_ceiling_name(lab),
                        100 * rule->zero_at);
    return snprintf(buf, len, "%.0f%% of the %s ceiling", 100 * rule->full_at,
                    cl_ceiling_name(lab));
}

void cl_score_grade(struct cl_grade *g, const struct cl_policy *policy)
{
    const struct cl_lab *lab = g->lab;
    const struct cl_policy *p = policy ? policy : cl_policy_default();
    /* speed counts once every case is correct; a case the grader failed
     * on (internal-error, to be regraded) says nothing against the code */
    g->all_correct = g->n > 0;
    int speed_open = g->n > 0;
    for (int i = 0; i < g->n; i++) {
        enum cl_status st = g->r[i].status;
        if (!cl_status_correct(st))
            g->all_correct = 0;
        if (!cl_status_correct(st) && st != CL_ST_INTERNAL)
            speed_open = 0;
    }
    g->correct_score = g->correct_max = 0;
    g->speed_score = g->speed_max = 0;
    for (int i = 0; i < g->n; i++) {
        struct cl_result *r = &g->r[i];
        const struct cl_case *c = &lab->cases[r->index];
        int scored = c->kind == CL_CASE_CORRECT || c->kind == CL_CASE_SPEED;
        r->max_score = scored ? cl_policy_points(p, lab, r->index) : 0;
        r->score = 0;
        if (c->kind == CL_CASE_CORRECT) {
            if (r->status == CL_ST_PASS)
                r->score = r->max_score;
            g->correct_max += r->max_score;
            g->correct_score += r->score;
            continue;
        }
        struct cl_speed_rule rule = cl_policy_speed(p, lab, r->index);
        const struct cl_speed_rule vs_base = {.vs = CL_VS_BASELINE};
        r->speedup = cl_speed_ratio(&vs_base, r);
        r->ratio = cl_speed_ratio(&rule, r);
        r->vs_ceiling = rule.vs == CL_VS_CEILING;
        r->target = rule.full_at;
        if (c->kind != CL_CASE_SPEED)
            continue;
        if (speed_open && r->status == CL_ST_PASS)
            r->score = cl_speed_credit(r->max_score, r->ratio, &rule);
        g->speed_max += r->max_score;
        g->speed_score += r->score;
    }
    g->score = g->correct_score + g->speed_score;
    g->max_score = g->correct_max + g->speed_max;
}
