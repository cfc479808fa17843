/* cli.c: options, lab lookup, and the run from the command line. */
#define _GNU_SOURCE
#include "parent/cli.h"

#include "fileio.h"
#include "judge/judge.h"

#include "parent/engine.h"
#include "parent/gradebook.h"
#include "parent/policy.h"
#include "parent/report.h"
#include "parent/score.h"
#include "specs/labs.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef CL_VERSION
#define CL_VERSION "unknown" /* the build passes VERSION's contents */
#endif

/* the library make built for @p lab beside this grader: BUILD/bin/grade
 * grades BUILD/VARIANT/NN-name.so (build/, or build/sanitize/ under
 * SANITIZE=1), said relative to the working directory when it lies under
 * it */
static void default_lib(char *buf, size_t len, const char *variant,
                        const struct cl_lab *lab)
{
    char exe[4096], cwd[4096];
    char *slash = cl_self_dir(exe, sizeof exe) ? strrchr(exe, '/') : NULL;
    if (!slash) { /* (exe is BUILD/bin: slash ends BUILD) */
        snprintf(buf, len, "build/%s/%s-%s.so", variant, lab->id, lab->slug);
        return;
    }
    *slash = '\0';
    const char *dir = exe;
    size_t c = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (c && strncmp(exe, cwd, c) == 0 && exe[c] == '/')
        dir = exe + c + 1;
    snprintf(buf, len, "%s/%s/%s-%s.so", dir, variant, lab->id, lab->slug);
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options] LAB\n"
            "Grade a CUDA Labs submission: correctness first, then speed "
            "against the\nlibrary baseline, timed in the same run.\n\n"
            "  LAB                 01, 1, vector-add or 01-vector-add\n"
            "  -l, --lib FILE      the submission, built as a shared library\n"
            "                      (default: build/student/NN-name.so)\n"
            "  -S, --solution      grade the reference solution instead\n"
            "  -s, --seed N        input seed (default: random; printed)\n"
            "  -j, --json FILE     write Gradescope results.json to FILE\n"
            "  -c, --case NAME     run this case only (again for more cases)\n"
            "  -q, --quick         run the quick subset\n"
            "  -t, --timeout SEC   limit per case (default: the lab's)\n"
            "      --source FILE   the student's source, for hints\n"
            "      --profile       mark the student's call for ncu "
            "(--profile-from-start off);\n"
            "                      runs the lab's representative case "
            "unless --case\n"
            "      --bench         time the speed cases and the size sweep "
            "(no points)\n"
            "      --demo          run the lab's demo (examples decoded by "
            "your code)\n"
            "      --policy FILE   points, targets and limits from FILE "
            "(JSON, over the\n"
            "                      built-in default; docs/grading.md)\n"
            "      --check         the static checks only (no GPU): entry "
            "points and what\n"
            "                      the submission uses\n"
            "      --tool-mode     no sandbox, for a profiler or sanitizer "
            "wrapped around us\n"
            "      --no-trace      time without the CUPTI trace "
            "(measurements)\n"
            "      --syscall-census  (maintainers, trusted code only) the "
            "runner traps\n"
            "                      nothing and names on stderr every system "
            "call its\n"
            "                      filter lacks and every file opened "
            "(tools/syscall-census.sh)\n"
            "      --csv FILE      append timed cases as CSV to FILE\n"
            "      --csv-header    print the CSV's column names\n"
            "      --label TEXT    name the code in the CSV (default: "
            "student)\n"
            "      --cache DIR     calibration cache directory\n"
            "      --recalibrate   measure the GPU's peaks again\n"
            "      --no-color      plain output (also NO_COLOR=1)\n"
            "      --list          list the labs, or LAB's cases\n"
            "      --which         print LAB's id, name and source file\n"
            "      --collect DIR   write DIR/gradebook.csv from DIR/results "
            "(a batch)\n"
            "      --format FMT    with --collect, also write the layout an "
            "LMS imports:\n"
            "                      canvas (DIR/gradebook-canvas.csv) or "
            "gradescope\n"
            "      --assignment T  with --format canvas: the grade column's "
            "title\n"
            "      --classroom FILE  print FILE (a results.json, or a batch's "
            "KEY.status) as\n"
            "                      GitHub Classroom's autograding result "
            "(base64 JSON)\n"
            "  -h, --help          this text\n"
            "  -V, --version       the grader's version\n\n"
            "exit codes: 0 graded, all correct; 1 graded, a case failed; "
            "2 usage error or\nbad policy; 3 no GPU; 4 uses what the lab "
            "forbids; 5 submission cannot be\nloaded or crashed while "
            "loading; 6 internal error; 7 a data file of the lab\n(a "
            "trained model) is missing or corrupt\n",
            prog);
}

static int usage_error(const char *prog, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    return CL_EXIT_USAGE;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v > 0) || v > 86400)
        return -1;
    *out = v;
    return 0;
}

/* why --json FILE cannot be written, known before grading: an empty
 * name, a folder, a directory that is not there or not writable, a file
 * that is not writable; NULL when it can be */
static const char *json_unwritable(const char *path)
{
    struct stat st;
    if (!*path)
        return "an empty name (--json needs a file name)";
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return "it is a folder (--json needs a file name)";
    if (path[strlen(path) - 1] == '/')
        return "a name ending in '/' (--json needs a file name)";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) { /* not "x.json" nor "/x.json" */
        *slash = '\0';
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return "its directory does not exist";
        if (access(dir, W_OK) != 0)
            return "its directory is not writable";
    } else if (!slash && access(".", W_OK) != 0) {
        return "the current directory is not writable";
    }
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0)
        return "the file is not writable";
    return NULL;
}

/* @p n bytes of @p s in base64, NUL-terminated (malloc'd) */
static char *base64(const char *s, size_t n)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)s[i + 2];
        *o++ = tab[v >> 18 & 63];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static uint64_t random_seed(void)
{
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &s, sizeof s) != (ssize_t)sizeof s)
            s = 0;
        close(fd);
    }
    if (!s)
        s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return s % 1000000000ULL; /* short enough to retype */
}

static void list_labs(const struct cl_lab *const *extra)
{
    (void)extra;
    for (const struct cl_lab *const *l = cl_labs; *l; l++)
        printf("%s  %-20s %s\n", (*l)->id, (*l)->slug, (*l)->title);
}

static void list_cases(const struct cl_lab *lab, const struct cl_policy *p)
{
    for (int i = 0; i < lab->ncases; i++) {
        const struct cl_case *c = &lab->cases[i];
        static const char *const kinds[] = {"correct", "speed", "bench",
                                            "demo"};
        printf("%-26s %-8s %5.1f points%s", c->name, kinds[c->kind],
               cl_policy_points(p, lab, i), c->quick ? "  (quick)" : "");
        if (c->kind == CL_CASE_SPEED) {
            char rule[128];
            struct cl_speed_rule r = cl_policy_speed(p, lab, i);
            cl_speed_rule_text(rule, sizeof rule, lab, &r);
            printf("  full credit at %s", rule);
        }
        putchar('\n');
    }
}

static void lab_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const struct cl_lab *const *l = cl_labs; *l && used < len; l++) {
        int k = snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
                         (*l)->id, (*l)->slug);
        if (k > 0)
            used += (size_t)k;
    }
}

int cl_cli_main(int argc, char **argv, const struct cl_lab *const *extra)
{
    enum {
        OPT_SOURCE = 256,
        OPT_CACHE,
        OPT_RECAL,
        OPT_NOCOLOR,
        OPT_LIST,
        OPT_BENCH,
        OPT_CSV,
        OPT_LABEL,
        OPT_PROFILE,
        OPT_WHICH,
        OPT_COLLECT,
        OPT_DEMO,
        OPT_POLICY,
        OPT_CHECK,
        OPT_TOOL,
        OPT_NOTRACE,
        OPT_CENSUS,
        OPT_CSV_HEADER,
        OPT_FORMAT,
        OPT_ASSIGNMENT,
        OPT_CLASSROOM
    };
    static const struct option longopts[] = {
        {"lib", required_argument, NULL, 'l'},
        {"solution", no_argument, NULL, 'S'},
        {"seed", required_argument, NULL, 's'},
        {"json", required_argument, NULL, 'j'},
        {"case", required_argument, NULL, 'c'},
        {"quick", no_argument, NULL, 'q'},
        {"timeout", required_argument, NULL, 't'},
        {"source", required_argument, NULL, OPT_SOURCE},
        {"cache", required_argument, NULL, OPT_CACHE},
        {"recalibrate", no_argument, NULL, OPT_RECAL},
        {"no-color", no_argument, NULL, OPT_NOCOLOR},
        {"list", no_argument, NULL, OPT_LIST},
        {"bench", no_argument, NULL, OPT_BENCH},
        {"csv", required_argument, NULL, OPT_CSV},
        {"label", required_argument, NULL, OPT_LABEL},
        {"profile", no_argument, NULL, OPT_PROFILE},
        {"which", no_argument, NULL, OPT_WHICH},
        {"collect", required_argument, NULL, OPT_COLLECT},
        {"demo", no_argument, NULL, OPT_DEMO},
        {"policy", required_argument, NULL, OPT_POLICY},
        {"check", no_argument, NULL, OPT_CHECK},
        {"tool-mode", no_argument, NULL, OPT_TOOL},
        {"no-trace", no_argument, NULL, OPT_NOTRACE},
        {"syscall-census", no_argument, NULL, OPT_CENSUS},
        {"csv-header", no_argument, NULL, OPT_CSV_HEADER},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"assignment", required_argument, NULL, OPT_ASSIGNMENT},
        {"classroom", required_argument, NULL, OPT_CLASSROOM},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *prog = "grade";
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    const char *json = NULL, *source = NULL, *csv = NULL, *label = NULL;
    int solution = 0, have_seed = 0, list = 0, which = 0;
    const char *collect = NULL, *policy_path = NULL, *assignment = NULL;
    const char *classroom = NULL;
    enum cl_book_format book = CL_BOOK_CSV;
    int color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        color = 0;

    optind = 0; /* reset: tests call this more than once */
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":l:Ss:j:c:qt:hV", longopts, NULL)) !=
           -1) {
        switch (ch) {
        case 'l': o.lib_path = optarg; break;
        case 'S': solution = 1; break;
        case 's':
            if (parse_u64(optarg, &o.run.seed))
                return usage_error(prog,
                                   "bad seed '%s' (a non-negative "
                                   "integer)",
                                   optarg);
            have_seed = 1;
            break;
        case 'j': json = optarg; break;
        case 'c':
            if (o.n_only == CL_MAX_ONLY)
                return usage_error(prog,
                                   "too many --case options (at most 32): "
                                   "'%s' is one more",
                                   optarg);
            o.only[o.n_only++] = optarg;
            break;
        case 'q': o.quick = 1; break;
        case 't':
            if (parse_seconds(optarg, &o.timeout_s))
                return usage_error(prog, "bad timeout '%s' (seconds, > 0)",
                                   optarg);
            break;
        case OPT_SOURCE: source = optarg; break;
        case OPT_CACHE: o.run.cache_dir = optarg; break;
        case OPT_RECAL: o.run.recalibrate = 1; break;
        case OPT_NOCOLOR: color = 0; break;
        case OPT_LIST: list = 1; break;
        case OPT_BENCH: o.bench = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_LABEL: label = optarg; break;
        case OPT_PROFILE: o.run.profile = 1; break;
        case OPT_WHICH: which = 1; break;
        case OPT_COLLECT: collect = optarg; break;
        case OPT_DEMO: o.run.demo = 1; break;
        case OPT_POLICY: policy_path = optarg; break;
        case OPT_CHECK: o.check_only = 1; break;
        case OPT_TOOL: o.run.tool_mode = 1; break;
        case OPT_NOTRACE: o.run.no_trace = 1; break;
        case OPT_CENSUS: o.run.census = 1; break;
        case OPT_CSV_HEADER: cl_report_csv_header(stdout); return CL_EXIT_OK;
        case OPT_FORMAT:
            if (cl_book_format_parse(optarg, &book))
                return usage_error(prog,
                                   "bad format '%s' (csv, canvas or "
                                   "gradescope)",
                                   optarg);
            break;
        case OPT_ASSIGNMENT: assignment = optarg; break;
        case OPT_CLASSROOM: classroom = optarg; break;
        case 'h': usage(stdout, prog); return CL_EXIT_OK;
        case 'V': printf("cuda-labs grader %s\n", CL_VERSION); return 0;
        case ':':
            return usage_error(prog, "option '%s' needs a value",
                               argv[optind - 1]);
        default:
            return usage_error(prog, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        if (list) {
            list_labs(extra);
            return CL_EXIT_OK;
        }
        return usage_error(prog, "%s", "which lab? (for example: grade 01)");
    }
    if (optind + 1 < argc)
        return usage_error(prog, "one lab at a time (extra argument '%s')",
                           argv[optind + 1]);
    const struct cl_lab *lab = cl_lab_find(argv[optind], extra);
    if (!lab) {
        char names[512];
        lab_names(names, sizeof names);
        fprintf(stderr, "%s: unknown lab '%s' (labs: %s)\nTry '%s --help'.\n",
                prog, argv[optind], names, prog);
        return CL_EXIT_USAGE;
    }
    /* a batch graded with a course's policy keeps it (OUT/policy.json):
     * its gradebook is written with that policy unless told otherwise */
    static char batch_policy[4096];
    if (collect && !policy_path) {
        snprintf(batch_policy, sizeof batch_policy, "%s/policy.json", collect);
        if (access(batch_policy, F_OK) == 0) {
            policy_path = batch_policy;
            printf("gradebook: with the batch's policy %s\n", batch_policy);
        }
    }
    static struct cl_policy policy;
    char perr[600];
    if (cl_policy_load(&policy, policy_path, extra, perr, sizeof perr) != 0) {
        fprintf(stderr, "%s: %s\n", prog, perr);
        return CL_EXIT_USAGE;
    }
    o.policy = &policy;
    if (list) {
        list_cases(lab, &policy);
        return CL_EXIT_OK;
    }
    if (which) {
        printf("%s %s %s\n", lab->id, lab->slug, lab->source);
        return CL_EXIT_OK;
    }
    if (classroom) {
        char err[512], *json = NULL;
        int c = cl_classroom_result(classroom, lab, &policy, &json, err,
                                    sizeof err);
        if (c != 0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return c == CL_BOOK_NOT_A_BATCH ? CL_EXIT_USAGE : CL_EXIT_INTERNAL;
        }
        char *b = base64(json, strlen(json));
        free(json);
        if (!b)
            return CL_EXIT_INTERNAL;
        printf("%s\n", b);
        free(b);
        return CL_EXIT_OK;
    }
    if (collect) {
        char err[1024];
        int n = cl_gradebook_collect_as(collect, lab, book, assignment,
                                        policy_path ? &policy : NULL, err,
                                        sizeof err);
        if (n < 0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return n == CL_BOOK_NOT_A_BATCH ? CL_EXIT_USAGE : CL_EXIT_INTERNAL;
        }
        static const char *const also[] = {"", " and gradebook-canvas.csv",
                                           " and gradebook-gradescope.csv"};
        printf("gradebook: %d rows in %s/gradebook.csv%s\n", n, collect,
               also[book]);
        return CL_EXIT_OK;
    }
    const char *why_json = json ? json_unwritable(json) : NULL;
    if (why_json) {
        fprintf(stderr,
                "%s: cannot write --json '%s': %s (nothing was graded)\n", prog,
                json, why_json);
        return CL_EXIT_USAGE;
    }
    char lib[4400], src[1024];
    if (!o.lib_path) {
        default_lib(lib, sizeof lib, solution ? "solution" : "student", lab);
        o.lib_path = lib;
    }
    if (!source && !solution) {
        snprintf(src, sizeof src, "%s", lab->source);
        source = src;
    }
    if (access(o.lib_path, R_OK) != 0) {
        fprintf(stderr,
                "%s: cannot read the submission '%s': %s (run 'make "
                "grade LAB=%s' to build it)\n",
                prog, o.lib_path, strerror(errno), lab->id);
        return CL_EXIT_LOAD;
    }
    if (o.check_only) {
        char why[1024];
        enum cl_exit c = cl_check_submission(lab, o.lib_path, why, sizeof why);
        if (c == CL_EXIT_OK)
            printf("check: %s passes the static checks of lab %s (entry "
                   "points, what it uses, no system call instructions)\n",
                   o.lib_path, lab->id);
        else
            fprintf(stderr, "%s: %s (exit %d)\n", prog, why, c);
        return c;
    }
    if (!have_seed)
        o.run.seed = random_seed();
    if (o.run.profile && !o.n_only)
        o.only[o.n_only++] = lab->profile_case;
    o.progress = isatty(STDERR_FILENO);

    static struct cl_grade g;
    /* ^C or a kill: the case under way ends, the finished ones are
     * reported (and written, marked incomplete), the exit is 128 + the
     * signal; the report's lines go out as they are written */
    setvbuf(stdout, NULL, _IOLBF, 0);
    cl_judge_catch_interrupts();
    enum cl_exit rc = cl_grade_run(lab, &o, &g);
    if (rc == CL_EXIT_USAGE) {
        fprintf(stderr, "%s: %s\n", prog, g.summary);
        list_cases(lab, &policy);
        return rc;
    }
    if (rc == CL_EXIT_NO_GPU) {
        /* one line, as promised */
        fprintf(stderr, "%s: %s: nothing graded (exit %d)\n", prog, g.summary,
                rc);
    } else {
        cl_report_print(stdout, &g, color, source);
        fflush(stdout);
    }
    if (csv) {
        FILE *f = fopen(csv, "a");
        if (!f) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, csv,
                    strerror(errno));
            return CL_EXIT_INTERNAL;
        }
        cl_report_csv(f, &g, label, ftell(f) == 0);
        fclose(f);
    }
    if (json && cl_report_write_json(&g, json) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, json,
                strerror(errno));
        return CL_EXIT_INTERNAL;
    }
    if (rc == CL_EXIT_OK || rc == CL_EXIT_FAILED)
        printf("replay with --seed %" PRIu64 "\n", o.run.seed);
    return rc;
}
