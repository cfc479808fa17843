/**
 * @file gradebook.h
 * @brief The class gradebook: rows built from a batch's results, written
 *        as the project's CSV or as the CSV that Canvas or Gradescope
 *        imports.
 *
 * A batch directory holds, for each submission, under a file-safe KEY
 * (tools/grade-class.sh makes it: a readable slug and a short hash):
 *
 * - results/KEY.json: the grader's results.json;
 * - results/KEY.status: for submissions decided before the grader ran, one
 *   line: a status word, a tab, a message (compile-error, no-source,
 *   timeout);
 * - results/KEY.student: who submitted it, in tab-separated lines:
 *   `person NAME ID EMAIL` (one line per submitter: a Gradescope group
 *   has several), `late 1`, `source ENTRY` (the file or folder it came
 *   from). Optional: without it the student is KEY.
 *
 * cl_gradebook_collect_as() reads them all and writes DIR/gradebook.csv
 * (and, for an LMS format, DIR/gradebook-canvas.csv or
 * DIR/gradebook-gradescope.csv) atomically, one row per submitter, sorted
 * by name.
 */
#ifndef CL_GRADEBOOK_H
#define CL_GRADEBOOK_H

#include "parent/grade.h"
#include "parent/policy.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One student's row. */
struct cl_grade_row {
    char student[256]; /**< the real name (UTF-8), or the key */
    char key[128];     /**< the submission's file-safe key */
    char id[64];       /**< the LMS's id of the student, if known */
    char email[128];   /**< the student's email, if known */
    int late;          /**< the LMS marked the submission late */
    char lab[8];       /**< lab id */
    double score;      /**< points earned */
    double max_score;  /**< points available */
    double correct;    /**< correctness points earned */
    double speed;      /**< geometric mean over the timed cases of the ratio
                            each was scored on (speedup over the library or
                            fraction of the ceiling); 0 if none */
    int graded;        /**< the score is a grade (0 when nothing could be
                            graded: no GPU, internal error, no result) */
    int partial;       /**< graded on a subset (QUICK=1, one case): shown in
                            the gradebook, never exported to an LMS */
    int decided;       /**< decided without the grader (a compile error, no
                            source: a status file of the batch) */
    char status[128];  /**< graded, graded: FIRST-FAILURE (e.g. "graded:
                            crash"), not graded: no GPU, compile-error, ... */
    char detail[512];  /**< the grader's one-line output, or the reason */
};

/** What cl_gradebook_collect_as() and cl_classroom_result() return when
 *  the folder or file is not one of this lab's (a usage error). */
#define CL_BOOK_NOT_A_BATCH (-2)

/** The layouts a gradebook can be written in. */
enum cl_book_format {
    CL_BOOK_CSV = 0,   /**< gradebook.csv, every column (the default) */
    CL_BOOK_CANVAS,    /**< Canvas's grade import: Student, ID, SIS User
                            ID, SIS Login ID, Section, the assignment */
    CL_BOOK_GRADESCOPE /**< Gradescope's: Name, SID, Email, Total Score,
                            Max Points, Status */
};

/**
 * Parse "csv", "canvas" or "gradescope" into @p f. Returns 0, or -1 for
 * anything else.
 */
int cl_book_format_parse(const char *name, enum cl_book_format *f);

/**
 * Read results/NAME.json (Gradescope results written by the grader) into
 * @p row. Returns 0, or -1 with a reason in @p err when the file cannot be
 * read or is not such a file.
 */
int cl_grade_row_from_json(const char *path, struct cl_grade_row *row,
                           char *err, size_t len);

/** Write @p row as one CSV line of the default layout to @p f. */
void cl_grade_row_csv(FILE *f, const struct cl_grade_row *row);

/**
 * Build DIR/gradebook.csv from DIR/results for @p lab (its max score for
 * students the grader never saw). Returns the number of rows, or a
 * negative code with a reason in @p err. The same as
 * cl_gradebook_collect_as() with CL_BOOK_CSV and the built-in policy.
 */
int cl_gradebook_collect(const char *dir, const struct cl_lab *lab, char *err,
                         size_t len);

/**
 * Build DIR/gradebook.csv and, unless @p format is CL_BOOK_CSV, the LMS
 * layout beside it (DIR/gradebook-canvas.csv, DIR/gradebook-gradescope.csv).
 * @p assignment names Canvas's grade column (NULL: "Lab NN Title"; Canvas
 * matches an existing assignment by "Name (id)" as in its own export).
 * @p policy is the one the batch was graded with (NULL: the built-in one):
 * it gives the points of a submission the grader never scored. Rows whose
 * score is no grade (not graded: no GPU, internal error, no result yet)
 * leave the score empty in the LMS layouts, so that an import does not
 * record a zero. Returns the number of rows; CL_BOOK_NOT_A_BATCH with a
 * reason in @p err when DIR is no batch folder (missing, no results/) or
 * is another lab's (DIR/lab, or a result of another lab); -1 when the
 * gradebook cannot be written.
 */
int cl_gradebook_collect_as(const char *dir, const struct cl_lab *lab,
                            enum cl_book_format format, const char *assignment,
                            const struct cl_policy *policy, char *err,
                            size_t len);

/**
 * GitHub Classroom's autograding result (the JSON that
 * autograding-grading-reporter reads, before its base64) for lab
 * @p lab from @p path: the grader's results.json, or a KEY.status file as
 * the batch writes ("compile-error<TAB>message"), or a path that does not
 * exist (the grader left nothing). Every case is a test with its score;
 * max_score is the lab's points. A result that is no grade (no GPU, the
 * grader's internal error, no results) has status "error" and max_score
 * 0, so that Classroom records no score rather than a zero. Returns 0 and
 * a malloc'd text in @p json; CL_BOOK_NOT_A_BATCH when @p path holds
 * another lab's results or no results.json; -1 out of memory.
 */
int cl_classroom_result(const char *path, const struct cl_lab *lab,
                        const struct cl_policy *policy, char **json, char *err,
                        size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_GRADEBOOK_H */
