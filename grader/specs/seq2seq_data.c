/* seq2seq_data.c: Lab 6's trained model and test set (safetensors). */
#define _GNU_SOURCE
#include "specs/seq2seq_data.h"

#include "fatal.h"
#include "fileio.h"
#include "protocol/glue.h"
#include "safetensors.h"
#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CL_ROOT
#define CL_ROOT "." /* the build passes the source tree's absolute path */
#endif
#define DATA_SUBDIR "labs/06-seq2seq/data"
/* the model's metadata key of a file sealed with it (the vocabularies:
 * tools/seal-safetensors.py --with NAME, tools/train-seq2seq.py) */
#define FILE_DIGEST "file-sha256:"

const char *cl_s2s_data_dir(char *buf, size_t len)
{
    const char *env = getenv("CUDA_LABS_DATA");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return buf;
    }
    snprintf(buf, len, "%s/%s", CL_ROOT, DATA_SUBDIR);
    if (access(buf, R_OK) == 0)
        return buf;
    /* a tree moved since it was built: beside build/bin/grade */
    char exe[4096];
    if (cl_self_dir(exe, sizeof exe))
        snprintf(buf, len, "%s/../../%s", exe, DATA_SUBDIR);
    return buf;
}

static const char *path_of(const char *file, char *buf, size_t len)
{
    char dir[3072];
    snprintf(buf, len, "%s/%s", cl_s2s_data_dir(dir, sizeof dir), file);
    return buf;
}

static int read_model(struct cl_lab_data *d, char *err, size_t len)
{
    struct cl_st st;
    char why[512], path[4096];
    path_of("model.safetensors", path, sizeof path);
    if (cl_st_load(path, &st, err, len) != 0)
        return -1;
    long long emb[2] = {-1, -1}, hh[2] = {-1, -1}, demb[2] = {-1, -1};
    if (!cl_st_f32(&st, "encoder.embedding.weight", 2, emb, why, sizeof why) ||
        !cl_st_f32(&st, "encoder.rnn.weight_hh_l0", 2, hh, why, sizeof why) ||
        !cl_st_f32(&st, "decoder.embedding.weight", 2, demb, why, sizeof why)) {
        snprintf(err, len, "%s: %s", path, why);
        goto bad;
    }
    int vs = (int)emb[0], E = (int)emb[1], H = (int)hh[1], vt = (int)demb[0];
    if (hh[0] != 3 * hh[1] || demb[1] != E || vs < 3 || vt < 3) {
        snprintf(err, len,
                 "%s: inconsistent sizes (encoder.rnn.weight_hh_l0 is "
                 "%lld x %lld, embeddings %d and %lld wide)",
                 path, hh[0], hh[1], E, demb[1]);
        goto bad;
    }
    struct s2s_slot sl[S2S_SLOTS];
    int n = cl_s2s_slots(vs, vt, E, H, sl);
    for (int i = 0; i < st.n; i++) {
        int known = 0;
        for (int k = 0; k < n; k++)
            known |= strcmp(st.t[i].name, sl[k].name) == 0;
        if (!known) {
            snprintf(err, len, "%s: unexpected tensor '%s'", path,
                     st.t[i].name);
            goto bad;
        }
    }
    /* every tensor sealed by its digest (cl_st_load checked them) and
     * finite: a damaged byte is named before any case runs */
    if (cl_st_require_digests(&st, why, sizeof why) != 0) {
        snprintf(err, len, "%s: %s", path, why);
        goto bad;
    }
    for (int i = 0; i < st.n; i++) {
        long long at = cl_st_f32_nonfinite(&st, &st.t[i]);
        if (at >= 0) {
            snprintf(err, len,
                     "%s: tensor '%s' is damaged: element %lld is NaN or "
                     "infinite",
                     path, st.t[i].name, at);
            goto bad;
        }
    }
    d->floats = cl_s2s_floats(vs, vt, E, H);
    d->model = cl_xmalloc(d->floats * sizeof(float));
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        long long shape[2] = {sl[i].rows, sl[i].cols};
        const void *p = cl_st_f32(&st, sl[i].name, sl[i].cols ? 2 : 1, shape,
                                  why, sizeof why);
        if (!p) {
            snprintf(err, len, "%s: %s", path, why);
            goto bad;
        }
        size_t cnt = (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
        memcpy(d->model + off, p, cnt * sizeof(float));
        off += cnt;
    }
    const char *s_len = cl_st_meta(&st, "src_len"),
               *t_len = cl_st_meta(&st, "tgt_len");
    d->S = s_len ? atoi(s_len) : 0;
    d->T = t_len ? atoi(t_len) : 0;
    if (d->S < 1 || d->T < 1 || d->S > 64 || d->T > 64) {
        snprintf(err, len,
                 "%s: __metadata__ lacks src_len and tgt_len (1 to 64)", path);
        goto bad;
    }
    /* the vocabularies belong to the model: their digests are in it */
    const char *names[2] = {"src.vocab", "tgt.vocab"};
    struct s2s_vocab *keep[2] = {&d->src, &d->tgt};
    for (int i = 0; i < 2; i++) {
        char key[64];
        snprintf(key, sizeof key, FILE_DIGEST "%s", names[i]);
        const char *hex = cl_st_meta(&st, key);
        if (!hex || strlen(hex) != CL_SHA256_HEX - 1) {
            snprintf(err, len,
                     "%s: __metadata__ has no SHA-256 of %s (key \"%s\"): "
                     "the model does not say which vocabulary it was "
                     "trained with (tools/seal-safetensors.py --with %s "
                     "adds it)",
                     path, names[i], key, names[i]);
            goto bad;
        }
        memcpy(keep[i]->sealed, hex, CL_SHA256_HEX);
    }
    d->v_src = vs;
    d->v_tgt = vt;
    d->E = E;
    d->H = H;
    cl_st_free(&st);
    return 0;
bad:
    cl_st_free(&st);
    return -1;
}

static int vocab_read(const char *file, struct s2s_vocab *v, char *err,
                      size_t len)
{
    char path[4096], hex[CL_SHA256_HEX];
    size_t bytes = 0;
    char *text = cl_read_file(path_of(file, path, sizeof path), &bytes);
    v->n = 0;
    v->w = NULL;
    if (!text) {
        snprintf(err, len, "%s: cannot read the file", path);
        return -1;
    }
    /* a word changed, added, removed or moved changes what every id
     * means: the file must be the one the model was sealed with */
    cl_sha256_hex(text, bytes, hex);
    if (strcmp(hex, v->sealed) != 0) {
        snprintf(err, len,
                 "%s: not the vocabulary the model was trained with (its "
                 "SHA-256 differs from the one model.safetensors holds): a "
                 "word was changed, added or removed; restore the course's "
                 "file",
                 path);
        free(text);
        return -1;
    }
    int cap = 0;
    for (char *p = text; *p; p++)
        cap += *p == '\n';
    v->w = cl_xcalloc((size_t)cap + 1, sizeof *v->w);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && v->n <= cap;
         line = strtok_r(NULL, "\n", &save))
        snprintf(v->w[v->n++], sizeof v->w[0], "%s", line);
    free(text);
    if (v->n < 3 || strcmp(v->w[S2S_PAD], "<pad>") ||
        strcmp(v->w[S2S_SOS], "<sos>") || strcmp(v->w[S2S_EOS], "<eos>")) {
        snprintf(err, len,
                 "%s: must start with <pad>, <sos> and <eos>, one per line",
                 path);
        return -1;
    }
    return 0;
}

static int vocab_find(const struct s2s_vocab *v, const char *w)
{
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->w[i], w) == 0)
            return i;
    return -1;
}

static int read_tests(struct cl_lab_data *d, char *err, size_t len)
{
    char path[4096];
    char *text = cl_read_file(path_of("test.tsv", path, sizeof path), NULL);
    if (!text) {
        snprintf(err, len, "%s: cannot read the file", path);
        return -1;
    }
    int cap = 1;
    for (char *p = text; *p; p++)
        cap += *p == '\n';
    d->line = cl_xcalloc((size_t)cap, sizeof *d->line);
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char *tab = strchr(l, '\t');
        if (!tab) {
            snprintf(err, len, "%s: line %d has no tab", path, d->n + 1);
            free(text);
            return -1;
        }
        *tab = '\0';
        snprintf(d->line[d->n][0], 160, "%s", l);
        snprintf(d->line[d->n][1], 160, "%s", tab + 1);
        d->n++;
    }
    free(text);
    if (d->n == 0) {
        snprintf(err, len, "%s: empty", path);
        return -1;
    }
    return 0;
}

/* sentence b's source as S ids, left-padded, into ids[s * n + b] */
static int encode(struct cl_lab_data *d, int b)
{
    char buf[160], *save = NULL;
    int w[64], k = 0;
    snprintf(buf, sizeof buf, "%s", d->line[b][0]);
    for (char *t = strtok_r(buf, " ", &save); t;
         t = strtok_r(NULL, " ", &save)) {
        if (k == d->S || (w[k] = vocab_find(&d->src, t)) < 0)
            return -1;
        k++;
    }
    for (int s = 0; s < d->S; s++)
        d->ids[(size_t)s * d->n + b] =
            s < d->S - k ? S2S_PAD : w[s - (d->S - k)];
    return 0;
}

static void data_free(struct cl_lab_data *d)
{
    free(d->model);
    free(d->src.w);
    free(d->tgt.w);
    free(d->line);
    free(d->ids);
    free(d);
}

int cl_s2s_load(struct cl_lab_data **out, char *err, size_t len)
{
    static struct cl_lab_data *cached;
    char dir[3072], p[4096];
    *out = NULL;
    struct cl_lab_data *d = cl_xcalloc(1, sizeof *d);
    if (read_model(d, err, len) || vocab_read("src.vocab", &d->src, err, len) ||
        vocab_read("tgt.vocab", &d->tgt, err, len) || read_tests(d, err, len)) {
        data_free(d);
        return -1;
    }
    if (d->src.n != d->v_src || d->tgt.n != d->v_tgt) {
        snprintf(err, len,
                 "%s: the vocabularies (%d and %d words) do not match the "
                 "model (%d and %d)",
                 cl_s2s_data_dir(dir, sizeof dir), d->src.n, d->tgt.n, d->v_src,
                 d->v_tgt);
        data_free(d);
        return -1;
    }
    d->ids = cl_xcalloc((size_t)d->S * d->n, sizeof *d->ids);
    for (int b = 0; b < d->n; b++)
        if (encode(d, b)) {
            snprintf(err, len,
                     "%s: line %d ('%s') has an unknown word or more than %d",
                     path_of("test.tsv", p, sizeof p), b + 1, d->line[b][0],
                     d->S);
            data_free(d);
            return -1;
        }
    if (cached)
        data_free(cached); /* a second grade in one process (the tests) */
    cached = *out = d;
    return 0;
}

void cl_s2s_words(const struct s2s_vocab *v, const int *tok, int T, int stride,
                  char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int t = 0; t < T && at < len; t++) {
        int k = tok[(size_t)t * stride];
        if (k == S2S_EOS)
            break;
        int w = snprintf(buf + at, len - at, "%s%s", at ? " " : "",
                         k >= 0 && k < v->n ? v->w[k] : "<?>");
        if (w < 0)
            break;
        at += (size_t)w;
    }
}
