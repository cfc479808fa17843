/* test_refs.c: the labs' CPU references (refs.h) against values worked
 * out by hand; what both sides share of a lab (glue.h: Lab 4's tensor
 * lists, Lab 6's model arena); Lab 6's data, loaded and checked before
 * anything runs (a missing, cut or damaged file is refused by name); and
 * the lab registry: every spec is whole and found by each of its names. */
#define _GNU_SOURCE
#include "fileio.h"
#include "protocol/glue.h"
#include "parent/grade.h"
#include "05-gru/gru.h"
#include "judge/harness.h"
#include "parent/policy.h"
#include "specs/refs.h"
#include "safetensors.h"
#include "06-seq2seq/seq2seq.h"
#include "specs/seq2seq_data.h"
#include "parent/symbols.h"
#include "sha256.h"

#include "tests/shell.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define GRADE      CL_BUILD_DIR "/bin/grade"
#define STUDENT_06 CL_BUILD_DIR "/student/06-seq2seq.so"

// ---- Labs 1 to 3 -----------------------------------------------------------

/* sums in double: exact where float would round or overflow */
START_TEST(test_reference_vector_add)
{
    /* 1.5 + 2.25 = 3.75; -1 + 1 = 0; 2^-23 + 1 exactly */
    float a[] = {1.5f, -1.0f, 1.1920929e-7f, 3.0e38f, -0.0f};
    float b[] = {2.25f, 1.0f, 1.0f, 3.0e38f, -0.0f};
    double ref[5];
    vector_add_ref(a, b, ref, 5);
    ck_assert_double_eq(ref[0], 3.75);
    ck_assert_double_eq(ref[1], 0.0);
    ck_assert_double_eq(ref[2], 1.0 + 1.1920928955078125e-7);
    ck_assert_double_eq_tol(ref[3], 6.0e38, 1e31); /* no float overflow */
    ck_assert(isfinite(ref[3]));
    ck_assert_double_eq(ref[4], 0.0);
    /* n = 0 writes nothing */
    ref[0] = 42.0;
    vector_add_ref(a, b, ref, 0);
    ck_assert_double_eq(ref[0], 42.0);
}
END_TEST

/* zero padding at both ends, the weights in order w[0] for in[i-R] */
START_TEST(test_reference_stencil)
{
    /* R = 1, w = (1, 10, 100): out[i] = in[i-1] + 10 in[i] + 100 in[i+1] */
    float in[] = {1, 2, 3, 4};
    float w[] = {1, 10, 100};
    double ref[4];
    stencil_ref(in, w, ref, 4, 1);
    ck_assert_double_eq(ref[0], 210.0); /* 0 + 10 + 200: zero on the left */
    ck_assert_double_eq(ref[1], 321.0);
    ck_assert_double_eq(ref[2], 432.0);
    ck_assert_double_eq(ref[3], 43.0); /* 3 + 40 + 0: zero on the right */
    /* n = 1 with R = 2: only the centre weight sees data */
    float one[] = {2};
    float w5[] = {9, 9, 0.5f, 9, 9};
    stencil_ref(one, w5, ref, 1, 2);
    ck_assert_double_eq(ref[0], 1.0);
    /* R = 0: a scaling */
    float w1[] = {-3};
    stencil_ref(in, w1, ref, 4, 0);
    ck_assert_double_eq(ref[3], -12.0);
}
END_TEST

/* causal: y[t] reads x up to t only, weights per channel, rows (b, c) */
START_TEST(test_reference_causal_conv1d)
{
    /* C = 2, T = 3, K = 2: y[t] = w[c,0] x[t-1] + w[c,1] x[t] */
    float x[] = {1, 2, 3, 4, 5, 6}; /* row 0 (c=0), row 1 (c=1) */
    float w[] = {1, 10, 2, 20};
    double ref[6];
    causal_conv1d_ref(x, w, ref, 0, 2, 2, 3, 2);
    ck_assert_double_eq(ref[0], 10.0); /* x[-1] is zero */
    ck_assert_double_eq(ref[1], 21.0);
    ck_assert_double_eq(ref[2], 32.0);
    ck_assert_double_eq(ref[3], 80.0);
    ck_assert_double_eq(ref[4], 108.0);
    ck_assert_double_eq(ref[5], 130.0);
    /* one row from the middle: row 1 alone */
    causal_conv1d_ref(x, w, ref, 1, 1, 2, 3, 2);
    ck_assert_double_eq(ref[0], 80.0);
    ck_assert_double_eq(ref[2], 130.0);
    /* K > T: only the last weights see data */
    float w4[] = {1000, 100, 10, 1};
    causal_conv1d_ref(x, w4, ref, 0, 1, 1, 2, 4);
    ck_assert_double_eq(ref[0], 1.0);      /* w[3] x[0] */
    ck_assert_double_eq(ref[1], 10 + 2.0); /* w[2] x[0] + w[3] x[1] */
    /* B = 2, C = 1: row 1 is batch 1 with channel 0's weights */
    causal_conv1d_ref(x, w, ref, 1, 1, 1, 3, 2);
    ck_assert_double_eq(ref[0], 40.0);
    ck_assert_double_eq(ref[1], 54.0);
}
END_TEST

/* C = A B row-major, rows from row0, products exact in double */
START_TEST(test_reference_matmul)
{
    /* [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]] = [[58 64] [139 154]] */
    float A[] = {1, 2, 3, 4, 5, 6};
    float B[] = {7, 8, 9, 10, 11, 12};
    double C[4];
    matmul_ref(A, B, C, 0, 2, 2, 3);
    ck_assert_double_eq(C[0], 58.0);
    ck_assert_double_eq(C[1], 64.0);
    ck_assert_double_eq(C[2], 139.0);
    ck_assert_double_eq(C[3], 154.0);
    matmul_ref(A, B, C, 1, 1, 2, 3); /* the second row alone */
    ck_assert_double_eq(C[0], 139.0);
    ck_assert_double_eq(C[1], 154.0);
    /* products of floats are exact in double: 2^-24 * 2^-24 survives */
    float a1[] = {5.9604645e-8f}, b1[] = {5.9604645e-8f};
    matmul_ref(a1, b1, C, 0, 1, 1, 1);
    ck_assert_double_eq(C[0], 3.552713678800501e-15);
    /* and so is a sum that float would lose: 2^24 + 1 - 2^24 */
    float a3[] = {16777216.0f, 1.0f, -16777216.0f}, b3[] = {1, 1, 1};
    matmul_ref(a3, b3, C, 0, 1, 1, 3);
    ck_assert_double_eq(C[0], 1.0);
}
END_TEST

// ---- Lab 4 ------------------------------------------------------------------

/* torch.optim.AdamW's step, two steps worked by hand */
START_TEST(test_reference_adamw)
{
    /* p = 1, g = 0.5, fresh state, lr 0.1, wd 0.5, eps 0, step 1:
     * p = 0.95 (decay); m = 0.05; v = 0.00025; bias corrections 0.1 and
     * 0.001; update = (0.1 / 0.1) * 0.05 / (sqrt(0.00025) / sqrt(0.001))
     * = 0.05 / 0.5 = 0.1; p = 0.85 */
    double p = 1, m = 0, v = 0;
    float g = 0.5f;
    struct adamw_ref_hp hp = {0.1, 0.9, 0.999, 0.0, 0.5, 1};
    adamw_ref(&p, &m, &v, &g, 1, &hp);
    ck_assert_double_eq_tol(m, 0.05, 1e-15);
    ck_assert_double_eq_tol(v, 0.00025, 1e-15);
    ck_assert_double_eq_tol(p, 0.85, 1e-12);
    /* step 2, same gradient: m = 0.095, v = 0.00049975; corrections 0.19
     * and 0.001999: the update is lr again (a constant gradient keeps
     * |update| = lr); p = 0.85 * 0.95 - 0.1 */
    hp.step = 2;
    adamw_ref(&p, &m, &v, &g, 1, &hp);
    ck_assert_double_eq_tol(m, 0.095, 1e-15);
    ck_assert_double_eq_tol(v, 0.00049975, 1e-15);
    ck_assert_double_eq_tol(p, 0.85 * 0.95 - 0.1, 1e-12);
    /* a zero gradient with eps: only the decay moves p */
    double p2[2] = {2.0, -4.0}, m2[2] = {0, 0}, v2[2] = {0, 0};
    float g2[2] = {0, 0};
    struct adamw_ref_hp hp2 = {0.01, 0.9, 0.999, 1e-8, 0.1, 1};
    adamw_ref(p2, m2, v2, g2, 2, &hp2);
    ck_assert_double_eq_tol(p2[0], 2.0 * 0.999, 1e-15);
    ck_assert_double_eq_tol(p2[1], -4.0 * 0.999, 1e-15);
    ck_assert_double_eq(m2[0], 0.0);
    ck_assert_double_eq(v2[1], 0.0);
}
END_TEST

/* GPT-2 small's 148 parameter tensors, 124,439,808 elements */
START_TEST(test_gpt2_sizes)
{
    long long sizes[200];
    int n = adamw_gpt2_sizes(sizes, 200);
    ck_assert_int_eq(n, 148); /* 12 per layer, 2 embeddings, ln_f's 2 */
    long long total = 0;
    for (int i = 0; i < n; i++)
        total += sizes[i];
    ck_assert_int_eq(total, 124439808LL); /* GPT-2 small's parameter count */
    ck_assert_int_eq(sizes[0], 50257LL * 768);
    ck_assert_int_eq(sizes[1], 1024LL * 768);
    ck_assert_int_eq(sizes[4], 768LL * 2304); /* layer 0's c_attn weight */
    ck_assert_int_eq(sizes[147], 768);
    /* the count without room to write, and no write past max */
    ck_assert_int_eq(adamw_gpt2_sizes(NULL, 0), 148);
    long long few[4] = {-1, -1, -1, -1};
    ck_assert_int_eq(adamw_gpt2_sizes(few, 3), 148);
    ck_assert_int_eq(few[2], 768);
    ck_assert_int_eq(few[3], -1);
}
END_TEST

/* Lab 4's arenas: tensors 16-byte aligned (or 4 bytes off, for the
 * misaligned list) with AW_GAP canary floats around each */
START_TEST(test_adamw_layout)
{
    struct adamw_case c = {AW_EMPTY, 0, 0};
    struct adamw_layout l;
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 7);
    static const long long want_n[7] = {0, 5, 0, 4096, 0, 1, 0};
    static const long long want_off[7] = {64, 128, 200, 264, 4424, 4488, 4556};
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(l.n[i], want_n[i]);
        ck_assert_int_eq(l.off[i], want_off[i]);
    }
    ck_assert_int_eq(l.elems, 4102);
    ck_assert_int_eq(l.total, 4620);
    cl_adamw_layout_free(&l);
    ck_assert_ptr_null(l.n);
    c.list = AW_ODD;
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 6);
    for (int i = 0; i < l.count; i++) {
        ck_assert_int_eq(l.off[i] % 4, 1);
        if (i)
            ck_assert_int_ge(l.off[i] - (l.off[i - 1] + l.n[i - 1]), AW_GAP);
    }
    ck_assert_int_ge(l.total - (l.off[5] + l.n[5]), AW_GAP);
    cl_adamw_layout_free(&l);
    c.list = AW_GPT2;
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 148);
    ck_assert_int_eq(l.elems, 124439808LL);
    cl_adamw_layout_free(&l);
    c = (struct adamw_case){AW_UNIFORM, 10, 1000};
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 10);
    ck_assert_int_eq(l.elems, 10000);
    ck_assert_int_eq(l.off[1], 64 + 1000 + 64);
    cl_adamw_layout_free(&l);
}
END_TEST

// ---- Lab 5 ------------------------------------------------------------------

/* gates r, z, n as cuDNN and PyTorch: r applied to (W_hn h + b_hn) */
START_TEST(test_reference_gru_cell)
{
    /* zero weights and biases: r = z = 1/2, n = tanh(0) = 0, h' = h / 2 */
    const float zero[3] = {0, 0, 0};
    struct gru_weights w0 = {zero, zero, zero, zero};
    double x = 1.0, h = 0.8, out = 0.0;
    gru_cell_ref(&x, &h, &out, &w0, 1, 1);
    ck_assert_double_eq_tol(out, 0.4, 1e-15);

    /* x = 1, h = 1/2; W_ir = ln 3 (r = 3/4), b_iz = -ln 3 (z = 1/4),
     * W_hn = 2 and b_hn = 1: n = tanh(r * (2 * 1/2 + 1)) = tanh(1.5), so
     * h' = 3/4 tanh(1.5) + 1/4 * 1/2. Swapping r and z, or applying r
     * before the product (tanh(2 * 3/8 + 1) = tanh(1.75)), gives another
     * value. */
    const float l3 = (float)log(3.0);
    const float w_ih[3] = {l3, 0, 0}, w_hh[3] = {0, 0, 2};
    const float b_ih[3] = {0, -l3, 0}, b_hh[3] = {0, 0, 1};
    struct gru_weights w = {w_ih, w_hh, b_ih, b_hh};
    h = 0.5;
    gru_cell_ref(&x, &h, &out, &w, 1, 1);
    ck_assert_double_eq_tol(out, 0.75 * tanh(1.5) + 0.125, 1e-7);
    ck_assert_double_eq_tol(out, 0.8038611902336498, 1e-7);

    /* two units: unit 1's rows are 1, 3 and 5 of each matrix; with only
     * W_in's row of unit 1 set, unit 0 is h / 2 and unit 1 mixes in x */
    const float w2_ih[6] = {0, 0, 0, 0, 0, 1}, w2_hh[12] = {0};
    const float b2[6] = {0};
    struct gru_weights w2 = {w2_ih, w2_hh, b2, b2};
    double h2[2] = {0.8, -0.6}, out2[2];
    gru_cell_ref(&x, h2, out2, &w2, 1, 2);
    ck_assert_double_eq_tol(out2[0], 0.4, 1e-15);
    ck_assert_double_eq_tol(out2[1], 0.5 * tanh(1.0) - 0.3, 1e-15);
}
END_TEST

/* layers stacked over time, batch row b of (T, B, I) and (L, B, H) */
START_TEST(test_reference_gru_forward)
{
    /* T = 2, B = 2, I = H = 1, two layers. Layer 0 has zero weights, so
     * it halves h each step; layer 1 has W_in = 1 only, so each step is
     * h' = tanh(x) / 2 + h / 2 with x the output of layer 0. Batch row 1
     * starts from h0 = 0.8 (layer 0) and -0.6 (layer 1):
     *   layer 0: 0.4, 0.2
     *   layer 1: tanh(0.4) / 2 - 0.3 = -0.110025518872388,
     *            tanh(0.2) / 2 - 0.110025518872388 / 2 = 0.043674900676258 */
    const float zero[3] = {0, 0, 0}, w_in[3] = {0, 0, 1};
    struct gru_weights layers[2] = {{zero, zero, zero, zero},
                                    {w_in, zero, zero, zero}};
    const float x[4] = {9, 0.5f, 9, -0.5f}; /* (T, B, I): unused weights */
    const float h0[4] = {0.1f, 0.8f, 0.2f, -0.6f}; /* (L, B, H) */
    double y[2], hn[2];
    gru_forward_ref(x, h0, layers, 2, 2, 1, 1, 2, 1, y, hn);
    ck_assert_double_eq_tol(y[0], -0.11002551887238754, 1e-7);
    ck_assert_double_eq_tol(y[1], 0.04367490067625823, 1e-7);
    ck_assert_double_eq_tol(hn[0], 0.2, 1e-7);
    ck_assert_double_eq_tol(hn[1], 0.04367490067625823, 1e-7);
    /* row 0 starts elsewhere, so it ends elsewhere */
    gru_forward_ref(x, h0, layers, 2, 2, 1, 1, 2, 0, y, hn);
    ck_assert_double_eq_tol(hn[0], 0.025, 1e-7);
    ck_assert_double_eq_tol(hn[1], 0.05 + tanh(0.025) / 2 + tanh(0.05) / 4,
                            1e-7);
}
END_TEST

// ---- Lab 6 ------------------------------------------------------------------

/* a model of V = 2, E = H = 1 worked by hand: the encoder's z gate is shut
 * (bias -100), so h' = tanh(x) and the context is tanh(E_src[src]); the
 * decoder's GRU has zero weights, so d_t = d_{t-1} / 2 from d_{-1} = c;
 * the output layer reads [e; d; c] as o_0 = -e + 2d, o_1 = e + c */
static void tiny_model(struct seq2seq_model *m)
{
    static const float enc_emb[2] = {0.5f, 2.0f}, dec_emb[2] = {1, -1};
    static const float enc_ih[3] = {0, 0, 1}, enc_b[3] = {0, -100, 0};
    static const float zero[6] = {0};
    static const float fc_w[6] = {-1, 2, 0, 1, 0, 1}, fc_b[2] = {0, 0};
    memset(m, 0, sizeof *m);
    m->v_src = m->v_tgt = 2;
    m->emb = m->hid = 1;
    m->enc_emb = enc_emb;
    m->enc.w_ih = enc_ih;
    m->enc.w_hh = zero;
    m->enc.b_ih = enc_b;
    m->enc.b_hh = zero;
    m->dec_emb = dec_emb;
    m->dec.w_ih = zero; /* (3, 2) */
    m->dec.w_hh = zero;
    m->dec.b_ih = zero;
    m->dec.b_hh = zero;
    m->fc_w = fc_w;
    m->fc_b = fc_b;
}

/* greedy and teacher-forced decodes of the tiny model, by hand */
START_TEST(test_reference_seq2seq)
{
    struct seq2seq_model m;
    tiny_model(&m);
    const int src[1] = {1}; /* S = B = 1: x = 2, c = tanh(2) */
    double c = tanh(2.0), o[4];
    int tok[2];
    /* greedy from sos = 1 (e = -1): step 0 o = (1 + c, c - 1) -> 0;
     * then e = 1, d = c / 4: o = (-1 + c / 2, 1 + c) -> 1 */
    seq2seq_ref(&m, src, 1, 1, 0, 2, 1, NULL, tok, o);
    ck_assert_int_eq(tok[0], 0);
    ck_assert_int_eq(tok[1], 1);
    ck_assert_double_eq_tol(o[0], 1 + c, 1e-12);
    ck_assert_double_eq_tol(o[1], c - 1, 1e-12);
    ck_assert_double_eq_tol(o[2], -1 + c / 2, 1e-12);
    ck_assert_double_eq_tol(o[3], 1 + c, 1e-12);
    /* teacher forcing with inputs (1, 1): e = -1 both steps, d = c/2, c/4 */
    const int y_in[2] = {1, 1};
    seq2seq_ref(&m, src, 1, 1, 0, 2, 1, y_in, tok, o);
    ck_assert_double_eq_tol(o[2], 1 + c / 2, 1e-12);
    ck_assert_double_eq_tol(o[3], c - 1, 1e-12);
    ck_assert_int_eq(tok[1], 0); /* its own argmax, not the input */
    /* a source of two steps, batch of two: sentence 1 reads column 1 */
    const int src2[4] = {0, 0, 0, 1}; /* (S, B): row s, column b */
    seq2seq_ref(&m, src2, 2, 2, 1, 1, 1, NULL, tok, o);
    ck_assert_double_eq_tol(o[1], tanh(2.0) - 1, 1e-12);
    seq2seq_ref(&m, src2, 2, 2, 0, 1, 1, NULL, tok, o);
    ck_assert_double_eq_tol(o[1], tanh(0.5) - 1, 1e-12);
}
END_TEST

/* a tie goes to the lowest index */
START_TEST(test_reference_seq2seq_ties)
{
    struct seq2seq_model m;
    tiny_model(&m);
    static const float fc_tie[6] = {0, 0, 0, 0, 0, 0}, b_tie[2] = {0.5f, 0.5f};
    m.fc_w = fc_tie;
    m.fc_b = b_tie;
    const int src[1] = {1};
    int tok[3] = {-1, -1, -1};
    double o[6];
    seq2seq_ref(&m, src, 1, 1, 0, 3, 1, NULL, tok, o);
    for (int t = 0; t < 3; t++) {
        ck_assert_int_eq(tok[t], 0);
        ck_assert_double_eq(o[2 * t], 0.5);
        ck_assert_double_eq(o[2 * t + 1], 0.5);
    }
}
END_TEST

/* the judge of a greedy decode: equal, a near-tie (accepted, the rest
 * not compared), a real difference, a wrong logit, a token out of range */
START_TEST(test_greedy_comparison)
{
    /* reference: tokens (2, 0, 1) with logits rows of V = 3 */
    const int ref[3] = {2, 0, 1};
    const double lg[9] = {0.1, 0.2, 0.9, 0.5, 0.49999, 0.1, 0.0, 1.0, 0.2};
    int got[3] = {2, 0, 1}, step = -1;
    float gl[3] = {0.9f, 0.5f, 1.0f};
    char why[256];
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     0);
    ck_assert_int_eq(step, 3);
    /* step 1 picks 1 (0.49999 vs 0.5): a near-tie, accepted; the rest is
     * not compared (step 2 is wrong on purpose) */
    got[1] = 1;
    got[2] = 0;
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     1);
    ck_assert_int_eq(step, 1);
    /* the same with a tolerance below the gap: wrong */
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-6, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 1);
    ck_assert_ptr_nonnull(strstr(why, "step 1: token 1"));
    ck_assert_ptr_nonnull(strstr(why, "not a tie"));
    /* right tokens, a wrong logit */
    int ok[3] = {2, 0, 1};
    float bad[3] = {0.9f, 0.5f, 1.01f};
    ck_assert_int_eq(seq2seq_compare_greedy(ok, bad, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 2);
    ck_assert_ptr_nonnull(strstr(why, "its logit"));
    /* within atol + 1e-4 relative: accepted */
    float near[3] = {0.9f, 0.5f, 1.00005f};
    ck_assert_int_eq(seq2seq_compare_greedy(ok, near, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     0);
    /* a NaN logit is never within tolerance */
    float nan_l[3] = {0.9f, NAN, 1.0f};
    ck_assert_int_eq(seq2seq_compare_greedy(ok, nan_l, ref, lg, 3, 3, 1e-4,
                                            1e-5, &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 1);
    /* a token outside the vocabulary, either side */
    int out[3] = {2, 7, 1};
    ck_assert_int_eq(seq2seq_compare_greedy(out, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_ptr_nonnull(strstr(why, "outside [0, 3)"));
    int neg[3] = {-1, 0, 1};
    ck_assert_int_eq(seq2seq_compare_greedy(neg, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 0);
    ck_assert_ptr_nonnull(strstr(why, "token -1 is outside"));
}
END_TEST

/* the rows a sampled check compares: all of a few; else the first, the
 * last and distinct ones between, sorted, fixed by the judge's pick */
START_TEST(test_check_rows)
{
    struct cl_check ck;
    memset(&ck, 0, sizeof ck);
    int out[8];
    ck_assert_int_eq(cl_check_rows(&ck, 5, 8, out), 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(out[i], i);
    ck_assert_int_eq(cl_check_rows(&ck, 8, 8, out), 8);
    ck_assert_int_eq(out[7], 7);
    ck_assert_int_eq(cl_check_rows(&ck, 1, 4, out), 1);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(cl_check_rows(&ck, 2, 2, out), 2);
    ck_assert_int_eq(out[1], 1);
    /* sampled: the first, the last, distinct and sorted between */
    int a[8], b[8], same = 1;
    ck.pick = 12345;
    ck_assert_int_eq(cl_check_rows(&ck, 1000, 8, a), 8);
    ck_assert_int_eq(a[0], 0);
    ck_assert_int_eq(a[7], 999);
    for (int i = 1; i < 8; i++)
        ck_assert_int_lt(a[i - 1], a[i]);
    /* the same pick, the same rows; another pick, other rows */
    ck_assert_int_eq(cl_check_rows(&ck, 1000, 8, b), 8);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(a[i], b[i]);
    ck.pick = 54321;
    cl_check_rows(&ck, 1000, 8, b);
    for (int i = 0; i < 8; i++)
        same &= a[i] == b[i];
    ck_assert_int_eq(same, 0);
    /* one more than max: every row but one */
    ck_assert_int_eq(cl_check_rows(&ck, 9, 8, b), 8);
    ck_assert_int_eq(b[0], 0);
    ck_assert_int_eq(b[7], 8);
}
END_TEST

/* the model's arena: twelve tensors in the file's order, their sizes */
START_TEST(test_s2s_arena)
{
    struct s2s_slot sl[S2S_SLOTS];
    ck_assert_int_eq(cl_s2s_slots(33, 35, 64, 256, sl), S2S_SLOTS);
    ck_assert_str_eq(sl[0].name, "encoder.embedding.weight");
    ck_assert_str_eq(sl[S2S_SLOTS - 1].name, "decoder.fc_out.bias");
    ck_assert_int_eq(sl[6].rows, 768);
    ck_assert_int_eq(sl[6].cols, 64 + 256); /* [embedding; context] */
    ck_assert_int_eq(sl[10].cols, 64 + 512);
    /* 2112 + 49152 + 196608 + 1536 (encoder), 2240 + 245760 + 196608 +
     * 1536 (decoder), 20160 + 35 (output) */
    ck_assert_uint_eq(cl_s2s_floats(33, 35, 64, 256), 715747);
    static float base[715747];
    struct seq2seq_model m = cl_s2s_model_at(base, 33, 35, 64, 256);
    ck_assert_int_eq(m.v_src, 33);
    ck_assert_int_eq(m.v_tgt, 35);
    ck_assert_int_eq(m.emb, 64);
    ck_assert_int_eq(m.hid, 256);
    ck_assert_ptr_eq(m.enc_emb, base);
    ck_assert_int_eq(m.enc.w_ih - base, 2112);
    ck_assert_int_eq(m.dec_emb - base, 249408);
    ck_assert_int_eq(m.fc_b - base, 715747 - 35);
}
END_TEST

// ---- Lab 6's data -----------------------------------------------------------

static char real_dir[3072]; /* the shipped data */
static char tmp_dir[64];    /* a copy to damage */
static char err[1024];

static void data_setup(void)
{
    unsetenv("CUDA_LABS_DATA");
    cl_s2s_data_dir(real_dir, sizeof real_dir);
    strcpy(tmp_dir, "/tmp/cl-data-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
    setenv("CUDA_LABS_DATA", tmp_dir, 1);
}

static void data_teardown(void)
{
    unsetenv("CUDA_LABS_DATA");
    if (tmp_dir[0])
        sh("rm -rf %s", tmp_dir);
}

/* copy the shipped @p file into tmp_dir, its first @p limit bytes when
 * limit > 0 */
static void copy_data(const char *file, size_t limit)
{
    char from[4096], to[128];
    size_t n = 0;
    snprintf(from, sizeof from, "%s/%s", real_dir, file);
    snprintf(to, sizeof to, "%s/%s", tmp_dir, file);
    char *buf = cl_read_file(from, &n);
    ck_assert_msg(buf != NULL, "cannot read %s", from);
    FILE *f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    size_t k = limit && limit < n ? limit : n;
    ck_assert_uint_eq(fwrite(buf, 1, k, f), k);
    fclose(f);
    free(buf);
}

static void copy_all(void)
{
    copy_data("model.safetensors", 0);
    copy_data("src.vocab", 0);
    copy_data("tgt.vocab", 0);
    copy_data("test.tsv", 0);
}

/* in tmp_dir's @p file, replace the first @p from by @p to (same length) */
static void replace_in(const char *file, const char *from, const char *to)
{
    char path[128];
    size_t n = 0, k = strlen(from);
    ck_assert_uint_eq(strlen(to), k);
    snprintf(path, sizeof path, "%s/%s", tmp_dir, file);
    char *buf = cl_read_file(path, &n);
    ck_assert_ptr_nonnull(buf);
    char *at = memmem(buf, n, from, k);
    ck_assert_msg(at != NULL, "%s has no '%s'", file, from);
    memcpy(at, to, k);
    FILE *f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
    fclose(f);
    free(buf);
}

/* in tmp_dir's @p file, overwrite @p n bytes at @p off with @p bytes */
static void patch_at(const char *file, long off, const void *bytes, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, file);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, off, SEEK_SET), 0);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* append @p text to tmp_dir's @p file */
static void append_to(const char *file, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, file);
    FILE *f = fopen(path, "ab");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* the data in tmp_dir is refused with a message naming @p file and
 * saying @p want */
static void load_refused(const char *file, const char *want)
{
    static struct cl_lab_data sentinel;
    struct cl_lab_data *d = &sentinel;
    err[0] = '\0';
    ck_assert_int_eq(cl_s2s_load(&d, err, sizeof err), -1);
    ck_assert_ptr_null(d);
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, file);
    ck_assert_msg(strstr(err, file ? path : tmp_dir) != NULL,
                  "'%s' does not name %s", err, file ? path : tmp_dir);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' does not say '%s'", err,
                  want);
}

/* the shipped data: sizes, vocabularies, sentences and weights as in the
 * files, found without CUDA_LABS_DATA from any working directory */
START_TEST(test_lab6_data_loads)
{
    unsetenv("CUDA_LABS_DATA");
    ck_assert_ptr_nonnull(strstr(real_dir, "labs/06-seq2seq/data"));
    ck_assert_int_eq(access(real_dir, R_OK), 0);
    struct cl_lab_data *d = NULL;
    ck_assert_msg(cl_s2s_load(&d, err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(d->v_src, 33);
    ck_assert_int_eq(d->v_tgt, 35);
    ck_assert_int_eq(d->E, 64);
    ck_assert_int_eq(d->H, 256);
    ck_assert_int_eq(d->S, 6);
    ck_assert_int_eq(d->T, 8);
    ck_assert_int_eq(d->n, 1000);
    ck_assert_uint_eq(d->floats, cl_s2s_floats(33, 35, 64, 256));
    ck_assert_int_eq(d->src.n, 33);
    ck_assert_str_eq(d->src.w[S2S_PAD], "<pad>");
    ck_assert_str_eq(d->tgt.w[S2S_SOS], "<sos>");
    ck_assert_str_eq(d->tgt.w[S2S_EOS], "<eos>");
    ck_assert_str_eq(d->line[0][0], "twenty");
    ck_assert_str_eq(d->line[0][1], "zwanzig");
    ck_assert_str_eq(d->line[1][0], "thirty one");
    /* sentence 1 is left-padded to S = 6: four <pad>, then its two ids */
    for (int s = 0; s < 4; s++)
        ck_assert_int_eq(d->ids[s * d->n + 1], S2S_PAD);
    ck_assert_str_eq(d->src.w[d->ids[4 * d->n + 1]], "thirty");
    ck_assert_str_eq(d->src.w[d->ids[5 * d->n + 1]], "one");
    /* the arena holds the file's tensors, in the glue's order */
    char path[4096], why[512];
    struct cl_st st;
    snprintf(path, sizeof path, "%s/model.safetensors", real_dir);
    ck_assert_msg(cl_st_load(path, &st, why, sizeof why) == 0, "%s", why);
    struct seq2seq_model m =
        cl_s2s_model_at(d->model, d->v_src, d->v_tgt, d->E, d->H);
    long long shape[2] = {35, 576};
    const void *fc =
        cl_st_f32(&st, "decoder.fc_out.weight", 2, shape, why, sizeof why);
    ck_assert_msg(fc != NULL, "%s", why);
    ck_assert_int_eq(memcmp(m.fc_w, fc, 35 * 576 * sizeof(float)), 0);
    shape[0] = 33;
    shape[1] = 64;
    const void *emb =
        cl_st_f32(&st, "encoder.embedding.weight", 2, shape, why, sizeof why);
    ck_assert_int_eq(memcmp(d->model, emb, 33 * 64 * sizeof(float)), 0);
    cl_st_free(&st);
    /* words: up to <eos> */
    int tok[3] = {3, S2S_EOS, 4};
    char words[128];
    cl_s2s_words(&d->tgt, tok, 3, 1, words, sizeof words);
    ck_assert_str_eq(words, d->tgt.w[3]);
    int bad[2] = {99, S2S_EOS};
    cl_s2s_words(&d->tgt, bad, 2, 1, words, sizeof words);
    ck_assert_str_eq(words, "<?>");
}
END_TEST

/* the CPU reference translates the held-out sentences with the shipped
 * model as its metadata says (100% exact match): a check of the loader,
 * the arena's layout and seq2seq_ref together */
START_TEST(test_lab6_reference_translates)
{
    unsetenv("CUDA_LABS_DATA");
    struct cl_lab_data *d = NULL;
    ck_assert_msg(cl_s2s_load(&d, err, sizeof err) == 0, "%s", err);
    struct seq2seq_model m =
        cl_s2s_model_at(d->model, d->v_src, d->v_tgt, d->E, d->H);
    int tok[64];
    double *logits = malloc((size_t)d->T * d->v_tgt * sizeof *logits);
    char words[400];
    int right = 0, tried = 0;
    for (int b = 0; b < d->n; b += 7, tried++) {
        seq2seq_ref(&m, d->ids, d->S, d->n, b, d->T, S2S_SOS, NULL, tok,
                    logits);
        cl_s2s_words(&d->tgt, tok, d->T, 1, words, sizeof words);
        right += strcmp(words, d->line[b][1]) == 0;
        if (b == 0)
            ck_assert_str_eq(words, "zwanzig");
    }
    free(logits);
    ck_assert_int_eq(tried, 143);
    ck_assert_int_eq(right, tried);
}
END_TEST

/* no files at all, or one missing: refused, naming the file */
START_TEST(test_lab6_data_missing)
{
    load_refused("model.safetensors", "cannot read the file");
    copy_data("model.safetensors", 0);
    load_refused("src.vocab", "cannot read the file");
    copy_data("src.vocab", 0);
    load_refused("tgt.vocab", "cannot read the file");
    copy_data("tgt.vocab", 0);
    load_refused("test.tsv", "cannot read the file");
    copy_data("test.tsv", 0);
    struct cl_lab_data *d = NULL;
    ck_assert_msg(cl_s2s_load(&d, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(d->n, 1000);
    char dir[128];
    ck_assert_str_eq(cl_s2s_data_dir(dir, sizeof dir), tmp_dir);
}
END_TEST

/* the shipped model's size in bytes */
static size_t model_size(void)
{
    char path[4096];
    struct stat stt;
    snprintf(path, sizeof path, "%s/model.safetensors", real_dir);
    ck_assert_int_eq(stat(path, &stt), 0);
    return (size_t)stt.st_size;
}

/* the model cut short, at any length: refused, never read past its end */
START_TEST(test_lab6_data_truncated)
{
    copy_all();
    copy_data("model.safetensors", 100000);
    load_refused("model.safetensors", "truncated");
    copy_data("model.safetensors", model_size() - 1);
    load_refused("model.safetensors", "truncated");
    copy_data("model.safetensors", 500); /* inside the header */
    load_refused("model.safetensors", "does not fit");
    copy_data("model.safetensors", 5); /* inside the length */
    load_refused("model.safetensors", "shorter than the 8-byte header");
    char path[128];
    snprintf(path, sizeof path, "%s/model.safetensors", tmp_dir);
    FILE *f = fopen(path, "wb");
    fclose(f);
    load_refused("model.safetensors", "0 bytes");
}
END_TEST

/* damaged bytes: a garbage length, a broken header, a renamed tensor, a
 * shape that does not match its bytes, another dtype, overlapping data */
START_TEST(test_lab6_data_corrupt)
{
    copy_all();
    patch_at("model.safetensors", 0, "garbage!", 8); /* the length */
    load_refused("model.safetensors", "does not fit");
    copy_data("model.safetensors", 0);
    replace_in("model.safetensors", "{\"__metadata__\"", "[\"__metadata__\"");
    load_refused("model.safetensors", "not a JSON object");
    copy_data("model.safetensors", 0);
    /* a tensor renamed (and its digest with it): not the model's */
    replace_in("model.safetensors", "fc_out.bias", "fc_out.bia5");
    replace_in("model.safetensors", "fc_out.bias", "fc_out.bia5");
    load_refused("model.safetensors",
                 "unexpected tensor 'decoder.fc_out.bia5'");
    copy_data("model.safetensors", 0);
    /* the tensor renamed alone: its digest names no tensor */
    replace_in("model.safetensors", "\"decoder.fc_out.bias\":{",
               "\"decoder.fc_out.bia5\":{");
    load_refused("model.safetensors", "__metadata__ has a digest of "
                                      "'decoder.fc_out.bias', which is no "
                                      "tensor of the file");
    copy_data("model.safetensors", 0);
    replace_in("model.safetensors", "\"shape\":[35]", "\"shape\":[36]");
    load_refused("model.safetensors", "shape and dtype give 144 bytes");
    copy_data("model.safetensors", 0);
    replace_in("model.safetensors", "\"dtype\":\"F32\"", "\"dtype\":\"I32\"");
    load_refused("model.safetensors", "expected F32");
    copy_data("model.safetensors", 0);
    /* fc_out.bias made to start 4 bytes early, inside the embedding */
    replace_in("model.safetensors", "[8960,9100]", "[8956,9096]");
    load_refused("model.safetensors", "overlap");
    copy_data("model.safetensors", 0);
    replace_in("model.safetensors", "\"src_len\":\"6\"", "\"src_len\":\"0\"");
    load_refused("model.safetensors", "src_len and tgt_len");
    copy_data("model.safetensors", 0);
    /* a weight's shape changed with its bytes kept: sizes disagree */
    replace_in("model.safetensors", "\"shape\":[768,256]",
               "\"shape\":[256,768]");
    load_refused("model.safetensors",
                 "'decoder.rnn.weight_hh_l0' has shape (256, 768), expected "
                 "(768, 256)");
}
END_TEST

/* tensor @p name of tmp_dir's model: its element @p index set to @p v;
 * with @p reseal its digest in the header made to match again (a NaN
 * written by the trainer itself), else left as it was (a damaged byte) */
static void set_element(const char *name, long index, float v, int reseal)
{
    char path[128], why[512];
    snprintf(path, sizeof path, "%s/model.safetensors", tmp_dir);
    struct cl_st st;
    ck_assert_msg(cl_st_load(path, &st, why, sizeof why) == 0, "%s", why);
    const struct cl_st_tensor *t = cl_st_find(&st, name);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_lt((size_t)index * 4, t->bytes);
    unsigned char *at = st.file + st.data + t->offset;
    memcpy(at + 4 * index, &v, 4);
    if (reseal) {
        char key[200], hex[CL_SHA256_HEX];
        snprintf(key, sizeof key, "\"" CL_ST_DIGEST "%s\":\"", name);
        char *d = memmem(st.file, st.data, key, strlen(key));
        ck_assert_ptr_nonnull(d);
        cl_sha256_hex(at, t->bytes, hex);
        memcpy(d + strlen(key), hex, 64);
    }
    ck_assert_int_eq(cl_write_atomic(path, st.file, st.size), 0);
    cl_st_free(&st);
}

/* the tensors' bytes are sealed by their SHA-256 in the header: a byte
 * flipped inside a tensor, a NaN or an infinity (even one whose digest
 * was made to match), a digest missing, malformed or of no tensor: each
 * refused, naming the tensor */
START_TEST(test_lab6_data_digests)
{
    copy_all();
    /* the shipped model has every digest, and they are right */
    char path[128], why[512];
    snprintf(path, sizeof path, "%s/model.safetensors", tmp_dir);
    struct cl_st st;
    ck_assert_msg(cl_st_load(path, &st, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(st.n, 12);
    ck_assert_int_eq(cl_st_require_digests(&st, why, sizeof why), 0);
    for (int i = 0; i < st.n; i++)
        ck_assert_int_eq(cl_st_f32_nonfinite(&st, &st.t[i]), -1);
    cl_st_free(&st);
    /* one bit flipped in the middle of the output layer's weights */
    {
        struct cl_st s2;
        ck_assert_int_eq(cl_st_load(path, &s2, why, sizeof why), 0);
        const struct cl_st_tensor *t = cl_st_find(&s2, "decoder.fc_out.weight");
        long off = (long)(s2.data + t->offset + t->bytes / 2);
        unsigned char b = s2.file[off] ^ 0x10;
        cl_st_free(&s2);
        patch_at("model.safetensors", off, &b, 1);
    }
    load_refused("model.safetensors",
                 "tensor 'decoder.fc_out.weight' is damaged: its bytes do "
                 "not match the SHA-256");
    /* a NaN, digest made to match: the values are checked too */
    copy_data("model.safetensors", 0);
    set_element("decoder.fc_out.weight", 7, NAN, 1);
    load_refused("model.safetensors", "tensor 'decoder.fc_out.weight' is "
                                      "damaged: element 7 is NaN or infinite");
    /* an infinity, in another tensor */
    copy_data("model.safetensors", 0);
    set_element("encoder.rnn.bias_hh_l0", 0, INFINITY, 1);
    load_refused("model.safetensors", "tensor 'encoder.rnn.bias_hh_l0' is "
                                      "damaged: element 0 is NaN or infinite");
    /* the same infinity without the digest's help: the digest sees it */
    copy_data("model.safetensors", 0);
    set_element("encoder.rnn.bias_hh_l0", 0, -INFINITY, 0);
    load_refused("model.safetensors", "tensor 'encoder.rnn.bias_hh_l0' is "
                                      "damaged: its bytes do not match");
    /* a digest missing (the key renamed away) */
    copy_data("model.safetensors", 0);
    replace_in("model.safetensors", "\"sha256:decoder.fc_out.bias\"",
               "\"nohash:decoder.fc_out.bias\"");
    load_refused("model.safetensors",
                 "tensor 'decoder.fc_out.bias' has no SHA-256 digest");
    /* a digest that is not hex */
    copy_data("model.safetensors", 0);
    {
        struct cl_st s3;
        ck_assert_int_eq(cl_st_load(path, &s3, why, sizeof why), 0);
        const char *hex = cl_st_meta(&s3, "sha256:decoder.fc_out.bias");
        ck_assert_ptr_nonnull(hex);
        char from[100], to[100];
        snprintf(from, sizeof from, "\"%s\"", hex);
        snprintf(to, sizeof to, "\"G%s\"", hex + 1);
        cl_st_free(&s3);
        replace_in("model.safetensors", from, to);
    }
    load_refused("model.safetensors", "tensor 'decoder.fc_out.bias': its "
                                      "digest in __metadata__ is not 64");
    /* and the grader says so with exit 7 before it needs a GPU */
    copy_data("model.safetensors", 0);
    set_element("decoder.rnn.weight_hh_l0", 1000, 1e30f, 0);
    char out[128];
    snprintf(out, sizeof out, "%s.out", tmp_dir);
    ck_assert_int_eq(sh("CUDA_LABS_DATA=%s %s 06 --lib %s --no-color >%s 2>&1",
                        tmp_dir, GRADE, STUDENT_06, out),
                     CL_EXIT_DATA);
    char *text = cl_read_file(out, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(
        strstr(text, "tensor 'decoder.rnn.weight_hh_l0' is damaged") != NULL,
        "%s", text);
    free(text);
    unlink(out);
}
END_TEST

/* tools/seal-safetensors.py (no PyTorch): rewrites the header with the
 * digests and leaves every tensor's bytes alone; --check says which are
 * missing or wrong */
START_TEST(test_lab6_seal_script)
{
    if (sh("command -v python3 > /dev/null") != 0) {
        printf("skip: no python3\n");
        return;
    }
    copy_all();
    /* the model as it was before digests: the metadata keys renamed */
    char path[128];
    snprintf(path, sizeof path, "%s/model.safetensors", tmp_dir);
    ck_assert_int_eq(sh("LC_ALL=C sed -i 's/\"sha256:/\"unseal:/g' %s", path),
                     0);
    load_refused("model.safetensors", "has no SHA-256 digest");
    ck_assert_int_eq(
        sh("python3 tools/seal-safetensors.py --check %s > /dev/null", path),
        1);
    ck_assert_int_eq(
        sh("python3 tools/seal-safetensors.py %s > /dev/null", path), 0);
    ck_assert_int_eq(
        sh("python3 tools/seal-safetensors.py --check %s > /dev/null", path),
        0);
    struct cl_lab_data *d = NULL;
    ck_assert_msg(cl_s2s_load(&d, err, sizeof err) == 0, "%s", err);
    /* the tensors' bytes are the shipped ones */
    char real[4096], why[512];
    snprintf(real, sizeof real, "%s/model.safetensors", real_dir);
    struct cl_st a, b;
    ck_assert_int_eq(cl_st_load(real, &a, why, sizeof why), 0);
    ck_assert_int_eq(cl_st_load(path, &b, why, sizeof why), 0);
    ck_assert_int_eq(a.n, b.n);
    ck_assert_uint_eq(a.size - a.data, b.size - b.data);
    ck_assert_int_eq(memcmp(a.file + a.data, b.file + b.data, a.size - a.data),
                     0);
    ck_assert_uint_eq(b.data % 8, 0); /* the data stays 8-byte aligned */
    cl_st_free(&a);
    cl_st_free(&b);
    /* a damaged byte: --check names the tensor, exit 1 */
    set_element("decoder.fc_out.bias", 3, 2.5f, 0);
    ck_assert_int_eq(
        sh("python3 tools/seal-safetensors.py --check %s | grep -q "
           "\"tensor .decoder.fc_out.bias.: its bytes do not "
           "match\"",
           path),
        0);
    /* a vocabulary changed beside it: --check names the file, exit 1 */
    replace_in("tgt.vocab", "zwanzig", "zwanzik");
    ck_assert_int_eq(
        sh("python3 tools/seal-safetensors.py --check %s | grep -q "
           "\"file .tgt.vocab.: its bytes do not match\"",
           path),
        0);
    /* not a safetensors file: exit 2 */
    ck_assert_int_eq(sh("python3 tools/seal-safetensors.py --check "
                        "%s/src.vocab 2> /dev/null",
                        tmp_dir),
                     2);
}
END_TEST

/* tmp_dir's model sealed again with its vocabularies as they are now (a
 * course that trained with them): what is left to refuse is their shape */
static void reseal_vocabularies(void)
{
    ck_assert_int_eq(sh("python3 tools/seal-safetensors.py --with src.vocab "
                        "--with tgt.vocab %s/model.safetensors > /dev/null",
                        tmp_dir),
                     0);
}

/* vocabularies and sentences that do not fit the model */
START_TEST(test_lab6_data_text)
{
    copy_all();
    /* one word of the target vocabulary changed (its length kept), and
     * one removed: not the vocabulary the model holds the digest of */
    replace_in("tgt.vocab", "zwanzig", "zwanzik");
    load_refused("tgt.vocab", "not the vocabulary the model was trained with");
    copy_data("tgt.vocab", 0);
    char path[128];
    snprintf(path, sizeof path, "%s/tgt.vocab", tmp_dir);
    ck_assert_int_eq(sh("head -n -1 %s/tgt.vocab > %s", real_dir, path), 0);
    load_refused("tgt.vocab", "not the vocabulary the model was trained with");
    /* the same, sealed into the model: a vocabulary one word short */
    if (sh("command -v python3 > /dev/null") == 0) {
        reseal_vocabularies();
        load_refused(NULL, "do not match the model");
        ck_assert_ptr_nonnull(strstr(err, "34 words"));
        copy_data("tgt.vocab", 0);
        /* the special tokens out of place */
        replace_in("src.vocab", "<pad>", "<bad>");
        reseal_vocabularies();
        load_refused("src.vocab", "must start with <pad>, <sos> and <eos>");
        copy_data("src.vocab", 0);
    } else {
        printf("skip: no python3 to seal a changed vocabulary\n");
    }
    copy_data("model.safetensors", 0);
    copy_data("tgt.vocab", 0);
    /* a model that does not name its vocabularies' digests */
    replace_in("model.safetensors", "\"file-sha256:tgt.vocab\"",
               "\"file-sha256:tgt.vocaX\"");
    load_refused("model.safetensors", "has no SHA-256 of tgt.vocab");
    copy_data("model.safetensors", 0);
    /* a test sentence with an unknown word, and one too long */
    append_to("test.tsv", "eleventy one\tx\n");
    load_refused("test.tsv", "line 1001 ('eleventy one') has an unknown word");
    copy_data("test.tsv", 0);
    append_to("test.tsv", "one one one one one one one\tx\n");
    load_refused("test.tsv", "more than 6");
    copy_data("test.tsv", 0);
    append_to("test.tsv", "no tab here\n");
    load_refused("test.tsv", "line 1001 has no tab");
    /* an empty test set */
    snprintf(path, sizeof path, "%s/test.tsv", tmp_dir);
    FILE *f = fopen(path, "wb");
    fclose(f);
    load_refused("test.tsv", "empty");
}
END_TEST

/* the grader refuses damaged data with exit 7 before it needs a GPU, and
 * says which file */
START_TEST(test_lab6_data_grader_exit)
{
    char out[128];
    snprintf(out, sizeof out, "%s.out", tmp_dir);
    ck_assert_int_eq(sh("CUDA_LABS_DATA=%s %s 06 --lib %s --no-color >%s 2>&1",
                        tmp_dir, GRADE, STUDENT_06, out),
                     CL_EXIT_DATA);
    char *text = cl_read_file(out, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "model.safetensors: cannot read the file") !=
                      NULL,
                  "%s", text);
    free(text);
    copy_all();
    /* the tensor and its digest renamed: a tensor the model has not */
    replace_in("model.safetensors", "fc_out.bias", "fc_out.bia5");
    replace_in("model.safetensors", "fc_out.bias", "fc_out.bia5");
    ck_assert_int_eq(sh("CUDA_LABS_DATA=%s %s 06 --lib %s --no-color >%s 2>&1",
                        tmp_dir, GRADE, STUDENT_06, out),
                     CL_EXIT_DATA);
    text = cl_read_file(out, NULL);
    ck_assert_msg(strstr(text, "unexpected tensor") != NULL, "%s", text);
    free(text);
    unlink(out);
}
END_TEST

// ---- the labs ---------------------------------------------------------------

/* what plan() says of a case is usable: buffers named, an output, a
 * tolerance, work for the timed cases, a ceiling's bytes where the lab
 * measures one */
static void check_plan(const struct cl_lab *lab, const struct cl_case *c,
                       const struct cl_lab_data *data)
{
    static struct cl_plan p;
    unsigned char arg[256];
    ck_assert_uint_le(lab->arg_size, sizeof arg);
    memcpy(arg, c->arg, lab->arg_size);
    if (lab->bind_data)
        lab->bind_data(data, arg);
    memset(&p, 0, sizeof p);
    ck_assert_msg(lab->plan(arg, &p) == 0, "lab %s case %s: plan failed",
                  lab->id, c->name);
    ck_assert_msg(p.nbuf >= 1 && p.nbuf <= CL_MAX_BUFS, "lab %s case %s: %d",
                  lab->id, c->name, p.nbuf);
    int outputs = 0;
    for (int b = 0; b < p.nbuf; b++) {
        ck_assert_msg(p.buf[b].name && p.buf[b].name[0], "lab %s case %s",
                      lab->id, c->name);
        outputs += p.buf[b].role == CL_OUT || p.buf[b].role == CL_STATE;
    }
    ck_assert_msg(outputs > 0, "lab %s case %s: no output", lab->id, c->name);
    ck_assert_msg(p.tol.atol >= 0 && p.tol.rtol >= 0 &&
                      p.tol.atol + p.tol.rtol > 0,
                  "lab %s case %s: tolerance", lab->id, c->name);
    if (c->kind == CL_CASE_SPEED || c->kind == CL_CASE_BENCH) {
        ck_assert_msg(p.work > 0, "lab %s case %s: no work", lab->id, c->name);
        if (lab->ceiling)
            ck_assert_msg(p.ceil_bytes > 0, "lab %s case %s: no ceiling",
                          lab->id, c->name);
    }
}

/* every lab's spec is whole: ids in order, unique case names, correctness,
 * speed and sweep cases, a quick case, a profile case that is a speed
 * case, the functions it needs, glue that agrees, its skeleton there, and
 * a plan() that works for every case */
START_TEST(test_lab_specs_consistent)
{
    struct cl_lab_data *data = NULL;
    int nlabs = 0;
    unsetenv("CUDA_LABS_DATA");
    for (const struct cl_lab *const *l = cl_labs; *l; l++, nlabs++) {
        const struct cl_lab *lab = *l;
        char id[16];
        snprintf(id, sizeof id, "%02d", nlabs + 1);
        ck_assert_str_eq(lab->id, id);
        ck_assert_msg(lab->slug && lab->slug[0] && lab->title && lab->title[0],
                      "lab %s", id);
        ck_assert_msg(access(lab->source, R_OK) == 0, "lab %s: %s", id,
                      lab->source);
        char todo[32];
        snprintf(todo, sizeof todo, "TODO(lab%d)", nlabs + 1);
        ck_assert_str_eq(lab->todo, todo);
        ck_assert_ptr_nonnull(lab->caps);
        ck_assert_int_eq(lab->caps->any_import, 0);
        ck_assert_ptr_nonnull(lab->baseline);
        ck_assert_ptr_nonnull(lab->base);
        ck_assert_ptr_nonnull(lab->plan);
        ck_assert_ptr_nonnull(lab->check);
        ck_assert_int_eq(lab->needs_gpu, 1);
        ck_assert_int_le(lab->ncases, CL_MAX_CASES);
        ck_assert_int_eq(lab->bind_data != NULL, lab->load_data != NULL);
        const char *const *entries = cl_lab_entries(lab->id);
        ck_assert_msg(entries != NULL, "lab %s: no entry points", id);
        ck_assert_ptr_nonnull(entries[0]);
        ck_assert_uint_eq(cl_lab_arg_size(lab->id), lab->arg_size);
        ck_assert_int_eq(cl_lab_on_cpu(lab->id), 0);
        if (lab->load_data) {
            ck_assert_msg(lab->load_data(&data, err, sizeof err) == 0,
                          "lab %s: %s", id, err);
            ck_assert_ptr_nonnull(data);
        }
        int kinds[4] = {0, 0, 0, 0}, quick = 0, profile = 0;
        for (int i = 0; i < lab->ncases; i++) {
            const struct cl_case *c = &lab->cases[i];
            ck_assert_int_le((int)c->kind, CL_CASE_DEMO);
            kinds[c->kind]++;
            quick += c->quick && c->kind == CL_CASE_CORRECT;
            if (strcmp(c->name, lab->profile_case) == 0)
                profile = c->kind == CL_CASE_SPEED;
            ck_assert_ptr_nonnull(c->arg);
            for (int j = 0; j < i; j++)
                ck_assert_msg(strcmp(c->name, lab->cases[j].name) != 0,
                              "lab %s: case %s twice", id, c->name);
            check_plan(lab, c, data);
        }
        ck_assert_msg(kinds[CL_CASE_CORRECT] > 0, "lab %s", id);
        ck_assert_msg(kinds[CL_CASE_SPEED] > 0, "lab %s", id);
        ck_assert_msg(kinds[CL_CASE_BENCH] > 0, "lab %s: no sweep", id);
        ck_assert_msg(quick > 0, "lab %s: no quick case", id);
        ck_assert_msg(profile, "lab %s: profile case %s is not a speed case",
                      id, lab->profile_case);
        ck_assert_double_eq(cl_policy_lab_max(cl_policy_default(), lab), 100.0);
    }
    ck_assert_int_eq(nlabs, 6);
    /* only Lab 6 has a demo */
    const struct cl_lab *l6 = cl_lab_find("06", NULL);
    int demos = 0;
    for (int i = 0; i < l6->ncases; i++)
        demos += l6->cases[i].kind == CL_CASE_DEMO;
    ck_assert_int_eq(demos, 1);
}
END_TEST

/* the self-test lab: on the CPU, hidden from the list, imports unchecked */
START_TEST(test_selftest_lab)
{
    const struct cl_lab *self = cl_lab_find("00", NULL);
    ck_assert_ptr_nonnull(self);
    ck_assert_str_eq(self->slug, "selftest");
    ck_assert_int_eq(self->needs_gpu, 0);
    ck_assert_int_eq(self->caps->any_import, 1);
    ck_assert_int_eq(cl_lab_on_cpu("00"), 1);
    for (const struct cl_lab *const *l = cl_labs; *l; l++)
        ck_assert_ptr_ne(*l, self);
    for (int i = 0; i < self->ncases; i++)
        check_plan(self, &self->cases[i], NULL);
    ck_assert_ptr_null(cl_lab_entries("07"));
    ck_assert_uint_eq(cl_lab_arg_size("07"), 0);
}
END_TEST

/* a lab by its id, its number, its slug or both; nothing else */
START_TEST(test_lab_lookup)
{
    const struct cl_lab *l1 = cl_lab_find("01", NULL);
    ck_assert_ptr_nonnull(l1);
    ck_assert_ptr_eq(l1, cl_labs[0]);
    ck_assert_str_eq(l1->slug, "vector-add");
    ck_assert_ptr_eq(cl_lab_find("1", NULL), l1);
    ck_assert_ptr_eq(cl_lab_find("vector-add", NULL), l1);
    ck_assert_ptr_eq(cl_lab_find("01-vector-add", NULL), l1);
    for (int i = 0; cl_labs[i]; i++) {
        const struct cl_lab *lab = cl_labs[i];
        char num[16], full[128];
        snprintf(num, sizeof num, "%d", i + 1);
        snprintf(full, sizeof full, "%s-%s", lab->id, lab->slug);
        ck_assert_ptr_eq(cl_lab_find(lab->id, NULL), lab);
        ck_assert_ptr_eq(cl_lab_find(num, NULL), lab);
        ck_assert_ptr_eq(cl_lab_find(lab->slug, NULL), lab);
        ck_assert_ptr_eq(cl_lab_find(full, NULL), lab);
    }
    ck_assert_ptr_eq(cl_lab_find("stencil", NULL), cl_labs[1]);
    ck_assert_ptr_eq(cl_lab_find("6", NULL), cl_labs[5]);
    ck_assert_ptr_null(cl_lab_find("vector", NULL));
    ck_assert_ptr_null(cl_lab_find("Vector-Add", NULL));
    ck_assert_ptr_null(cl_lab_find("01-stencil", NULL));
    ck_assert_ptr_null(cl_lab_find("1x", NULL));
    ck_assert_ptr_null(cl_lab_find("", NULL));
    ck_assert_ptr_null(cl_lab_find("7", NULL));
    ck_assert_ptr_null(cl_lab_find("99", NULL));
    /* the hidden self-test lab */
    ck_assert_ptr_nonnull(cl_lab_find("00", NULL));
    ck_assert_ptr_eq(cl_lab_find("selftest", NULL), cl_lab_find("0", NULL));
    /* a test's own labs come first, and may shadow the grader's */
    static const struct cl_lab mine = {.id = "93", .slug = "mine"};
    static const struct cl_lab shadow = {.id = "01", .slug = "shadow"};
    const struct cl_lab *extra[] = {&mine, &shadow, NULL};
    ck_assert_ptr_eq(cl_lab_find("93", extra), &mine);
    ck_assert_ptr_eq(cl_lab_find("mine", extra), &mine);
    ck_assert_ptr_eq(cl_lab_find("1", extra), &shadow);
    ck_assert_ptr_eq(cl_lab_find("vector-add", extra), l1);
    ck_assert_ptr_null(cl_lab_find("93", NULL));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("refs");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_reference_vector_add);
    tcase_add_test(core, test_reference_stencil);
    tcase_add_test(core, test_reference_causal_conv1d);
    tcase_add_test(core, test_reference_matmul);
    tcase_add_test(core, test_reference_adamw);
    tcase_add_test(core, test_gpt2_sizes);
    tcase_add_test(core, test_adamw_layout);
    tcase_add_test(core, test_reference_gru_cell);
    tcase_add_test(core, test_reference_gru_forward);
    tcase_add_test(core, test_reference_seq2seq);
    tcase_add_test(core, test_greedy_comparison);
    tcase_add_test(core, test_check_rows);
    tcase_add_test(core, test_s2s_arena);
    tcase_add_test(core, test_lab_lookup);
    suite_add_tcase(s, core);

    TCase *data = tcase_create("data");
    tcase_set_timeout(data, 60);
    tcase_add_checked_fixture(data, data_setup, data_teardown);
    tcase_add_test(data, test_lab6_data_loads);
    tcase_add_test(data, test_lab6_reference_translates);
    tcase_add_test(data, test_lab6_data_missing);
    tcase_add_test(data, test_lab6_data_truncated);
    tcase_add_test(data, test_lab6_data_corrupt);
    tcase_add_test(data, test_lab6_data_digests);
    tcase_add_test(data, test_lab6_seal_script);
    tcase_add_test(data, test_lab6_data_text);
    tcase_add_test(data, test_lab6_data_grader_exit);
    tcase_add_test(data, test_lab_specs_consistent);
    suite_add_tcase(s, data);

    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_reference_seq2seq_ties);
    tcase_add_test(limits, test_selftest_lab);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
