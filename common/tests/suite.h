/* suite.h: the end of every Check suite's main: run it, print its totals
 * in one line for run-suites.sh (from Check's own counts), exit with the
 * number of failures. Header-only: each suite is one program. */
#ifndef CL_TESTS_SUITE_H
#define CL_TESTS_SUITE_H

#include <check.h>
#include <stdio.h>

/** Run @p s; @p skipped tests were left out, because of @p why (may be
 *  NULL when none was). Returns the failures, for main to return. */
static inline int cl_suite_run(Suite *s, int skipped, const char *why)
{
    int run = 0, failed = 0;
    if (s) {
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        run = srunner_ntests_run(sr);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
    }
    if (skipped > 0)
        printf("SKIPPED: %d tests: %s\n", skipped, why ? why : "");
    printf("cl-suite: %d %d %d\n", run - failed, failed, skipped);
    return failed;
}

#endif /* CL_TESTS_SUITE_H */
