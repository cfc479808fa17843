/**
 * @file glue.h
 * @brief What both sides need of a lab: its entry points, each case's
 *        arguments as a struct, the order of its buffers, the layouts of
 *        buffers that hold several tensors, and the call itself.
 *
 * The judge plans and checks a case; the runner calls the student
 * (grader/runner/invoke.h). Both link this file and nothing else of the
 * lab, so that the runner needs neither cuBLAS nor cuDNN (a lab that
 * forbids them finds them nowhere in the process that runs the student's
 * code). The entry-point names here are also what the parent's symbol
 * check requires of a submission: one table for all three.
 */
#ifndef CL_PROTOCOL_GLUE_H
#define CL_PROTOCOL_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "04-multi-tensor-apply/adamw.h"
#include "05-gru/gru.h"
#include "06-seq2seq/seq2seq.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The entry points of lab @p id ("00" to "06"), NULL-terminated: what
 *  the parent's static check requires of a submission and what the
 *  runner resolves; NULL for an unknown lab. */
const char *const *cl_lab_entries(const char *id);

/** sizeof the case struct of lab @p id (0 for an unknown lab): the only
 *  length of a call's arguments the runner accepts. */
size_t cl_lab_arg_size(const char *id);

/** 1 when lab @p id runs on the CPU (the self-test lab 00). */
int cl_lab_on_cpu(const char *id);

// ---- Lab 1 ---------------------------------------------------------------

/** A Lab 1 case: n, and the byte offsets of a, b, c from 16-byte alignment. */
struct vadd_case {
    int n;     /**< elements */
    int off_a; /**< bytes a starts past a 16-byte boundary */
    int off_b; /**< the same for b */
    int off_c; /**< the same for c */
};
enum { VADD_A, VADD_B, VADD_C };

// ---- Lab 2 ---------------------------------------------------------------

/** A Lab 2 case: part A (stencil, n and R) or part B (conv, B x C x T, K). */
struct stencil_case {
    int part;   /**< STENCIL_A or STENCIL_B */
    int n;      /**< part A: elements */
    int radius; /**< part A: R, the stencil has 2R + 1 taps */
    int B;      /**< part B: batch */
    int C;      /**< part B: channels */
    int T;      /**< part B: time steps */
    int K;      /**< part B: taps of the causal filter */
};
enum { STENCIL_A = 0, STENCIL_B = 1 };
enum { ST_X, ST_W, ST_Y }; /**< in / x, w, out / y */

// ---- Lab 3 ---------------------------------------------------------------

/** A Lab 3 case: C (M x N) = A (M x K) B (K x N), row-major. */
struct mm_case {
    int M; /**< rows of A and C */
    int N; /**< columns of B and C */
    int K; /**< columns of A, rows of B */
};
enum { MM_A, MM_B, MM_C };

// ---- Lab 4 ---------------------------------------------------------------

/** Lab 4's lists of tensors. */
enum { AW_ONE, AW_EMPTY, AW_ODD, AW_MANY, AW_SMALL, AW_GPT2, AW_UNIFORM };

/** A Lab 4 case: a list kind, and for AW_UNIFORM count tensors of n. */
struct adamw_case {
    int list;    /**< AW_ONE ... AW_UNIFORM */
    int count;   /**< AW_UNIFORM: tensors */
    long long n; /**< AW_UNIFORM: elements of each */
};
enum { AW_P, AW_G, AW_M, AW_V, AW_ARENAS }; /**< four arenas */

#define AW_GAP 64 /**< canary floats between tensors in an arena */

/** Where a list's tensors sit in each arena (floats from its start). */
struct adamw_layout {
    int count;       /**< tensors */
    long long *n;    /**< their sizes */
    long long *off;  /**< their first floats */
    long long total; /**< floats of an arena, gaps included */
    long long elems; /**< the sum of the sizes */
};

/** Lay out case @p c's list (fixed by the case: the seed changes values,
 *  not shapes). Free with cl_adamw_layout_free(). */
void cl_adamw_layout(const struct adamw_case *c, struct adamw_layout *l);
/** Free what cl_adamw_layout() allocated. */
void cl_adamw_layout_free(struct adamw_layout *l);

/**
 * The parameter tensors of GPT-2 small (148 tensors, 124,439,808
 * elements), in the order of its state_dict; writes up to @p max sizes
 * (@p sizes may be NULL when @p max is 0), returns the count.
 */
int adamw_gpt2_sizes(long long *sizes, int max);

/** The hyperparameters of every Lab 4 case, for step @p step. */
struct adamw_hparams cl_adamw_hparams(int step);

// ---- Lab 5 ---------------------------------------------------------------

/** A Lab 5 case: a cell (part A) or a sequence through layers (part B). */
struct gru_case {
    int part; /**< GRU_CELL or GRU_FWD */
    int T;    /**< time steps (1 for a cell) */
    int B;    /**< batch */
    int I;    /**< input size */
    int H;    /**< hidden size */
    int L;    /**< layers */
};
enum { GRU_CELL = 0, GRU_FWD = 1 };
/** Buffers: x, h (cell) or h0, h_new (cell) or y, h_n (part B only),
 *  the workspace (part B only), then one weight arena per layer. */
enum { GRU_X, GRU_H, GRU_OUT, GRU_HN, GRU_WS };
#define GRU_MAX_LAYERS 8 /**< layers a case may have */

/** Index of layer @p l's weight arena among the case's buffers. */
int cl_gru_weights_buf(const struct gru_case *c, int l);

/** Floats of one layer's arena: w_ih (3H, in) | w_hh (3H, H) | b_ih | b_hh. */
size_t cl_gru_arena_floats(int in, int H);

/** The layer's weights inside an arena at @p base. */
struct gru_weights cl_gru_weights_at(const float *base, int in, int H);

// ---- Lab 6 ---------------------------------------------------------------

/** What a Lab 6 case runs. */
enum { S2S_FORCED, S2S_GREEDY, S2S_MODEL, S2S_SPEED, S2S_DEMO };

/** A Lab 6 case: kind, lengths, batch, vocabularies and sizes. For the
 *  trained model (S2S_MODEL, S2S_DEMO) the judge fills the sizes in from
 *  the model it loaded. */
struct s2s_case {
    int kind;  /**< S2S_FORCED ... S2S_DEMO */
    int S;     /**< source length */
    int T;     /**< target length */
    int B;     /**< batch */
    int v_src; /**< source vocabulary */
    int v_tgt; /**< target vocabulary */
    int E;     /**< embedding size */
    int H;     /**< hidden size */
};
/** Buffers: the model's arena, src, the workspace, then y_in and out
 *  (teacher forcing) or tokens and logits (greedy). */
enum { S2S_ARENA, S2S_SRC, S2S_WS, S2S_IN, S2S_OUT };
#define S2S_TOKENS S2S_IN  /**< greedy: the tokens, where y_in would be */
#define S2S_LOGITS S2S_OUT /**< greedy: each token's logit */
#define S2S_SOS    1       /**< the start token the grader passes */

/** One tensor of a model's arena. */
struct s2s_slot {
    const char *name; /**< its name in model.safetensors */
    long long rows;   /**< rows */
    long long cols;   /**< columns; 0: a vector */
};
#define S2S_SLOTS 12 /**< tensors of a model */

/** The tensors in arena order for vocabularies @p vs, @p vt and sizes
 *  @p E, @p H; returns S2S_SLOTS. */
int cl_s2s_slots(int vs, int vt, int E, int H, struct s2s_slot *s);

/** Floats of the arena. */
size_t cl_s2s_floats(int vs, int vt, int E, int H);

/** The model struct over an arena at @p base. */
struct seq2seq_model cl_s2s_model_at(const float *base, int vs, int vt, int E,
                                     int H);

// ---- Lab 0: the grader's self-test, on the CPU ------------------------------

/** The self-test lab: c = a + b on the CPU, in a shared library built
 *  with gcc; its fixtures try to break out of the sandbox. */
struct selftest_case {
    int n; /**< elements */
};
enum { SELF_A, SELF_B, SELF_C };
/** The self-test's entry point. */
typedef void (*selftest_add_fn)(const float *a, const float *b, float *c,
                                int n);

#ifdef __cplusplus
}
#endif

#endif /* CL_PROTOCOL_GLUE_H */
