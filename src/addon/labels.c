/* Labels per CPU sample, the addon's side (labels.h): the ring's entry
 * point and the label arguments; the join itself is core (labelset.c). */
#include "labels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cprof.h"
#include "addon.h"
#include "args.h"
#include "errors.h"
#include "jsutil.h"
#include "job_args.h"
#include "macros.h"

#define RING_CAP_MAX (1u << 24) /* 256 MiB of doubles: far past any sane ring */

napi_value cprof__labels_ring(napi_env env, napi_callback_info info) {
  cprof_addon_t *addon = cprof__addon(env);
  napi_value argv[1], buf;
  double cap;
  if (!addon || cprof__args(env, info, 1, argv) != 0 ||
      cprof__arg_double(env, argv[0], "cap", &cap) != 0)
    return NULL;
  if (addon->label_ring) {
    NAPI_CALL(env, napi_get_reference_value(env, addon->label_ring->ref, &buf));
    return buf;
  }
  if (!(cap >= 1 && cap <= RING_CAP_MAX)) {
    cprof__throw(env, "ERR_CPROF_INVALID_ARG", "the labels ring's capacity must be 1 to 2^24");
    return NULL;
  }
  if (!(addon->label_ring = cprof__label_ring_new(env, (uint32_t)cap, &buf))) return NULL;
  return buf;
}

/* obj[key], or 0 when absent (undefined, null); 1 when *out set, -1 with a throw. */
static int prop(napi_env env, napi_value obj, const char *key, napi_value *out) {
  napi_valuetype t;
  NAPI_CALL_INT(env, napi_get_named_property(env, obj, key, out));
  NAPI_CALL_INT(env, napi_typeof(env, *out, &t));
  return t != napi_undefined && t != napi_null;
}

static int bad(napi_env env, const char *what) {
  cprof__throw(env, "ERR_CPROF_INVALID_ARG", what);
  return -1;
}

/* One set: an array of 2n strings (key, value, ...). */
static int read_set(napi_env env, napi_value arr, cprof_labels_t *l) {
  uint32_t n = 0;
  bool is = false;
  char *kv[2 * CPROF_LABEL_PAIRS_MAX] = {0};
  NAPI_CALL_INT(env, napi_is_array(env, arr, &is));
  if (!is) return bad(env, "labels.sets: each set must be an array of strings");
  NAPI_CALL_INT(env, napi_get_array_length(env, arr, &n));
  if (n % 2 || n > 2 * CPROF_LABEL_PAIRS_MAX)
    return bad(env, "labels.sets: a set holds 0 to 64 key/value pairs");
  int rc = 0;
  for (uint32_t k = 0; k < n && rc == 0; k++) {
    napi_value v;
    if (napi_get_element(env, arr, k, &v) != napi_ok) {
      cprof__throw_last_error(env, "napi_get_element");
      rc = -1;
    } else if ((rc = cprof__arg_string(env, v, "a label", &kv[k])) == 0 && !kv[k]) {
      rc = bad(env, "labels.sets: keys and values must be strings");
    }
  }
  if (rc == 0 && cprof_labels_add_set(l, (const char *const *)kv, n / 2) != CPROF_OK) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory reading the label sets");
    rc = -1;
  }
  for (uint32_t k = 0; k < n; k++)
    free(kv[k]);
  return rc;
}

/* samples: each sample's set id, a Uint32Array (a sidecar read back). */
static int read_given(napi_env env, napi_value arr, cprof_labels_t *l) {
  bool is = false;
  napi_typedarray_type type;
  size_t len = 0;
  void *data = NULL;
  NAPI_CALL_INT(env, napi_is_typedarray(env, arr, &is));
  if (is) NAPI_CALL_INT(env, napi_get_typedarray_info(env, arr, &type, &len, &data, NULL, NULL));
  if (!is || type != napi_uint32_array || len > UINT32_MAX)
    return bad(env, "labels.samples must be a Uint32Array of set ids");
  int rc = cprof_labels_give(l, data, (uint32_t)len);
  if (rc == CPROF_EINVAL) return bad(env, "labels.samples: a set id past labels.sets");
  if (rc != CPROF_OK) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory reading the labels' samples");
    return -1;
  }
  return 0;
}

/* The span sets (lib/labels/otel.js), packed in one string, each token
 * ended by a NUL: a set's pair count in decimal, then its keys and values. */
static int read_span_sets(napi_env env, napi_value v, cprof_labels_t *l) {
  napi_valuetype t;
  size_t n;
  char *buf;
  NAPI_CALL_INT(env, napi_typeof(env, v, &t));
  if (t != napi_string) return bad(env, "labels.spanSets must be a string");
  if (cprof__js_string_copy(env, v, &buf, &n) != 0) return -1;
  const char *kv[2 * CPROF_LABEL_PAIRS_MAX];
  const char *p = buf, *end = buf + n; /* buf[n] is NUL: every strlen stops by end */
  int rc = 0;
  while (p < end && rc == 0) {
    char *e;
    unsigned long k = strtoul(p, &e, 10);
    if (e == p || *e != '\0' || k > CPROF_LABEL_PAIRS_MAX) {
      rc = bad(env, "labels.spanSets: a set's pair count is missing or past 64");
      break;
    }
    p = e + 1;
    for (unsigned long i = 0; i < 2 * k && rc == 0; i++) {
      if (p >= end) rc = bad(env, "labels.spanSets: a set ends early");
      kv[i] = p;
      p += strlen(p) + 1;
    }
    if (rc == 0 && cprof_labels_add_set(l, kv, (uint32_t)k) != CPROF_OK) {
      cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory reading the span sets");
      rc = -1;
    }
  }
  free(buf);
  return rc;
}

static int read_labels(napi_env env, cprof_addon_t *addon, napi_value obj, cprof_labels_t *l) {
  napi_value sets, file, from, samples;
  uint32_t n = 0;
  bool is = false;
  double from_us = 0;
  if (prop(env, obj, "sets", &sets) != 1) return bad(env, "labels.sets must be an array");
  NAPI_CALL_INT(env, napi_is_array(env, sets, &is));
  if (!is) return bad(env, "labels.sets must be an array");
  NAPI_CALL_INT(env, napi_get_array_length(env, sets, &n));
  if (n > CPROF_LABEL_SETS_MAX) return bad(env, "labels.sets: more sets than the core keeps");
  for (uint32_t i = 1; i < n; i++) { /* set 0, no labels, the table has */
    napi_value set;
    NAPI_CALL_INT(env, napi_get_element(env, sets, i, &set));
    if (read_set(env, set, l) != 0) return -1;
  }
  int has = prop(env, obj, "file", &file);
  if (has < 0 || (has && cprof__arg_string(env, file, "labels.file", &l->file) != 0)) return -1;
  if ((has = prop(env, obj, "fromUs", &from)) < 0 ||
      (has && cprof__arg_double(env, from, "labels.fromUs", &from_us) != 0))
    return -1;
  if ((has = prop(env, obj, "samples", &samples)) != 0)
    return has < 0 ? -1 : read_given(env, samples, l);
  double first = 0;
  if ((has = prop(env, obj, "spanFirst", &from)) < 0 ||
      (has && cprof__arg_double(env, from, "labels.spanFirst", &first) != 0))
    return -1;
  if (!(first >= 0 && first < 0x1p53 && first == floor(first)))
    return bad(env, "labels.spanFirst must be a whole number >= 0");
  if ((has = prop(env, obj, "spanSets", &from)) < 0) return -1;
  if (has) {
    l->span_at = l->nsets;
    l->span_first = first;
    if (read_span_sets(env, from, l) != 0) return -1;
  }
  const cprof_label_ring_t *r = addon->label_ring;
  if (r && cprof_labels_take_ring(l, r->slots, r->cap, from_us) != CPROF_OK) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory copying the label switches");
    return -1;
  }
  return 0;
}

int cprof__labels_read(napi_env env, napi_value obj, cprof_labels_t **out) {
  cprof_addon_t *addon = cprof__addon(env);
  napi_valuetype t;
  *out = NULL;
  if (!addon) return -1;
  NAPI_CALL_INT(env, napi_typeof(env, obj, &t));
  if (t == napi_undefined || t == napi_null) return 0;
  if (t != napi_object) return bad(env, "labels must be an object");
  cprof_labels_t *l = cprof_labels_new();
  if (!l) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory reading the labels");
    return -1;
  }
  if (read_labels(env, addon, obj, l) != 0) {
    cprof_labels_free(l);
    return -1;
  }
  *out = l;
  return 0;
}

int cprof__labels_args(napi_env env, napi_value opts, cprof_job_in_t *in) {
  napi_value obj;
  napi_valuetype t;
  int has = 0;
  if (napi_typeof(env, opts, &t) == napi_ok && t == napi_object)
    has = prop(env, opts, "labels", &obj);
  if (has == 0) return 0;
  cprof_labels_free(in->labels);
  in->labels = NULL;
  if (has < 0 || cprof__labels_read(env, obj, &in->labels) != 0) {
    cprof_job_in_free(in);
    return -1;
  }
  return 0;
}
