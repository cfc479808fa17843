/* Red team: System V and POSIX IPC, past the file rules.
 *
 * shmget() makes a segment that outlives the process (a place to leave
 * data for a later run or another student's runner: state outside the
 * grader's control), and shmat(SHM_EXEC) maps it executable: anonymous
 * executable memory that the mmap() rule never sees. mq_open() creates a
 * persistent POSIX message queue without open(). If any of it works, the
 * answer is made wrong so that it shows (and the segment is removed).
 *
 * The grader must stop it: the sandbox kills the runner on System V IPC
 * and POSIX message queues ("forbidden"). */
#define _GNU_SOURCE
#include "common.h"

#include <fcntl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    int escaped = 0;
    int id = shmget((key_t)0x434c5254, 4096, IPC_CREAT | 0666);
    if (id >= 0) {
        escaped = 1;
        void *p = shmat(id, NULL, SHM_EXEC);
        if (p != (void *)-1)
            shmdt(p);
        shmctl(id, IPC_RMID, NULL);
    }
    struct mq_attr at = {0, 1, 16, 0, {0}};
    long q = syscall(SYS_mq_open, "cl-redteam", O_CREAT | O_RDONLY, 0666, &at);
    if (q >= 0) {
        escaped = 1;
        close((int)q);
        syscall(SYS_mq_unlink, "cl-redteam");
    }
    honest_add(a, b, c, n);
    if (escaped)
        c[0] = -1.0f;
}
