/* Open a socket (to send the inputs out, or fetch answers). */
#define _GNU_SOURCE
#include "common.h"

#include <sys/socket.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    (void)s;
    honest_add(a, b, c, n);
}
