/* test_lab6_data.c: Lab 6's data, loaded and checked before anything
 * runs: the shipped files load as they are, and the CPU reference
 * translates with them; a missing, cut or damaged file is refused by name
 * (by the loader, and by the grader with exit 7); tools/seal-safetensors.py
 * seals the model. Each test damages a copy in a directory of its own. */
#define _GNU_SOURCE
#include "fileio.h"
#include "protocol/glue.h"
#include "parent/grade.h"
#include "specs/refs.h"
#include "safetensors.h"
#include "06-seq2seq/seq2seq.h"
#include "specs/seq2seq_data.h"
#include "sha256.h"

#include "tests/shell.h"
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

/* @p file in tmp_dir cut to 0 bytes */
static void empty_file(const char *file)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, file);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
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
START_TEST(test_lab6_shipped_data_loads_as_in_the_files)
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
START_TEST(test_lab6_ref_translates_every_sampled_sentence)
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
START_TEST(test_lab6_missing_file_is_refused_by_name)
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
START_TEST(test_lab6_truncated_model_is_refused_at_any_length)
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
    empty_file("model.safetensors");
    load_refused("model.safetensors", "0 bytes");
}
END_TEST

/* damaged bytes: a garbage length, a broken header, a renamed tensor, a
 * shape that does not match its bytes, another dtype, overlapping data */
START_TEST(test_lab6_damaged_model_header_is_refused)
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
START_TEST(test_lab6_digests_catch_damaged_or_nonfinite_tensors)
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
START_TEST(test_lab6_seal_script_seals_and_keeps_tensor_bytes)
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
START_TEST(test_lab6_vocab_and_sentences_must_fit_the_model)
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
    empty_file("test.tsv");
    load_refused("test.tsv", "empty");
}
END_TEST

/* the grader refuses damaged data with exit 7 before it needs a GPU, and
 * says which file */
START_TEST(test_lab6_grader_exits_7_naming_the_bad_file)
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

int main(void)
{
    Suite *s = suite_create("lab6_data");
    TCase *data = tcase_create("data");
    tcase_set_timeout(data, 60);
    tcase_add_checked_fixture(data, data_setup, data_teardown);
    tcase_add_test(data, test_lab6_shipped_data_loads_as_in_the_files);
    tcase_add_test(data, test_lab6_ref_translates_every_sampled_sentence);
    tcase_add_test(data, test_lab6_missing_file_is_refused_by_name);
    tcase_add_test(data, test_lab6_truncated_model_is_refused_at_any_length);
    tcase_add_test(data, test_lab6_damaged_model_header_is_refused);
    tcase_add_test(data, test_lab6_digests_catch_damaged_or_nonfinite_tensors);
    tcase_add_test(data, test_lab6_seal_script_seals_and_keeps_tensor_bytes);
    tcase_add_test(data, test_lab6_vocab_and_sentences_must_fit_the_model);
    tcase_add_test(data, test_lab6_grader_exits_7_naming_the_bad_file);
    suite_add_tcase(s, data);
    return cl_suite_run(s, 0, NULL);
}
