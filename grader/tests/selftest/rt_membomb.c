/* Red team: take the machine's memory.
 *
 * Nothing limits the runner's memory but the machine: this call takes
 * 256 MiB blocks and touches every page, up to 3 GiB (a real attack would
 * not stop; the fixture does, to spare the machine it runs on). Held
 * while frozen between calls, such memory starves the judge (its own
 * allocations fail: "the grader failed") or sends the OOM killer after
 * the wrong process. If it gets all 3 GiB, the answer is made wrong so
 * that it shows.
 *
 * The grader must bound it: the CPU lab's runner has an address-space
 * limit (allocations fail, and the call then computes honestly: "pass"),
 * and every runner is the OOM killer's first choice (oom_score_adj 1000:
 * GPU runners cannot take an address-space limit, CUDA reserves far more
 * than it uses). */
#include "common.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK  ((size_t)256 << 20)
#define BLOCKS 12 /* 3 GiB */

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static char *held[BLOCKS];
    int got = 0;
    for (int i = 0; i < BLOCKS; i++) {
        held[i] = malloc(BLOCK);
        if (!held[i])
            break;
        for (size_t k = 0; k < BLOCK; k += 4096)
            held[i][k] = 1; /* every page, for real */
        got++;
    }
    for (int i = 0; i < got; i++)
        free(held[i]);
    honest_add(a, b, c, n);
    if (got == BLOCKS)
        c[0] = -1.0f; /* 3 GiB and no limit in sight */
}
