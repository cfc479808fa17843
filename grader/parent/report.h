/**
 * @file report.h
 * @brief The grade as a terminal table and as Gradescope's results.json.
 */
#ifndef CL_REPORT_H
#define CL_REPORT_H

#include "parent/grade.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The cases (indices into g->r, up to @p max in @p which) timed at the
 * lab's bonus speedup or better, once every case is correct; returns how
 * many there are (0 when the lab has no bonus).
 */
int cl_bonus_cases(const struct cl_grade *g, int *which, int max);

/**
 * Print the header line, the case table, the messages, the score and a hint
 * for the first failure. @p color adds ANSI colours; @p source is the
 * student's file, scanned for its first TODO marker (may be NULL).
 */
void cl_report_print(FILE *f, const struct cl_grade *g, int color,
                     const char *source);

/** One-line description of a grade's GPU and libraries into @p buf. */
void cl_report_platform(const struct cl_grade *g, char *buf, size_t len);

/**
 * results.json for @p g as a malloc'd string (Gradescope's format: score,
 * max_score, execution_time, output, tests[], leaderboard[], extra_data with
 * GPU, versions, seed and status). NULL when out of memory.
 */
char *cl_report_json(const struct cl_grade *g);

/** Write cl_report_json() to @p path atomically; 0 on success. */
int cl_report_write_json(const struct cl_grade *g, const char *path);

/** The CSV's header line, the one owner of its column names (tools/bench.sh
 *  prints it with grade --csv-header). */
void cl_report_csv_header(FILE *f);

/**
 * One CSV line per timed case of @p g (with a header line when @p header):
 * lab, code label, case, work (bytes or FLOPs per call), the medians of the
 * student, the baseline and the ceiling in ms, and the three rates in the
 * lab's unit. @p label names the code (a rung, "student"); may be NULL.
 * Commas in case names are written as ';'.
 */
void cl_report_csv(FILE *f, const struct cl_grade *g, const char *label,
                   int header);

/**
 * Find the first line of @p source containing @p marker: its 1-based line
 * number, or 0 when absent or unreadable; *count gets how many lines have it.
 */
int cl_find_marker(const char *source, const char *marker, int *count);

#ifdef __cplusplus
}
#endif

#endif /* CL_REPORT_H */
