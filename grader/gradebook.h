/**
 * @file gradebook.h
 * @brief The class gradebook: one CSV row per student, built from a
 *        batch's results.
 *
 * A batch directory holds results/STUDENT.json (written by the grader) and,
 * for submissions decided before the grader ran, results/STUDENT.status
 * (one line: a status word, a tab, a message: compile-error, no-source,
 * timeout). cl_gradebook_collect() reads them all and writes
 * DIR/gradebook.csv atomically, sorted by student.
 */
#ifndef CL_GRADEBOOK_H
#define CL_GRADEBOOK_H

#include "grader.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One student's row. */
struct cl_grade_row {
    char student[128]; /**< from the file name */
    char lab[8];       /**< lab id */
    double score;      /**< points earned */
    double max_score;  /**< points available */
    double correct;    /**< correctness points earned */
    double speedup;    /**< geometric mean over timed cases; 0 if none */
    char status[64];   /**< graded, graded: FIRST-FAILURE (e.g. "graded:
                            crash"), not graded: no GPU, compile-error, ... */
    char detail[512];  /**< the grader's one-line output, or the reason */
};

/**
 * Read results/NAME.json (Gradescope results written by the grader) into
 * @p row. Returns 0, or -1 with a reason in @p err when the file cannot be
 * read or is not such a file.
 */
int cl_grade_row_from_json(const char *path, struct cl_grade_row *row,
                           char *err, size_t len);

/** Write @p row as one CSV line (quoted where needed) to @p f. */
void cl_grade_row_csv(FILE *f, const struct cl_grade_row *row);

/**
 * Build DIR/gradebook.csv from DIR/results for @p lab (its max score for
 * students the grader never saw). Returns the number of rows, or -1 with a
 * reason in @p err.
 */
int cl_gradebook_collect(const char *dir, const struct cl_lab *lab, char *err,
                         size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_GRADEBOOK_H */
