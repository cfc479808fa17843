/* Red team: the runner's reply says it failed, with a text meant to pass
 * for the grader's own internal error and to forge a report on a
 * terminal (see rt_reply_early.c, whose code this is).
 *
 * The grader must blame the submission (a failure reported by the process
 * that runs it, once loaded, is "crash", never internal-error) and show
 * the text made safe: no newline, no escape. */
#define FAIL_REPLY
#include "rt_reply_early.c"
