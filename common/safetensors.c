/* safetensors.c: a checked reader of the safetensors format. */
#include "safetensors.h"

#include "fatal.h"
#include "fileio.h"
#include "sha256.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEADER (100u << 20) /* the format's own limit is 100 MB */

static int dtype_size(const char *d)
{
    static const struct {
        const char *name;
        int size;
    } types[] = {{"F64", 8},  {"F32", 4},     {"F16", 2},    {"BF16", 2},
                 {"I64", 8},  {"I32", 4},     {"I16", 2},    {"I8", 1},
                 {"U64", 8},  {"U32", 4},     {"U16", 2},    {"U8", 1},
                 {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(d, types[i].name) == 0)
            return types[i].size;
    return 0;
}

/* a copy of @p s (malloc'd; exits when out of memory) */
static char *copy_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = cl_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

/* a JSON number that is a whole number in [0, 2^53] */
static int whole(const cJSON *v, long long *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
        v->valuedouble > 9007199254740992.0 ||
        v->valuedouble != (double)(long long)v->valuedouble)
        return 0;
    *out = (long long)v->valuedouble;
    return 1;
}

static int by_offset(const void *a, const void *b)
{
    const struct cl_st_tensor *x = *(struct cl_st_tensor *const *)a;
    const struct cl_st_tensor *y = *(struct cl_st_tensor *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* one entry of the header into t; 0, or -1 with the reason */
static int parse_tensor(const cJSON *e, size_t data_len, struct cl_st_tensor *t,
                        char *why, size_t len)
{
    if (strlen(e->string) >= CL_ST_MAX_NAME) {
        snprintf(why, len, "a tensor name longer than %d bytes",
                 CL_ST_MAX_NAME - 1);
        return -1;
    }
    snprintf(t->name, sizeof t->name, "%s", e->string);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsObject(e) || !cJSON_IsString(dt) || !cJSON_IsArray(sh) ||
        !cJSON_IsArray(of)) {
        snprintf(why, len,
                 "tensor '%s': needs \"dtype\", \"shape\" and "
                 "\"data_offsets\"",
                 t->name);
        return -1;
    }
    int size = dtype_size(dt->valuestring);
    if (!size) {
        snprintf(why, len, "tensor '%s': unknown dtype '%.16s'", t->name,
                 dt->valuestring);
        return -1;
    }
    snprintf(t->dtype, sizeof t->dtype, "%s", dt->valuestring);
    t->ndim = cJSON_GetArraySize(sh);
    if (t->ndim > CL_ST_MAX_DIMS) {
        snprintf(why, len, "tensor '%s': %d dimensions, at most %d", t->name,
                 t->ndim, CL_ST_MAX_DIMS);
        return -1;
    }
    double elems = 1;
    for (int i = 0; i < t->ndim; i++) {
        if (!whole(cJSON_GetArrayItem(sh, i), &t->shape[i])) {
            snprintf(why, len, "tensor '%s': dimension %d is not a size",
                     t->name, i);
            return -1;
        }
        elems *= (double)t->shape[i];
    }
    long long b = 0, e_ = 0;
    if (cJSON_GetArraySize(of) != 2 || !whole(cJSON_GetArrayItem(of, 0), &b) ||
        !whole(cJSON_GetArrayItem(of, 1), &e_) || b > e_) {
        snprintf(why, len, "tensor '%s': data_offsets must be [begin, end]",
                 t->name);
        return -1;
    }
    if ((size_t)e_ > data_len) {
        snprintf(why, len,
                 "tensor '%s': ends at byte %lld of the data, which has "
                 "only %zu (truncated file?)",
                 t->name, e_, data_len);
        return -1;
    }
    if (elems * size != (double)(e_ - b)) {
        snprintf(why, len,
                 "tensor '%s': shape and dtype give %.0f bytes, the offsets "
                 "%lld",
                 t->name, elems * size, e_ - b);
        return -1;
    }
    t->offset = (size_t)b;
    t->bytes = (size_t)(e_ - b);
    return 0;
}

static int parse_header(struct cl_st *st, const char *text, size_t n, char *why,
                        size_t len)
{
    cJSON *root = cJSON_ParseWithLength(text, n);
    if (!root || !cJSON_IsObject(root)) {
        snprintf(why, len, "the header is not a JSON object");
        cJSON_Delete(root);
        return -1;
    }
    int count = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, root)
    {
        if (strcmp(e->string, "__metadata__") != 0)
            count++;
    }
    st->t = cl_xcalloc((size_t)(count ? count : 1), sizeof *st->t);
    size_t data_len = st->size - st->data;
    int rc = 0;
    cJSON_ArrayForEach(e, root)
    {
        if (strcmp(e->string, "__metadata__") == 0) {
            const cJSON *kv;
            int n = cJSON_GetArraySize(e);
            free(st->meta);
            st->meta = cl_xcalloc((size_t)(n ? n : 1), sizeof *st->meta);
            st->nmeta = 0;
            cJSON_ArrayForEach(kv, e)
            {
                if (!cJSON_IsString(kv))
                    continue;
                st->meta[st->nmeta].key = copy_str(kv->string);
                st->meta[st->nmeta].value = copy_str(kv->valuestring);
                st->nmeta++;
            }
            continue;
        }
        if ((rc = parse_tensor(e, data_len, &st->t[st->n], why, len)))
            break;
        for (int i = 0; i < st->n && !rc; i++)
            if (strcmp(st->t[i].name, st->t[st->n].name) == 0) {
                snprintf(why, len, "tensor '%s' appears twice", st->t[i].name);
                rc = -1;
            }
        st->n++;
    }
    cJSON_Delete(root);
    if (rc)
        return rc;
    /* no two tensors may share bytes */
    struct cl_st_tensor **order =
        cl_xcalloc((size_t)(count ? count : 1), sizeof *order);
    for (int i = 0; i < st->n; i++)
        order[i] = &st->t[i];
    qsort(order, (size_t)st->n, sizeof *order, by_offset);
    for (int i = 1; i < st->n && !rc; i++)
        if (order[i]->offset < order[i - 1]->offset + order[i - 1]->bytes &&
            order[i]->bytes) {
            snprintf(why, len, "tensors '%s' and '%s' overlap",
                     order[i - 1]->name, order[i]->name);
            rc = -1;
        }
    free(order);
    return rc;
}

/* every "sha256:NAME" of the metadata: NAME a tensor of the file, the
 * value 64 lowercase hex digits, and the SHA-256 of NAME's bytes */
static int check_digests(struct cl_st *st, char *why, size_t len)
{
    size_t plen = strlen(CL_ST_DIGEST);
    for (int i = 0; i < st->nmeta; i++) {
        const char *key = st->meta[i].key, *want = st->meta[i].value;
        if (strncmp(key, CL_ST_DIGEST, plen) != 0)
            continue;
        struct cl_st_tensor *t = NULL;
        for (int k = 0; k < st->n && !t; k++)
            if (strcmp(st->t[k].name, key + plen) == 0)
                t = &st->t[k];
        if (!t) {
            snprintf(why, len,
                     "__metadata__ has a digest of '%.*s', which is no tensor "
                     "of the file",
                     CL_ST_MAX_NAME, key + plen);
            return -1;
        }
        int hex = strlen(want) == 64;
        for (const char *c = want; hex && *c; c++)
            hex = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f');
        if (!hex) {
            snprintf(why, len,
                     "tensor '%s': its digest in __metadata__ is not 64 "
                     "lowercase hex digits",
                     t->name);
            return -1;
        }
        char got[CL_SHA256_HEX];
        cl_sha256_hex(st->file + st->data + t->offset, t->bytes, got);
        if (strcmp(got, want) != 0) {
            snprintf(why, len,
                     "tensor '%s' is damaged: its bytes do not match the "
                     "SHA-256 the file stores for them",
                     t->name);
            return -1;
        }
        t->digest = 1;
    }
    return 0;
}

int cl_st_load(const char *path, struct cl_st *st, char *err, size_t len)
{
    char why[400];
    memset(st, 0, sizeof *st);
    st->file = (unsigned char *)cl_read_file(path, &st->size);
    if (!st->file) {
        snprintf(err, len, "%s: cannot read the file", path);
        return -1;
    }
    uint64_t n = 0;
    if (st->size < 8) {
        snprintf(why, sizeof why,
                 "%zu bytes, shorter than the 8-byte "
                 "header length",
                 st->size);
        goto bad;
    }
    for (int i = 7; i >= 0; i--)
        n = n << 8 | st->file[i];
    if (n < 2 || n > MAX_HEADER || n > st->size - 8) {
        snprintf(why, sizeof why,
                 "header length %llu does not fit a %zu-byte file "
                 "(truncated or not safetensors?)",
                 (unsigned long long)n, st->size);
        goto bad;
    }
    st->data = 8 + (size_t)n;
    if (parse_header(st, (const char *)st->file + 8, (size_t)n, why,
                     sizeof why) ||
        check_digests(st, why, sizeof why))
        goto bad;
    return 0;
bad:
    snprintf(err, len, "%s: %s", path, why);
    cl_st_free(st);
    return -1;
}

int cl_st_require_digests(const struct cl_st *st, char *err, size_t len)
{
    for (int i = 0; i < st->n; i++)
        if (!st->t[i].digest) {
            snprintf(err, len,
                     "tensor '%s' has no SHA-256 digest (__metadata__ key "
                     "\"" CL_ST_DIGEST "%s\"): an unchecked model is not "
                     "trusted (tools/seal-safetensors.py adds them)",
                     st->t[i].name, st->t[i].name);
            return -1;
        }
    return 0;
}

long long cl_st_f32_nonfinite(const struct cl_st *st,
                              const struct cl_st_tensor *t)
{
    if (strcmp(t->dtype, "F32") != 0)
        return -1;
    const unsigned char *p = st->file + st->data + t->offset;
    for (size_t i = 0; i < t->bytes / 4; i++) {
        float v;
        memcpy(&v, p + 4 * i, sizeof v); /* the data need not be aligned */
        if (!isfinite(v))
            return (long long)i;
    }
    return -1;
}

const char *cl_st_meta(const struct cl_st *st, const char *key)
{
    for (int i = 0; i < st->nmeta; i++)
        if (strcmp(st->meta[i].key, key) == 0)
            return st->meta[i].value;
    return NULL;
}

const struct cl_st_tensor *cl_st_find(const struct cl_st *st, const char *name)
{
    for (int i = 0; i < st->n; i++)
        if (strcmp(st->t[i].name, name) == 0)
            return &st->t[i];
    return NULL;
}

const void *cl_st_f32(const struct cl_st *st, const char *name, int ndim,
                      long long *shape, char *err, size_t len)
{
    const struct cl_st_tensor *t = cl_st_find(st, name);
    if (!t) {
        snprintf(err, len, "tensor '%s' is missing", name);
        return NULL;
    }
    if (strcmp(t->dtype, "F32") != 0) {
        snprintf(err, len, "tensor '%s' is %s, expected F32", name, t->dtype);
        return NULL;
    }
    int ok = t->ndim == ndim;
    for (int i = 0; ok && i < ndim; i++)
        ok = shape[i] < 0 || shape[i] == t->shape[i];
    if (!ok) {
        char got[128] = "", want[128] = "";
        size_t a = 0, b = 0;
        for (int i = 0; i < t->ndim && a < sizeof got; i++)
            a += (size_t)snprintf(got + a, sizeof got - a, "%s%lld",
                                  i ? ", " : "", t->shape[i]);
        for (int i = 0; i < ndim && b < sizeof want; i++) {
            if (shape[i] < 0)
                b += (size_t)snprintf(want + b, sizeof want - b, "%s*",
                                      i ? ", " : "");
            else
                b += (size_t)snprintf(want + b, sizeof want - b, "%s%lld",
                                      i ? ", " : "", shape[i]);
        }
        snprintf(err, len, "tensor '%s' has shape (%s), expected (%s)", name,
                 got, want);
        return NULL;
    }
    for (int i = 0; i < ndim; i++)
        shape[i] = t->shape[i];
    return st->file + st->data + t->offset;
}

void cl_st_free(struct cl_st *st)
{
    for (int i = 0; i < st->nmeta; i++) {
        free(st->meta[i].key);
        free(st->meta[i].value);
    }
    free(st->meta);
    free(st->file);
    free(st->t);
    memset(st, 0, sizeof *st);
}
