/**
 * @file landlock.h
 * @brief Landlock, the kernel's file and signal confinement, as the two
 *        confined processes use it: the runner (the submission's code) and
 *        the build (the submission's compiler).
 *
 * A ruleset handles every access right the kernel's ABI knows; each path
 * added grants some of them beneath it; enforcing it confines the calling
 * process and everything it starts, for good.
 */
#ifndef CL_CONFINE_LANDLOCK_H
#define CL_CONFINE_LANDLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Reading a file, listing a folder, running a program. */
#define CL_LL_READ ((1ULL << 2) | (1ULL << 3) | (1ULL << 0))
/** Reading and writing a file (a device's too: ABI 5's ioctl right). */
#define CL_LL_READ_WRITE_FILE ((1ULL << 2) | (1ULL << 1) | (1ULL << 15))
/** Everything inside a folder of one's own: read, write, make, remove. */
#define CL_LL_OWN ~0ULL

/** The Landlock ABI this kernel offers (0: none). */
int cl_landlock_abi(void);

/**
 * A ruleset that handles every file right of @p abi, TCP bind and connect
 * (ABI 4) and, with @p scoped, signals and abstract sockets to processes
 * outside the domain (ABI 6). Returns its descriptor, or -1.
 */
int cl_landlock_ruleset(int abi, int scoped);

/**
 * Grant @p access (CL_LL_*) beneath @p path (a file: the rights a file can
 * have); a path that does not exist grants nothing and is no error.
 * Returns 0, or -1 when the kernel refuses the rule.
 */
int cl_landlock_allow(int ruleset, const char *path, uint64_t access);

/** Enforce @p ruleset on this process (and what it starts); closes it.
 *  Returns 0 or -1. */
int cl_landlock_enforce(int ruleset);

#ifdef __cplusplus
}
#endif

#endif /* CL_CONFINE_LANDLOCK_H */
