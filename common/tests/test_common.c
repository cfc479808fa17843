/* test_common.c: the CPU-side logic of common/ (no GPU needed). */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"
#include "fatal.h"
#include "fileio.h"
#include "gpuinfo.h"
#include "guard.h"
#include "rng.h"
#include "split.h"
#include "safetensors.h"
#include "sha256.h"
#include "stats.h"
#include "tests/suite.h"

#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cl_tolerance TOL = {1e-6, 1e-5, 0.0};

static float poison(void)
{
    uint32_t bits = CL_POISON_F32;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

// ---- compare ---------------------------------------------------------------

START_TEST(test_compare_exact_passes)
{
    float got[] = {1.0f, -2.5f, 0.0f};
    double ref[] = {1.0, -2.5, 0.0};
    struct cl_compare c;
    cl_compare_f32(got, ref, NULL, 3, &TOL, &c);
    ck_assert_int_eq(c.pass, 1);
    ck_assert_uint_eq(c.n_bad, 0);
    ck_assert_double_eq(c.max_abs_err, 0.0);
    ck_assert_double_eq(c.rel_l2, 0.0);
}
END_TEST

START_TEST(test_compare_fails_only_past_the_tolerance)
{
    /* atol + rtol*|ref| = 1e-6 + 1e-5 * 100 = 1.001e-3 */
    float got[] = {100.0009f, 100.002f};
    double ref[] = {100.0, 100.0};
    struct cl_compare c;
    cl_compare_f32(got, ref, NULL, 2, &TOL, &c);
    ck_assert_uint_eq(c.n_bad, 1);
    ck_assert_uint_eq(c.first[0].index, 1);
    ck_assert_double_eq_tol(c.first[0].got, 100.002, 1e-4);
    ck_assert_int_eq(c.pass, 0);
}
END_TEST

START_TEST(test_compare_counts_unwritten_and_nan)
{
    float got[] = {1.0f, poison(), NAN, INFINITY, 5.0f};
    double ref[] = {1.0, 2.0, 3.0, 4.0, 5.0};
    struct cl_compare c;
    cl_compare_f32(got, ref, NULL, 5, &TOL, &c);
    ck_assert_uint_eq(c.n_bad, 3);
    ck_assert_uint_eq(c.n_unwritten, 1);
    ck_assert_uint_eq(c.n_nonfinite, 2);
    ck_assert_int_eq(c.first[0].unwritten, 1);
    ck_assert_uint_eq(c.first[1].index, 2);
    char msg[512];
    cl_compare_describe(&c, "c", msg, sizeof msg);
    ck_assert_str_eq(msg, "c: 3 of 5 elements wrong (1 never written) "
                          "(2 NaN or Inf); first: [1] unwritten, expected 2; "
                          "[2] got nan, expected 3; [3] got inf, expected 4");
}
END_TEST

START_TEST(test_compare_says_none_was_written)
{
    float got[4];
    for (int i = 0; i < 4; i++)
        got[i] = poison();
    double ref[] = {1, 2, 3, 4};
    struct cl_compare c;
    cl_compare_f32(got, ref, NULL, 4, &TOL, &c);
    char msg[512];
    cl_compare_describe(&c, "c", msg, sizeof msg);
    ck_assert_ptr_nonnull(strstr(msg, "none of the 4 elements was written"));
}
END_TEST

START_TEST(test_compare_zeros_fail)
{
    float got[3] = {0, 0, 0};
    double ref[] = {0.5, -0.25, 1.0};
    struct cl_compare c;
    cl_compare_f32(got, ref, NULL, 3, &TOL, &c);
    ck_assert_int_eq(c.pass, 0);
    ck_assert_uint_eq(c.n_bad, 3);
    ck_assert_double_eq_tol(c.rel_l2, 1.0, 1e-12);
}
END_TEST

START_TEST(test_compare_norm_fails_though_elements_pass)
{
    /* each element inside a loose elementwise bound, norm bound fails:
     * rel_l2 = 1e-3 (half precision territory) */
    struct cl_tolerance tol = {0.0, 1e-2, 1e-4};
    float got[] = {1.001f, 2.002f};
    double ref[] = {1.0, 2.0};
    struct cl_compare c;
    cl_compare_f32(got, ref, NULL, 2, &tol, &c);
    ck_assert_uint_eq(c.n_bad, 0);
    ck_assert_int_eq(c.norm_ok, 0);
    ck_assert_int_eq(c.pass, 0);
    ck_assert_double_eq_tol(c.rel_l2, 1e-3, 1e-6);
}
END_TEST

/* a comparison long enough to be cut into chunks on threads counts every
 * mismatch once and reports the first ones in index order, across chunks */
START_TEST(test_compare_in_chunks_reports_first_in_order)
{
    enum { N = 3 * (1 << 20) + 5 };
    float *got = malloc(N * sizeof *got);
    double *ref = malloc(N * sizeof *ref);
    double err2 = 0, ref2 = 0;
    for (size_t i = 0; i < N; i++) {
        ref[i] = (double)(i % 97) * 0.25;
        got[i] = (float)ref[i];
    }
    /* out of order on purpose: chunk 2, chunk 0, chunk 3 (the last, short
     * one), chunk 1 */
    static const size_t bad[] = {(2u << 20) + 7, 11, (3u << 20) + 4,
                                 (1u << 20) + 1, 12, (2u << 20) + 8};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        got[bad[k]] += 1.0f + (float)k;
    uint32_t poison = CL_POISON_F32;
    memcpy(&got[(1u << 20) + 2], &poison, sizeof poison);
    got[(3u << 20)] = NAN;
    for (size_t i = 0; i < N; i++) {
        double d = (double)got[i] - ref[i];
        if (isfinite(got[i]) && i != (1u << 20) + 2)
            err2 += d * d;
        ref2 += ref[i] * ref[i];
    }
    struct cl_tolerance tol = {1e-6, 0, 0};
    struct cl_compare c, c1;
    setenv("CL_CHECK_THREADS", "1", 1);
    cl_compare_f32(got, ref, NULL, N, &tol, &c1);
    setenv("CL_CHECK_THREADS", "16", 1);
    cl_compare_f32(got, ref, NULL, N, &tol, &c);
    unsetenv("CL_CHECK_THREADS");
    /* the same figures on any number of cores */
    ck_assert_uint_eq(c.n_bad, c1.n_bad);
    ck_assert_double_eq(c.max_abs_err, c1.max_abs_err);
    ck_assert_double_eq(c.rel_l2, c1.rel_l2);
    ck_assert_int_eq(c.n_reported, c1.n_reported);
    for (int k = 0; k < c.n_reported; k++)
        ck_assert_uint_eq(c.first[k].index, c1.first[k].index);
    ck_assert_uint_eq(c.n, N);
    ck_assert_uint_eq(c.n_bad, 8);
    ck_assert_uint_eq(c.n_unwritten, 1);
    ck_assert_uint_eq(c.n_nonfinite, 1);
    ck_assert_int_eq(c.n_reported, CL_MAX_REPORTED);
    static const size_t first[CL_MAX_REPORTED] = {
        11, 12, (1u << 20) + 1, (1u << 20) + 2, (2u << 20) + 7};
    for (int k = 0; k < CL_MAX_REPORTED; k++)
        ck_assert_uint_eq(c.first[k].index, first[k]);
    ck_assert_int_eq(c.first[3].unwritten, 1);
    ck_assert_double_eq(c.max_abs_err, 6.0);
    ck_assert_double_eq_tol(c.rel_l2, sqrt(err2 / ref2), 1e-12);
    ck_assert_int_eq(c.pass, 0);
    free(got);
    free(ref);
}
END_TEST

START_TEST(test_compare_checks_only_sampled_indices)
{
    float got[] = {9, 1, 9, 3};
    double ref[] = {1.0, 3.0};
    size_t idx[] = {1, 3};
    struct cl_compare c;
    cl_compare_f32(got, ref, idx, 2, &TOL, &c);
    ck_assert_int_eq(c.pass, 1);
    ck_assert_uint_eq(c.n, 2);
}
END_TEST

// ---- stats -----------------------------------------------------------------

START_TEST(test_stats_summary_right_for_odd_and_even_n)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    struct cl_stats s;
    ck_assert_int_eq(cl_stats_compute(odd, 3, &s), 0);
    ck_assert_double_eq(s.median, 3.0);
    ck_assert_double_eq(s.min, 1.0);
    ck_assert_double_eq(s.max, 5.0);
    ck_assert_double_eq(s.mean, 3.0);
    ck_assert_int_eq(cl_stats_compute(even, 4, &s), 0);
    ck_assert_double_eq(s.median, 2.5);
    ck_assert_double_eq(s.q1, 1.75);
    ck_assert_double_eq(s.q3, 3.25);
    ck_assert_double_eq_tol(s.spread, 1.5 / 2.5, 1e-12);
    ck_assert_double_eq(odd[0], 5.0); /* input untouched */
}
END_TEST

START_TEST(test_stats_refuse_empty_input)
{
    struct cl_stats s;
    ck_assert_int_eq(cl_stats_compute(NULL, 0, &s), -1);
    ck_assert_int_eq(s.n, 0);
    ck_assert_double_eq(s.median, 0.0);
}
END_TEST

START_TEST(test_stats_outlier_robust)
{
    double x[] = {1.0, 1.01, 0.99, 1.0, 50.0, 1.0, 1.02};
    struct cl_stats s;
    cl_stats_compute(x, 7, &s);
    ck_assert_double_eq(s.median, 1.0);
    ck_assert_double_eq(s.max, 50.0);
}
END_TEST

START_TEST(test_stats_stable_only_for_flat_long_series)
{
    double flat[] = {1.0, 1.001, 0.999, 1.0, 1.0, 1.001, 0.999, 1.0};
    double drift[] = {1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0};
    ck_assert_int_eq(cl_stats_stable(flat, 8, 0.01), 1);
    ck_assert_int_eq(cl_stats_stable(drift, 8, 0.01), 0);
    ck_assert_int_eq(cl_stats_stable(flat, 5, 0.01), 0); /* too few */
}
END_TEST

// ---- guards ----------------------------------------------------------------

START_TEST(test_scan_bytes_finds_changed_bytes_and_span)
{
    unsigned char g[64];
    memset(g, CL_CANARY, sizeof g);
    size_t first = 99, last = 99;
    ck_assert_uint_eq(cl_scan_bytes(g, 64, CL_CANARY, &first, &last), 0);
    ck_assert_uint_eq(first, 99);
    g[3] = 0;
    g[40] = 1;
    ck_assert_uint_eq(cl_scan_bytes(g, 64, CL_CANARY, &first, &last), 2);
    ck_assert_uint_eq(first, 3);
    ck_assert_uint_eq(last, 40);
}
END_TEST

START_TEST(test_count_poison_counts_poison_not_nan)
{
    float p[] = {1.0f, poison(), 2.0f, poison(), NAN};
    size_t first = 0;
    ck_assert_uint_eq(cl_count_poison_f32(p, 5, &first), 2);
    ck_assert_uint_eq(first, 1);
}
END_TEST

START_TEST(test_guard_describes_oob_writes_or_nothing)
{
    struct cl_guard_report r = {0, 4, 10};
    char msg[256];
    ck_assert_int_eq(cl_guard_describe(&r, "c", 4, msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "out-of-bounds write past the end of c: 4 bytes "
                          "changed, first at element 10");
    struct cl_guard_report front = {8, 0, -2};
    cl_guard_describe(&front, "c", 4, msg, sizeof msg);
    ck_assert_ptr_nonnull(strstr(msg, "before the start of c"));
    ck_assert_ptr_nonnull(strstr(msg, "element -2"));
    struct cl_guard_report clean = {0, 0, 0};
    ck_assert_int_eq(cl_guard_describe(&clean, "c", 4, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "");
}
END_TEST

// ---- rng -------------------------------------------------------------------

START_TEST(test_rng_reproducible)
{
    ck_assert_float_eq(cl_rand_uniform(42, 1, 7, -1, 1),
                       cl_rand_uniform(42, 1, 7, -1, 1));
    ck_assert_float_ne(cl_rand_uniform(42, 1, 7, -1, 1),
                       cl_rand_uniform(43, 1, 7, -1, 1));
    ck_assert_float_ne(cl_rand_uniform(42, 1, 7, -1, 1),
                       cl_rand_uniform(42, 2, 7, -1, 1));
    /* splitmix64's finaliser of 0 is 0; of 1 is this known constant */
    ck_assert_uint_eq(cl_mix64(0), 0);
    ck_assert_uint_eq(cl_mix64(1), 0x5692161d100b05e5ULL);
}
END_TEST

START_TEST(test_rng_values_in_range_exact_and_centred)
{
    enum { N = 100000 };
    float *p = malloc(N * sizeof *p);
    cl_fill_uniform_host_at(p, N, 1234, 3, 0, -1.0f, 1.0f);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        ck_assert(p[i] >= -1.0f && p[i] < 1.0f);
        /* a multiple of 2^-23: exact in float, so sums of two are exact */
        double scaled = (double)p[i] * 8388608.0;
        ck_assert_double_eq(scaled, floor(scaled));
        sum += p[i];
    }
    ck_assert_double_lt(fabs(sum / N), 0.01);
    free(p);
}
END_TEST

/* a large fill, split over threads, is the same bytes as the generator's
 * elements one by one, at an offset into the stream too: one thread's fill
 * against sixteen's whole (every element, the parts' edges with them), and
 * the split fill against the generator at a stride (each element alone
 * would take seconds here) */
START_TEST(test_rng_split_fill_equals_serial)
{
    enum { N = (1 << 20) + 12345 };
    float *p[2] = {malloc(N * sizeof(float)), malloc(N * sizeof(float))};
    int *q[2] = {malloc(N * sizeof(int)), malloc(N * sizeof(int))};
    static const char *const threads[] = {"1", "16"};
    for (int th = 0; th < 2; th++) {
        setenv("CL_CHECK_THREADS", threads[th], 1);
        cl_fill_uniform_host_at(p[th], N, 99, 5, 1000, -2.0f, 2.0f);
        cl_fill_ints_host(q[th], N, 99, 6, 37);
    }
    unsetenv("CL_CHECK_THREADS");
    ck_assert(memcmp(p[0], p[1], N * sizeof(float)) == 0);
    ck_assert(memcmp(q[0], q[1], N * sizeof(int)) == 0);
    for (size_t i = 0; i < N;
         i += (i % 65536 < 4 || i % 65536 > 65531) ? 1 : 97) {
        ck_assert_float_eq(p[1][i], cl_rand_uniform(99, 5, 1000 + i, -2, 2));
        ck_assert_int_eq(q[1][i], (int)(cl_rand_bits(99, 6, i) % 37));
    }
    ck_assert_float_eq(p[1][N - 1],
                       cl_rand_uniform(99, 5, 1000 + N - 1, -2, 2));
    for (int th = 0; th < 2; th++) {
        free(p[th]);
        free(q[th]);
    }
}
END_TEST

// ---- split -----------------------------------------------------------------

struct visits {
    unsigned char *seen;
    size_t parts, smallest;
    pthread_mutex_t mu;
};

static void visit(void *ctx, size_t from, size_t to)
{
    struct visits *v = ctx;
    for (size_t i = from; i < to; i++)
        v->seen[i]++;
    pthread_mutex_lock(&v->mu);
    v->parts++;
    if (to - from < v->smallest)
        v->smallest = to - from;
    pthread_mutex_unlock(&v->mu);
}

/* every item once, in parts of at least min_part (one part below twice
 * that), at most cl_split_threads() parts */
START_TEST(test_split_visits_every_item_once)
{
    static const size_t shapes[][2] = {
        {0, 1},    {1, 1},    {7, 1},         {9, 4},  {100, 64},
        {128, 64}, {1000, 1}, {100003, 1000}, {10, 3}, {9, 2}};
    unsetenv("CL_CHECK_THREADS");
    int cpus = cl_split_threads();
    ck_assert_int_ge(cpus, 1);
    ck_assert_int_le(cpus, 16);
    /* a number from 1 up sets the threads (16 at most); anything else is
     * ignored */
    static const char *const bad[] = {"0", "-2", "abc", "4x", ""};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        setenv("CL_CHECK_THREADS", bad[b], 1);
        ck_assert_int_eq(cl_split_threads(), cpus);
    }
    setenv("CL_CHECK_THREADS", "99", 1);
    ck_assert_int_eq(cl_split_threads(), 16);
    static const char *const threads[] = {"1", "3", "16"};
    for (size_t th = 0; th < 3; th++) {
        setenv("CL_CHECK_THREADS", threads[th], 1);
        ck_assert_int_eq(cl_split_threads(), atoi(threads[th]));
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            size_t n = shapes[k][0], min_part = shapes[k][1];
            struct visits v = {calloc(n + 1, 1), 0, (size_t)-1,
                               PTHREAD_MUTEX_INITIALIZER};
            cl_split(n, min_part, visit, &v);
            for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(v.seen[i], 1);
            ck_assert_int_eq(v.seen[n], 0);
            if (n == 0) {
                ck_assert_uint_eq(v.parts, 0);
            } else {
                ck_assert_uint_ge(v.parts, 1);
                ck_assert_uint_le(v.parts, (size_t)cl_split_threads());
                if (n < 2 * min_part)
                    ck_assert_uint_eq(v.parts, 1);
                else
                    ck_assert_uint_ge(v.smallest, min_part);
                size_t most = min_part ? n / min_part : n;
                size_t t = (size_t)atoi(threads[th]);
                ck_assert_uint_eq(v.parts, most < t ? (most ? most : 1) : t);
            }
            free(v.seen);
        }
    }
    unsetenv("CL_CHECK_THREADS");
}
END_TEST

// ---- fatal, files, versions
// --------------------------------------------------

START_TEST(test_fatal_format_names_place_lib_and_call)
{
    char buf[256];
    cl_fatal_format(buf, sizeof buf, "x.c", 12, "cudaMalloc(&p, n)", "CUDA",
                    "out of memory");
    ck_assert_str_eq(buf, "x.c:12: CUDA error: out of memory\n"
                          "  in: cudaMalloc(&p, n)");
}
END_TEST

/* the hook sees the formatted message first: exit 42 when it is right */
static void hook(const char *m)
{
    _exit(strcmp(m, "y.c:3: cuDNN error: bad param\n  in: f()") ? 43 : 42);
}

START_TEST(test_fatal_calls_hook)
{
    cl_set_fatal_hook(hook);
    cl_fatal("y.c", 3, "f()", "cuDNN", "bad param");
}
END_TEST

START_TEST(test_fatal_exits_without_hook)
{
    ck_assert_ptr_null(cl_set_fatal_hook(NULL));
    cl_fatal("y.c", 3, "f()", "cuDNN", "bad param");
}
END_TEST

START_TEST(test_xalloc_zeroes_and_never_returns_null)
{
    unsigned char *z = cl_xcalloc(16, 4);
    for (int i = 0; i < 64; i++)
        ck_assert_uint_eq(z[i], 0);
    ck_assert_ptr_nonnull(cl_xmalloc(0)); /* a byte, not NULL */
    ck_assert_ptr_nonnull(cl_xcalloc(0, 8));
    free(z);
}
END_TEST

START_TEST(test_write_atomic_replaces_and_read_returns_it)
{
    char dir[] = "/tmp/cl-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char sub[512], path[600];
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    ck_assert_int_eq(cl_mkdirs(sub), 0);
    ck_assert_int_eq(cl_mkdirs(sub), 0); /* exists: fine */
    snprintf(path, sizeof path, "%s/f.json", sub);
    ck_assert_int_eq(cl_write_atomic(path, "{\"x\":1}", 7), 0);
    ck_assert_int_eq(cl_write_atomic(path, "{\"x\":22}", 8), 0);
    size_t n = 0;
    char *text = cl_read_file(path, &n);
    ck_assert_str_eq(text, "{\"x\":22}");
    ck_assert_uint_eq(n, 8);
    free(text);
    ck_assert_ptr_null(cl_read_file("/nonexistent/x", NULL));
    ck_assert_int_eq(cl_write_atomic("/nonexistent/dir/x", "a", 1), -1);
}
END_TEST

START_TEST(test_version_numbers_decode_to_dotted_strings)
{
    char b[32];
    cl_version_string(13000, 0, b, sizeof b);
    ck_assert_str_eq(b, "13.0");
    cl_version_string(12080, 0, b, sizeof b);
    ck_assert_str_eq(b, "12.8");
    cl_version_string(91400, 1, b, sizeof b);
    ck_assert_str_eq(b, "9.14.0");
    cl_version_string(130100, 0, b, sizeof b);
    ck_assert_str_eq(b, "13.1.0");
}
END_TEST

START_TEST(test_peaks_cache_round_trip)
{
    char dir[] = "/tmp/cl-peaks-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/peaks.json", dir);
    struct cl_gpu_info g;
    memset(&g, 0, sizeof g);
    strcpy(g.uuid, "GPU-1234");
    g.driver = 13000;
    g.memcpy_gbps = 4224.5;
    g.sgemm_tflops = 51.2;
    ck_assert_int_eq(cl_peaks_save(&g, path), 0);

    struct cl_gpu_info h;
    memset(&h, 0, sizeof h);
    strcpy(h.uuid, "GPU-1234");
    h.driver = 13000;
    ck_assert_int_eq(cl_peaks_load(&h, path), 0);
    ck_assert_double_eq(h.memcpy_gbps, 4224.5);
    ck_assert_double_eq(h.sgemm_tflops, 51.2);
    ck_assert_int_eq(h.calibrated, 1);

    /* exactly, to the last bit: 0.1 + 0.2 is one ulp above 0.3, which a
     * 15-digit print would lose */
    g.memcpy_gbps = 0.1 + 0.2;
    g.sgemm_tflops = 4192.9912345678912;
    ck_assert_int_eq(cl_peaks_save(&g, path), 0);
    ck_assert_int_eq(cl_peaks_load(&h, path), 0);
    ck_assert(h.memcpy_gbps == 0.1 + 0.2);
    ck_assert(h.sgemm_tflops == 4192.9912345678912);

    /* another GPU, or a new driver, must measure again */
    struct cl_gpu_info other = h;
    other.calibrated = 0;
    strcpy(other.uuid, "GPU-9999");
    ck_assert_int_eq(cl_peaks_load(&other, path), -1);
    other = h;
    other.driver = 13010;
    ck_assert_int_eq(cl_peaks_load(&other, path), -1);

    /* figures no idle GPU gives (measured under a sanitizer, or beside
     * other work) are measured again, not trusted: an H200 (cc 9.0, 132
     * SMs at 1980 MHz: 66.9 TFLOP/s) whose SGEMM read 0.82 TFLOP/s */
    struct cl_gpu_info h200 = h;
    h200.calibrated = 0;
    h200.memcpy_gbps = h200.sgemm_tflops = 0;
    h200.cc_major = 9;
    h200.sm_count = 132;
    h200.fp32_theory_tflops = cl_fp32_theory_tflops(9, 0, 132, 1980000);
    h200.bw_theory_gbps = 4800;
    g.memcpy_gbps = 4000;
    g.sgemm_tflops = 0.82;
    ck_assert_int_eq(cl_peaks_save(&g, path), 0);
    ck_assert_int_eq(cl_peaks_load(&h200, path), -1);
    ck_assert_int_eq(h200.calibrated, 0);
    ck_assert_double_eq(h200.sgemm_tflops, 0.0);
    g.sgemm_tflops = 51.0; /* a copy at 8% of the bandwidth: the same */
    g.memcpy_gbps = 400;
    ck_assert_int_eq(cl_peaks_save(&g, path), 0);
    ck_assert_int_eq(cl_peaks_load(&h200, path), -1);
    g.memcpy_gbps = 4000; /* no figure at all: the same */
    g.sgemm_tflops = 0.0;
    ck_assert_int_eq(cl_peaks_save(&g, path), 0);
    ck_assert_int_eq(cl_peaks_load(&h200, path), -1);
    g.sgemm_tflops = 51.0; /* an idle H200's */
    ck_assert_int_eq(cl_peaks_save(&g, path), 0);
    ck_assert_int_eq(cl_peaks_load(&h200, path), 0);
    ck_assert_double_eq(h200.sgemm_tflops, 51.0);
    ck_assert_int_eq(h200.calibrated, 1);

    /* a corrupt file is ignored, not trusted */
    ck_assert_int_eq(cl_write_atomic(path, "{not json", 9), 0);
    struct cl_gpu_info c = h;
    c.calibrated = 0;
    ck_assert_int_eq(cl_peaks_load(&c, path), -1);
    ck_assert_int_eq(c.calibrated, 0);
}
END_TEST

/* the FP32 SIMT peak from the clock: 64 lanes per SM on GP100, Volta,
 * Turing and the A100, 128 elsewhere; nothing for what it does not know */
START_TEST(test_fp32_theory_from_lanes_and_clock)
{
    /* cards' published FP32 peaks: lanes per SM by compute capability */
    static const struct {
        const char *card;
        int major, minor, sms, khz;
        double tflops;
    } cards[] = {
        {"P100 (64 lanes)", 6, 0, 56, 1480000, 10.6},
        {"GTX 1080 (128)", 6, 1, 20, 1733000, 8.9},
        {"V100 (64)", 7, 0, 80, 1530000, 15.7},
        {"T4 (64)", 7, 5, 40, 1590000, 8.1},
        {"A100 (64)", 8, 0, 108, 1410000, 19.5},
        {"RTX 3090 (128)", 8, 6, 82, 1695000, 35.6},
        {"RTX 4090 (128)", 8, 9, 128, 2520000, 82.6},
        {"H100 SXM (128)", 9, 0, 132, 1980000, 66.9},
        {"B200 (128)", 10, 0, 148, 1965000, 74.45},
        {"RTX 5090 (128)", 12, 0, 170, 2407000, 104.75},
    };
    for (size_t k = 0; k < sizeof cards / sizeof cards[0]; k++) {
        double t = cl_fp32_theory_tflops(cards[k].major, cards[k].minor,
                                         cards[k].sms, cards[k].khz);
        ck_assert_msg(fabs(t - cards[k].tflops) < 0.05, "%s: %.3f TFLOP/s",
                      cards[k].card, t);
    }
    ck_assert_double_eq_tol(cl_fp32_theory_tflops(9, 0, 132, 1980000),
                            2.0 * 128 * 132 * 1.98e9 / 1e12, 1e-9);
    ck_assert_double_eq(cl_fp32_theory_tflops(9, 0, 0, 1980000), 0.0);
    ck_assert_double_eq(cl_fp32_theory_tflops(9, 0, 132, 0), 0.0);
    ck_assert_double_eq(cl_fp32_theory_tflops(3, 5, 15, 900000), 0.0);

    /* plausible: the SGEMM at 30% of its theory or more, the copy at 10%
     * (a MIG slice's share of the whole bus), where the theory is known */
    struct cl_gpu_info g;
    memset(&g, 0, sizeof g);
    ck_assert_int_eq(cl_peaks_plausible(&g), 0);
    g.memcpy_gbps = 100;
    g.sgemm_tflops = 1;
    ck_assert_int_eq(cl_peaks_plausible(&g), 1); /* no theory to hold to */
    g.fp32_theory_tflops = 66.9;
    ck_assert_int_eq(cl_peaks_plausible(&g), 0);
    g.sgemm_tflops = 0.31 * 66.9;
    ck_assert_int_eq(cl_peaks_plausible(&g), 1);
    g.bw_theory_gbps = 4800;
    g.memcpy_gbps = 0.09 * 4800;
    ck_assert_int_eq(cl_peaks_plausible(&g), 0);
    g.memcpy_gbps = 0.11 * 4800;
    ck_assert_int_eq(cl_peaks_plausible(&g), 1);
    g.sgemm_tflops = 0.29 * 66.9;
    ck_assert_int_eq(cl_peaks_plausible(&g), 0);
}
END_TEST

/* the no-GPU sentence: a machine without a driver hears it plainly, not as
 * the runtime's "driver version is insufficient"; the other causes are
 * named (their wording depends on the driver, which this machine may have) */
START_TEST(test_no_gpu_reason_names_cause_plainly)
{
    char buf[256];
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess)
        driver = 0;
    unsetenv("CUDA_VISIBLE_DEVICES");
    const char *r =
        cl_no_gpu_reason(cudaErrorInsufficientDriver, buf, sizeof buf);
    ck_assert_ptr_eq(r, buf);
    if (driver == 0) {
        ck_assert_str_eq(buf, "no NVIDIA driver or GPU found");
        cl_no_gpu_reason(cudaErrorNoDevice, buf, sizeof buf);
        ck_assert_str_eq(buf, "no NVIDIA driver or GPU found");
        cl_no_gpu_reason(cudaSuccess, buf, sizeof buf); /* zero devices */
        ck_assert_str_eq(buf, "no NVIDIA driver or GPU found");
    } else {
        ck_assert_msg(strstr(buf, "older than the CUDA") != NULL, "%s", buf);
        cl_no_gpu_reason(cudaErrorNoDevice, buf, sizeof buf);
        ck_assert_msg(strstr(buf, "no NVIDIA GPU found (the driver") == buf,
                      "%s", buf);
        setenv("CUDA_VISIBLE_DEVICES", "7", 1);
        cl_no_gpu_reason(cudaErrorNoDevice, buf, sizeof buf);
        ck_assert_msg(strstr(buf, "CUDA_VISIBLE_DEVICES='7'") != NULL, "%s",
                      buf);
        unsetenv("CUDA_VISIBLE_DEVICES");
    }
    ck_assert_ptr_null(strstr(buf, "insufficient"));
    cl_no_gpu_reason(cudaErrorDevicesUnavailable, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "unavailable") != NULL, "%s", buf);
    /* anything else keeps the runtime's words */
    cl_no_gpu_reason(cudaErrorInitializationError, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "no usable NVIDIA GPU: ") == buf, "%s", buf);
    /* a short buffer is cut, never overrun */
    char tiny[8];
    cl_no_gpu_reason(cudaErrorNoDevice, tiny, sizeof tiny);
    ck_assert_uint_eq(strlen(tiny), 7);
}
END_TEST

// ---- safetensors ----------------------------------------------------------

/* write a safetensors file: the header text, then @p data bytes of data;
 * @p hlen overrides the header length field when not 0 */
static void st_write(const char *path, const char *header,
                     unsigned long long hlen, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    unsigned long long len = hlen ? hlen : strlen(header);
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(len >> (8 * i));
    ck_assert_int_eq(fwrite(le, 1, 8, f), 8);
    ck_assert_int_eq(fwrite(header, 1, strlen(header), f), strlen(header));
    if (n)
        ck_assert_int_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* load @p header with 36 bytes of data; expect failure mentioning @p what */
static void st_refused(const char *header, unsigned long long hlen, size_t data,
                       const char *what)
{
    static const float nine[9] = {0};
    char path[] = "/tmp/cl-st-XXXXXX", err[512];
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    st_write(path, header, hlen, nine, data);
    struct cl_st st;
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, what) != NULL, "'%s' lacks '%s'", err, what);
    ck_assert_ptr_nonnull(strstr(err, path)); /* names the file */
    ck_assert_ptr_null(st.file);
    unlink(path);
}

START_TEST(test_safetensors_reads_a_good_file)
{
    const float data[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const char *h = "{\"__metadata__\":{\"src_len\":\"6\"},"
                    "\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],"
                    "\"data_offsets\":[0,24]},"
                    "\"b\":{\"dtype\":\"F32\",\"shape\":[3],"
                    "\"data_offsets\":[24,36]}}";
    char path[] = "/tmp/cl-st-XXXXXX", err[512];
    close(mkstemp(path));
    st_write(path, h, 0, data, sizeof data);
    struct cl_st st;
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), 0);
    ck_assert_int_eq(st.n, 2);
    ck_assert_str_eq(cl_st_meta(&st, "src_len"), "6");
    ck_assert_ptr_null(cl_st_meta(&st, "tgt_len"));
    long long shape[2] = {2, -1};
    const float *w = cl_st_f32(&st, "w", 2, shape, err, sizeof err);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(shape[1], 3); /* the wildcard is filled in */
    float got[6];
    memcpy(got, w, sizeof got);
    ck_assert_float_eq(got[0], 1.0f);
    ck_assert_float_eq(got[5], 6.0f);
    long long vec[1] = {3};
    const float *b = cl_st_f32(&st, "b", 1, vec, err, sizeof err);
    memcpy(got, b, 3 * sizeof(float));
    ck_assert_float_eq(got[2], 9.0f);
    /* asked for the wrong shape, a missing name */
    long long wrong[2] = {3, 2};
    ck_assert_ptr_null(cl_st_f32(&st, "w", 2, wrong, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "has shape (2, 3), expected (3, 2)"));
    ck_assert_ptr_null(cl_st_f32(&st, "nope", 1, vec, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "'nope' is missing"));
    cl_st_free(&st);
    cl_st_free(&st); /* twice is fine */
    unlink(path);
}
END_TEST

/* FIPS 180-4's examples, and lengths around the 55/56 and 64-byte block
 * boundaries against a second computation (a million 'a's) */
START_TEST(test_sha256_matches_known_vectors)
{
    char hex[CL_SHA256_HEX];
    cl_sha256_hex("", 0, hex);
    ck_assert_str_eq(
        hex,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    cl_sha256_hex("abc", 3, hex);
    ck_assert_str_eq(
        hex,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two =
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    cl_sha256_hex(two, strlen(two), hex); /* 56 bytes: a second block */
    ck_assert_str_eq(
        hex,
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    cl_sha256_hex(a, 1000000, hex);
    ck_assert_str_eq(
        hex,
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    cl_sha256_hex(a, 64, hex); /* exactly one block */
    ck_assert_str_eq(
        hex,
        "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    free(a);
}
END_TEST

/* digests in __metadata__ ("sha256:NAME"): checked on load; a wrong one
 * refused naming the tensor; cl_st_require_digests wants one per tensor;
 * cl_st_f32_nonfinite finds a NaN or an infinity */
START_TEST(test_safetensors_digests_verified_on_load)
{
    float data[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    char w_hex[CL_SHA256_HEX], b_hex[CL_SHA256_HEX], h[1024];
    cl_sha256_hex(data, 24, w_hex);
    cl_sha256_hex(data + 6, 12, b_hex);
    char path[] = "/tmp/cl-st-XXXXXX", err[512];
    close(mkstemp(path));
    const char *fmt = "{\"__metadata__\":{\"sha256:w\":\"%s\"%s%s%s},"
                      "\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],"
                      "\"data_offsets\":[0,24]},"
                      "\"b\":{\"dtype\":\"F32\",\"shape\":[3],"
                      "\"data_offsets\":[24,36]}}";
    /* w sealed, b not: loads, but not every tensor has its digest */
    snprintf(h, sizeof h, fmt, w_hex, "", "", "");
    st_write(path, h, 0, data, sizeof data);
    struct cl_st st;
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), 0);
    ck_assert_int_eq(cl_st_find(&st, "w")->digest, 1);
    ck_assert_int_eq(cl_st_find(&st, "b")->digest, 0);
    ck_assert_int_eq(cl_st_require_digests(&st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "tensor 'b' has no SHA-256 digest") != NULL, "%s",
                  err);
    ck_assert_int_eq(cl_st_f32_nonfinite(&st, cl_st_find(&st, "w")), -1);
    cl_st_free(&st);
    /* both sealed */
    snprintf(h, sizeof h, fmt, w_hex, ",\"sha256:b\":\"", b_hex, "\"");
    st_write(path, h, 0, data, sizeof data);
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), 0);
    ck_assert_int_eq(cl_st_require_digests(&st, err, sizeof err), 0);
    ck_assert_uint_eq(strlen(cl_st_meta(&st, "sha256:b")), 64);
    cl_st_free(&st);
    /* a changed element: the digest finds it */
    data[7] = 8.5f;
    st_write(path, h, 0, data, sizeof data);
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "tensor 'b' is damaged") != NULL, "%s", err);
    /* a NaN with a digest to match: loads; the values say it */
    data[7] = NAN;
    cl_sha256_hex(data + 6, 12, b_hex);
    snprintf(h, sizeof h, fmt, w_hex, ",\"sha256:b\":\"", b_hex, "\"");
    st_write(path, h, 0, data, sizeof data);
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), 0);
    ck_assert_int_eq(cl_st_f32_nonfinite(&st, cl_st_find(&st, "b")), 1);
    cl_st_free(&st);
    /* a digest of no tensor, or not hex */
    snprintf(h, sizeof h, fmt, w_hex, ",\"sha256:c\":\"", b_hex, "\"");
    st_write(path, h, 0, data, sizeof data);
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "a digest of 'c', which is no tensor"));
    snprintf(h, sizeof h, fmt, "ABC", "", "", "");
    st_write(path, h, 0, data, sizeof data);
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "tensor 'w': its digest in __metadata__ "
                                      "is not 64 lowercase hex digits"));
    unlink(path);
}
END_TEST

START_TEST(test_safetensors_refuses_bad_files)
{
    char err[512];
    struct cl_st st;
    ck_assert_int_eq(
        cl_st_load("/nonexistent/m.safetensors", &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot read"));
    const char *one = "{\"w\":{\"dtype\":\"F32\",\"shape\":[9],"
                      "\"data_offsets\":[0,36]}}";
    /* the header length beyond the file */
    st_refused(one, 1ULL << 40, 36, "does not fit");
    st_refused(one, 4096, 36, "does not fit");
    /* data cut short: the tensor ends past the end */
    st_refused(one, 0, 20, "truncated");
    st_refused("[1,2,3]", 0, 36, "not a JSON object");
    st_refused("{\"w\":{\"dtype\":\"F32\",", 0, 36, "not a JSON object");
    st_refused("{\"w\":{\"dtype\":\"F33\",\"shape\":[9],"
               "\"data_offsets\":[0,36]}}",
               0, 36, "unknown dtype 'F33'");
    st_refused("{\"w\":{\"dtype\":\"F32\",\"shape\":[3,2],"
               "\"data_offsets\":[0,36]}}",
               0, 36, "shape and dtype give 24 bytes");
    st_refused("{\"w\":{\"dtype\":\"F32\",\"shape\":[-1],"
               "\"data_offsets\":[0,36]}}",
               0, 36, "dimension 0 is not a size");
    st_refused("{\"w\":{\"dtype\":\"F32\",\"shape\":[9],"
               "\"data_offsets\":[36,0]}}",
               0, 36, "[begin, end]");
    st_refused("{\"w\":{\"dtype\":\"F32\",\"shape\":[9]}}", 0, 36,
               "needs \"dtype\", \"shape\" and \"data_offsets\"");
    st_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[5],"
               "\"data_offsets\":[0,20]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[5],"
               "\"data_offsets\":[16,36]}}",
               0, 36, "overlap");
    st_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
               "\"data_offsets\":[0,4]},"
               "\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
               "\"data_offsets\":[4,8]}}",
               0, 36, "appears twice");
    /* a file of 3 bytes */
    char path[] = "/tmp/cl-st-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_eq(write(fd, "abc", 3), 3);
    close(fd);
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "shorter than the 8-byte header"));
    unlink(path);
}
END_TEST

START_TEST(test_safetensors_f32_refuses_other_dtypes)
{
    const unsigned short half[4] = {0};
    const char *h = "{\"h\":{\"dtype\":\"F16\",\"shape\":[2,2],"
                    "\"data_offsets\":[0,8]}}";
    char path[] = "/tmp/cl-st-XXXXXX", err[512];
    close(mkstemp(path));
    st_write(path, h, 0, half, sizeof half);
    struct cl_st st;
    ck_assert_int_eq(cl_st_load(path, &st, err, sizeof err), 0);
    long long shape[2] = {2, 2};
    ck_assert_ptr_null(cl_st_f32(&st, "h", 2, shape, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "is F16, expected F32"));
    cl_st_free(&st);
    unlink(path);
}
END_TEST

static Suite *common_suite(void)
{
    Suite *s = suite_create("common");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_compare_exact_passes);
    tcase_add_test(core, test_safetensors_reads_a_good_file);
    tcase_add_test(core, test_safetensors_refuses_bad_files);
    tcase_add_test(core, test_sha256_matches_known_vectors);
    tcase_add_test(core, test_safetensors_digests_verified_on_load);
    tcase_add_test(core, test_safetensors_f32_refuses_other_dtypes);
    tcase_add_test(core, test_compare_counts_unwritten_and_nan);
    tcase_add_test(core, test_compare_checks_only_sampled_indices);
    tcase_add_test(core, test_compare_in_chunks_reports_first_in_order);
    tcase_add_test(core, test_stats_summary_right_for_odd_and_even_n);
    tcase_add_test(core, test_stats_outlier_robust);
    tcase_add_test(core, test_stats_stable_only_for_flat_long_series);
    tcase_add_test(core, test_scan_bytes_finds_changed_bytes_and_span);
    tcase_add_test(core, test_count_poison_counts_poison_not_nan);
    tcase_add_test(core, test_guard_describes_oob_writes_or_nothing);
    tcase_add_test(core, test_rng_reproducible);
    tcase_add_test(core, test_rng_values_in_range_exact_and_centred);
    tcase_add_test(core, test_rng_split_fill_equals_serial);
    tcase_add_test(core, test_split_visits_every_item_once);
    tcase_add_test(core, test_fatal_format_names_place_lib_and_call);
    tcase_add_exit_test(core, test_fatal_calls_hook, 42);
    tcase_add_exit_test(core, test_fatal_exits_without_hook, CL_FATAL_EXIT);
    tcase_add_test(core, test_write_atomic_replaces_and_read_returns_it);
    tcase_add_test(core, test_xalloc_zeroes_and_never_returns_null);
    tcase_add_test(core, test_version_numbers_decode_to_dotted_strings);
    tcase_add_test(core, test_peaks_cache_round_trip);
    tcase_add_test(core, test_fp32_theory_from_lanes_and_clock);
    tcase_add_test(core, test_no_gpu_reason_names_cause_plainly);
    suite_add_tcase(s, core);

    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_compare_fails_only_past_the_tolerance);
    tcase_add_test(limits, test_compare_says_none_was_written);
    tcase_add_test(limits, test_compare_zeros_fail);
    tcase_add_test(limits, test_compare_norm_fails_though_elements_pass);
    tcase_add_test(limits, test_stats_refuse_empty_input);
    suite_add_tcase(s, limits);
    return s;
}

int main(void)
{
    return cl_suite_run(common_suite(), 0, NULL);
}
