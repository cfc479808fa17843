/**
 * @file cli.h
 * @brief The grader's command line, as a function the tests can call.
 */
#ifndef CL_CLI_H
#define CL_CLI_H

#include "parent/grade.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Run the grader with @p argc / @p argv (getopt_long options, see --help).
 * @p extra labs are searched before the built-in ones (NULL: none).
 * Returns the exit code (enum cl_exit).
 */
int cl_cli_main(int argc, char **argv, const struct cl_lab *const *extra);

#ifdef __cplusplus
}
#endif

#endif /* CL_CLI_H */
