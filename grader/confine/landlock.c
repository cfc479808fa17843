/* landlock.c: Landlock rulesets for the runner and the build (landlock.h). */
#define _GNU_SOURCE
#include "confine/landlock.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP    (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL               (1ULL << 1)
#endif

/* the ruleset attribute of ABI 6 (the kernel takes the size it is given) */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

/* the file rights of the ruleset in force (cl_landlock_ruleset()) */
static uint64_t handled;

int cl_landlock_abi(void)
{
#ifdef SYS_landlock_create_ruleset
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
                       LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
#else
    return 0;
#endif
}

/* every access right this ABI knows of files, each denied unless a rule
 * grants it */
static uint64_t fs_rights(int abi)
{
    uint64_t fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                  LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                  LANDLOCK_ACCESS_FS_REMOVE_DIR |
                  LANDLOCK_ACCESS_FS_REMOVE_FILE |
                  LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                  LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                  LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                  LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2)
        fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5)
        fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return fs;
}

int cl_landlock_ruleset(int abi, int scoped)
{
#ifdef SYS_landlock_create_ruleset
    if (abi < 1)
        return -1;
    struct ruleset_attr attr = {0};
    size_t size = sizeof attr;
    attr.handled_access_fs = handled = fs_rights(abi);
    if (abi >= 4)
        attr.handled_access_net =
            LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
    else
        size = offsetof(struct ruleset_attr, handled_access_net);
    if (abi >= 6 && scoped)
        attr.scoped =
            LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
    else if (abi >= 4)
        size = offsetof(struct ruleset_attr, scoped);
    return (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
#else
    (void)abi;
    (void)scoped;
    return -1;
#endif
}

int cl_landlock_allow(int ruleset, const char *path, uint64_t access)
{
#ifdef SYS_landlock_add_rule
    struct landlock_path_beneath_attr pb = {0};
    pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
    if (pb.parent_fd < 0)
        return 0; /* not on this machine: nothing to allow */
    struct stat st;
    access &= handled;
    if (fstat(pb.parent_fd, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                  LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                  LANDLOCK_ACCESS_FS_IOCTL_DEV;
    pb.allowed_access = access;
    long rc = access ? syscall(SYS_landlock_add_rule, ruleset,
                               LANDLOCK_RULE_PATH_BENEATH, &pb, 0)
                     : 0;
    close(pb.parent_fd);
    return rc == 0 ? 0 : -1;
#else
    (void)ruleset;
    (void)path;
    (void)access;
    return -1;
#endif
}

int cl_landlock_enforce(int ruleset)
{
#ifdef SYS_landlock_restrict_self
    long rc = syscall(SYS_landlock_restrict_self, ruleset, 0);
    close(ruleset);
    return rc == 0 ? 0 : -1;
#else
    close(ruleset);
    return -1;
#endif
}
