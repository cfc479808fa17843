/* main.c: the grader executable. See cli.c and `grade --help`. */
#include "parent/cli.h"

int main(int argc, char **argv)
{
    return cl_cli_main(argc, argv, NULL);
}
