/* Label sets across profiles (labelset.h): a sidecar read back, and the
 * union of several profiles' labels in the order a merge concatenates
 * their samples (merge.h), each set re-interned by its content and the
 * union capped as one withLabels() table is (docs/labels.md). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "idmap.h"
#include "internal.h"
#include "labelset.h"
#include "parse_value.h"
#include "reader.h"

#define NONE UINT32_MAX
/* A power of two above twice the most sets a union holds (none, the cap,
 * the overflow set): the table stays under half full. */
#define SLOTS 4096u

static const char *const OVERFLOW_KV[] = {"cprof_overflow", "true"};

/* ---- the union ---- */

typedef struct {
  cprof_labels_t *l;
  uint32_t *slots;  /* a merged set's id + 1 by its content's hash; 0: empty */
  uint32_t regular; /* merged sets besides none and the overflow set */
} uni_t;

static int is_overflow(const cprof_label_set_t *s) {
  return s->n == 1 && strcmp(s->kv[0], OVERFLOW_KV[0]) == 0 &&
         strcmp(s->kv[1], OVERFLOW_KV[1]) == 0;
}

/* The pairs of s by key, then value (a set's order does not count). */
static void sort_pairs(const cprof_label_set_t *s, uint32_t *ord) {
  for (uint32_t i = 0; i < s->n; i++) {
    uint32_t j = i, v = i;
    while (j > 0) {
      char *const *a = &s->kv[2 * ord[j - 1]], *const *b = &s->kv[2 * v];
      int c = strcmp(a[0], b[0]);
      if (c < 0 || (c == 0 && strcmp(a[1], b[1]) <= 0)) break;
      ord[j] = ord[j - 1];
      j--;
    }
    ord[j] = v;
  }
}

static uint32_t set_hash(const cprof_label_set_t *s, const uint32_t *ord) {
  uint64_t h = CPROF__HASH_SEED;
  for (uint32_t i = 0; i < s->n; i++)
    h = cprof__hash_str(cprof__hash_str(h, s->kv[2 * ord[i]]), s->kv[2 * ord[i] + 1]);
  return (uint32_t)(h ^ (h >> 32));
}

/* s (in ord's order) equals the merged set m (kept sorted). */
static int set_eq(const cprof_label_set_t *s, const uint32_t *ord, const cprof_label_set_t *m) {
  if (s->n != m->n) return 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (strcmp(s->kv[2 * ord[i]], m->kv[2 * i]) != 0 ||
        strcmp(s->kv[2 * ord[i] + 1], m->kv[2 * i + 1]) != 0)
      return 0;
  return 1;
}

/* The merged id of set s: found by content, or added (sorted); past the
 * cap, a new set other than the overflow set is the overflow set. */
static int intern(uni_t *u, const cprof_label_set_t *s, uint32_t *id) {
  uint32_t ord[CPROF_LABEL_PAIRS_MAX];
  const char *kv[2 * CPROF_LABEL_PAIRS_MAX];
  if (s->n == 0) {
    *id = 0;
    return CPROF_OK;
  }
  if (s->n > CPROF_LABEL_PAIRS_MAX) return CPROF_EINVAL;
  sort_pairs(s, ord);
  uint32_t j = set_hash(s, ord) & (SLOTS - 1);
  for (; u->slots[j] != 0; j = (j + 1) & (SLOTS - 1)) {
    if (set_eq(s, ord, &u->l->sets[u->slots[j] - 1])) {
      *id = u->slots[j] - 1;
      return CPROF_OK;
    }
  }
  int overflow = is_overflow(s);
  if (!overflow && u->regular >= CPROF_LABEL_SETS_CAP) {
    const cprof_label_set_t o = {1, (char **)OVERFLOW_KV};
    return intern(u, &o, id);
  }
  for (uint32_t i = 0; i < s->n; i++) {
    kv[2 * i] = s->kv[2 * ord[i]];
    kv[2 * i + 1] = s->kv[2 * ord[i] + 1];
  }
  int rc = cprof_labels_add_set(u->l, kv, s->n);
  if (rc != CPROF_OK) return rc;
  *id = u->l->nsets - 1;
  u->slots[j] = *id + 1;
  if (!overflow) u->regular++;
  return CPROF_OK;
}

/* in's samples appended at dst, their sets mapped into the union. */
static int append(uni_t *u, const cprof_labels_t *in, uint32_t *dst) {
  uint32_t *map = malloc((in->nsets ? in->nsets : 1) * sizeof *map);
  if (!map) return CPROF_ENOMEM;
  for (uint32_t s = 0; s < in->nsets; s++)
    map[s] = NONE;
  int rc = CPROF_OK;
  for (uint32_t i = 0; i < in->nsamples && rc == CPROF_OK; i++) {
    uint32_t s = in->sample_set[i] < in->nsets ? in->sample_set[i] : 0;
    if (map[s] == NONE) rc = intern(u, &in->sets[s], &map[s]);
    dst[i] = map[s];
  }
  free(map);
  return rc;
}

int cprof_labels_merge(const cprof_labels_t *const *in, const uint32_t *nsamples, size_t n,
                       cprof_labels_t **out) {
  uint64_t total = 0;
  if (!out || (n && (!in || !nsamples))) return CPROF_EINVAL;
  *out = NULL;
  for (size_t k = 0; k < n; k++) {
    if (in[k] && (in[k]->nsamples != nsamples[k] || (nsamples[k] && !in[k]->sample_set)))
      return CPROF_EINVAL;
    total += nsamples[k];
  }
  if (total >= UINT32_MAX) return CPROF_ENOMEM;
  uni_t u = {cprof_labels_new(), calloc(SLOTS, sizeof(uint32_t)), 0};
  int rc = u.l && u.slots ? CPROF_OK : CPROF_ENOMEM;
  if (rc == CPROF_OK && !(u.l->sample_set = malloc((total ? total : 1) * sizeof(uint32_t))))
    rc = CPROF_ENOMEM;
  uint64_t unknown = 0;
  for (size_t k = 0, off = 0; k < n && rc == CPROF_OK; off += nsamples[k++]) {
    if (!in[k]) {
      memset(u.l->sample_set + off, 0, nsamples[k] * sizeof(uint32_t));
      continue;
    }
    rc = append(&u, in[k], u.l->sample_set + off);
    unknown += in[k]->unknown;
  }
  free(u.slots);
  if (rc != CPROF_OK) {
    cprof_labels_free(u.l);
    return rc;
  }
  u.l->nsamples = (uint32_t)total;
  u.l->unknown = unknown > total ? (uint32_t)total : (uint32_t)unknown;
  u.l->joined = 1;
  *out = u.l;
  return CPROF_OK;
}

void cprof_labels_drop_leading(cprof_labels_t *l, uint32_t k) {
  if (!l || !l->sample_set || k == 0) return;
  if (k > l->nsamples) k = l->nsamples;
  memmove(l->sample_set, l->sample_set + k, (size_t)(l->nsamples - k) * sizeof *l->sample_set);
  l->nsamples -= k;
  /* the unknown samples come first: they are before the oldest switch */
  l->unknown = l->unknown > k ? l->unknown - k : 0;
  if (l->unknown > l->nsamples) l->unknown = l->nsamples;
}

size_t cprof_labels_bytes(const cprof_labels_t *l) {
  if (!l) return 0;
  size_t b = sizeof *l + (size_t)l->nsets * sizeof *l->sets + l->nsw * sizeof *l->sw +
             (size_t)l->nsamples * sizeof *l->sample_set;
  for (uint32_t i = 0; i < l->nsets; i++)
    for (uint32_t k = 0; k < 2 * l->sets[i].n; k++)
      b += sizeof(char *) + strlen(l->sets[i].kv[k]) + 1;
  return b;
}

char *cprof_labels_sidecar_name(const char *profile) {
  static const char ext[] = ".cpuprofile", side[] = ".labels.json";
  size_t n = profile ? strlen(profile) : 0, e = sizeof ext - 1;
  if (n < e) return NULL;
  for (size_t i = 0; i < e; i++) {
    char c = profile[n - e + i];
    if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != ext[i]) return NULL;
  }
  char *s = malloc(n - e + sizeof side);
  if (!s) return NULL;
  memcpy(s, profile, n - e);
  memcpy(s + n - e, side, sizeof side);
  return s;
}

/* ---- the sidecar read back ---- */

#define FAIL(...) cprof__rd_fail(r, CPROF_ESCHEMA, __VA_ARGS__)

typedef struct {
  cprof_labels_t *l;
  uint32_t cap; /* sample_set's room */
  int version;  /* 1 once seen */
  int sets;     /* sets seen */
  int samples;  /* samples seen */
  char *kv[2 * CPROF_LABEL_PAIRS_MAX];
  uint32_t nkv;
} side_t;

static void free_kv(side_t *s) {
  for (uint32_t i = 0; i < s->nkv; i++)
    free(s->kv[i]);
  s->nkv = 0;
}

/* The string at the reader, copied (a label holds no NUL). */
static int string_copy(cprof__rd_t *r, const char *what, uint32_t set, char **out) {
  const char *v;
  size_t n;
  if (cprof__rd_peek(r) != '"') return FAIL("sets[%u]: a label's %s is not a string", set, what);
  int rc = cprof__rd_string(r, &v, &n);
  if (rc != 0) return rc;
  if (memchr(v, '\0', n)) return FAIL("sets[%u]: a label's %s holds NUL", set, what);
  if (!(*out = malloc(n + 1))) return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory");
  memcpy(*out, v, n);
  (*out)[n] = '\0';
  return 0;
}

static int read_set(cprof__rd_t *r, side_t *s, uint32_t i) {
  const char *key;
  size_t klen;
  int first = 1, rc;
  if (cprof__rd_peek(r) != '{') return FAIL("sets[%u] is not an object", i);
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (s->nkv >= 2 * CPROF_LABEL_PAIRS_MAX)
      return FAIL("sets[%u] holds more than %u labels", i, CPROF_LABEL_PAIRS_MAX);
    if (memchr(key, '\0', klen)) return FAIL("sets[%u]: a label's name holds NUL", i);
    if (!(s->kv[s->nkv] = malloc(klen + 1)))
      return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory");
    memcpy(s->kv[s->nkv], key, klen); /* before the value: the key may be in scratch */
    s->kv[s->nkv++][klen] = '\0';
    for (uint32_t k = 0; k + 1 < s->nkv; k += 2)
      if (strcmp(s->kv[k], s->kv[s->nkv - 1]) == 0)
        return FAIL("sets[%u] names label %s twice", i, s->kv[k]);
    if ((rc = string_copy(r, "value", i, &s->kv[s->nkv])) != 0) return rc;
    s->nkv++;
  }
  if (rc != 0) return rc;
  uint32_t n = s->nkv / 2;
  if (i == 0) {
    free_kv(s);
    return n == 0 ? 0 : FAIL("sets[0] is not {} (set 0 is no labels)");
  }
  if (s->l->nsets >= CPROF_LABEL_SETS_MAX) return FAIL("more than %u sets", CPROF_LABEL_SETS_MAX);
  rc = cprof_labels_add_set(s->l, (const char *const *)s->kv, n);
  free_kv(s);
  return rc == CPROF_OK ? 0 : cprof__rd_fail(r, rc, "out of memory");
}

static int read_sets(cprof__rd_t *r, side_t *s) {
  int first = 1, rc;
  uint32_t i = 0;
  if (cprof__rd_peek(r) != '[') return FAIL("sets is not an array");
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1)
    if ((rc = read_set(r, s, i++)) != 0) return rc;
  if (rc == 0 && i == 0) return FAIL("sets is empty (set 0 is no labels)");
  s->sets = 1;
  return rc;
}

static int read_samples(cprof__rd_t *r, side_t *s) {
  int first = 1, rc;
  cprof_labels_t *l = s->l;
  if (cprof__rd_peek(r) != '[') return FAIL("samples is not an array");
  if ((rc = cprof__rd_open(r, '[')) != 0) return rc;
  while ((rc = cprof__rd_elem(r, &first)) == 1) {
    if (l->nsamples >= UINT32_MAX - 1) return cprof__rd_fail(r, CPROF_ENOMEM, "too many samples");
    if (cprof__grow((void **)&l->sample_set, &s->cap, l->nsamples + 1, sizeof *l->sample_set) != 0)
      return cprof__rd_fail(r, CPROF_ENOMEM, "out of memory for %u samples", l->nsamples + 1);
    if (!cprof__rd_u32(r, &l->sample_set[l->nsamples]))
      return FAIL("samples[%u] is not a set id", l->nsamples);
    l->nsamples++;
  }
  s->samples = 1;
  return rc;
}

static int read_doc(cprof__rd_t *r, side_t *s) {
  const char *key;
  size_t klen;
  int first = 1, rc;
  double v;
  if (cprof__rd_peek(r) != '{') return FAIL("not a JSON object");
  if ((rc = cprof__rd_open(r, '{')) != 0) return rc;
  while ((rc = cprof__rd_member(r, &first, &key, &klen)) == 1) {
    if (CPROF__KEY(key, klen, "version")) {
      if (cprof__rd_peek(r) != '0') return FAIL("version is not 1");
      if ((rc = cprof__rd_number(r, &v)) != 0) return rc;
      if (v != 1) return FAIL("version is not 1");
      s->version = 1;
    } else if (CPROF__KEY(key, klen, "sets") && !s->sets) {
      rc = read_sets(r, s);
    } else if (CPROF__KEY(key, klen, "samples") && !s->samples) {
      rc = read_samples(r, s);
    } else if (CPROF__KEY(key, klen, "unknownSamples")) {
      if (!cprof__rd_u32(r, &s->l->unknown)) return FAIL("unknownSamples is not a count");
      rc = 0;
    } else {
      rc = cprof__rd_skip(r);
    }
    if (rc != 0) return rc;
  }
  if (rc != 0) return rc;
  for (const char *q = r->p; q < r->end; q++)
    if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
      return cprof__rd_fail(r, CPROF_EPARSE, "unexpected data after the JSON value");
  if (!s->version || !s->sets || !s->samples)
    return FAIL("not a labels file (version 1, sets, samples)");
  for (uint32_t i = 0; i < s->l->nsamples; i++)
    if (s->l->sample_set[i] >= s->l->nsets)
      return FAIL("samples[%u] names set %u, and sets has %u", i, s->l->sample_set[i], s->l->nsets);
  if (s->l->unknown > s->l->nsamples) return FAIL("unknownSamples is more than the samples");
  return 0;
}

int cprof_labels_read(const char *json, size_t len, cprof_labels_t **out, char *errbuf,
                      size_t errlen) {
  cprof__rd_t r;
  side_t s = {0};
  if (errbuf && errlen) errbuf[0] = '\0';
  if (!out || (!json && len)) return CPROF_EINVAL;
  *out = NULL;
  if (!(s.l = cprof_labels_new())) return CPROF_ENOMEM;
  cprof__rd_init(&r, json ? json : "", len, errbuf, errlen);
  int rc = len ? read_doc(&r, &s) : cprof__rd_fail(&r, CPROF_EPARSE, "empty: not JSON");
  cprof__rd_free(&r);
  free_kv(&s);
  if (rc != 0) {
    cprof_labels_free(s.l);
    return rc;
  }
  s.l->joined = 1;
  *out = s.l;
  return CPROF_OK;
}
