/**
 * @file fuzz.h
 * @brief The self-test's stand-in for a runner whose replies the student's
 *        code rewrites: each reply sent after the submission is loaded may
 *        be replaced by a random or boundary variant (fields, lengths,
 *        types, sequence numbers, duplicates, extra messages, descriptors,
 *        a sudden death).
 *
 * Only the CPU self-test lab, only when the judge passes --test-fuzz
 * (CL_TEST_FUZZ=SEED in its environment: grader/tests/test_protocol.c). It
 * proves that nothing a runner can send brings down the judge or becomes
 * the grader's failure.
 */
#ifndef CL_RUNNER_FUZZ_H
#define CL_RUNNER_FUZZ_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Start fuzzing the replies with @p seed (0: off). */
void cl_fuzz_start(uint64_t seed);

/** Whether the replies are fuzzed. */
int cl_fuzz_on(void);

/**
 * Send the reply @p p (@p len bytes) of @p type to command @p seq on @p fd,
 * or a variant of it, or more than it, or nothing (the runner then dies).
 * Returns what cl_msg_send() returns for the last message sent.
 */
int cl_fuzz_send(int fd, uint32_t type, uint32_t seq, const void *p,
                 uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_RUNNER_FUZZ_H */
