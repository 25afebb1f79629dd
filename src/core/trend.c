#define _POSIX_C_SOURCE 200809L /* pthreads, strdup */
#include "trend.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* A site's live bytes per window, in the same circular order as the
 * trend's window times. */
typedef struct {
  char *name;
  char *url;
  int32_t line;
  uint64_t hash;
  int64_t *v;
} site_t;

struct cprof_trend_s {
  pthread_mutex_t lock;
  uint32_t cap;       /* max_windows */
  uint32_t max_sites; /* per window; the tracker keeps at most twice that */
  int64_t *t_ms;      /* window ends, circular from start */
  int64_t *heap;      /* the whole live heap per window */
  uint32_t start, n;
  site_t *sites;
  uint32_t nsites, sites_cap;
  uint32_t *table; /* open addressing: site index + 1, 0 empty */
  uint32_t table_size;
  double *scratch;        /* cap * (cap - 1) / 2 pairwise slopes */
  int64_t *tmp_v, *tmp_t; /* one series, oldest first */
  cprof_trend_result_t latest;
};

void cprof_trend_opts_default(cprof_trend_opts_t *o) {
  o->min_windows = CPROF_TREND_MIN_WINDOWS;
  o->z_min = CPROF_TREND_Z_MIN;
  o->recent_fraction = CPROF_TREND_RECENT_FRACTION;
  o->recent_ratio = CPROF_TREND_RECENT_RATIO;
  o->min_growth = 0;
  o->top = CPROF_TREND_TOP;
}

/* ---- the test on one series ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The k-th smallest of a[0..n) (k < n), in linear time on average
 * (quickselect, middle pivot): afterwards a[0..k) are all <= it. Sorting
 * every pairwise slope instead cost ~1 ms per site at 60 windows. */
static double select_kth(double *a, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = a[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot)
        i++;
      while (a[j] > pivot)
        j--;
      if (i <= j) {
        double x = a[i];
        a[i] = a[j];
        a[j] = x;
        i++;
        if (j == 0) break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return a[k];
  }
  return a[k];
}

/* The median of the slopes (bytes per ms) between every pair of the n
 * values from v + off; 0 with fewer than two. */
static double theil_sen(const int64_t *v, const int64_t *t, uint32_t off, uint32_t n,
                        double *scratch) {
  size_t k = 0;
  for (uint32_t i = off; i < off + n; i++)
    for (uint32_t j = i + 1; j < off + n; j++)
      if (t[j] > t[i]) scratch[k++] = (double)(v[j] - v[i]) / (double)(t[j] - t[i]);
  if (k == 0) return 0;
  double hi = select_kth(scratch, k, k / 2);
  if (k % 2) return hi;
  double lo = scratch[0]; /* the largest of the part below k / 2 */
  for (size_t i = 1; i < k / 2; i++)
    if (scratch[i] > lo) lo = scratch[i];
  return (lo + hi) / 2;
}

/* Mann–Kendall's Z with the tie-corrected variance and the continuity
 * correction; 0 when the variance is 0 (every value equal). */
static double mann_kendall(const int64_t *v, uint32_t n, double *scratch) {
  double s = 0;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = i + 1; j < n; j++)
      s += (v[j] > v[i]) - (v[j] < v[i]);
  for (uint32_t i = 0; i < n; i++)
    scratch[i] = (double)v[i];
  qsort(scratch, n, sizeof *scratch, cmp_double);
  double dn = n, var = dn * (dn - 1) * (2 * dn + 5);
  for (uint32_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && scratch[j] == scratch[i]; j++)
      ;
    double g = j - i;
    var -= g * (g - 1) * (2 * g + 5);
  }
  var /= 18;
  if (var <= 0 || s == 0) return 0;
  return (s > 0 ? s - 1 : s + 1) / sqrt(var);
}

int cprof_trend_series(const int64_t *v, const int64_t *t_ms, uint32_t n,
                       const cprof_trend_opts_t *o, double *scratch, cprof_trend_verdict_t *out) {
  memset(out, 0, sizeof *out);
  if (n == 0) return CPROF_OK;
  double *own = NULL;
  if (!scratch) {
    size_t pairs = (size_t)n * (n - 1) / 2;
    if (!(scratch = own = malloc((pairs > n ? pairs : n) * sizeof *scratch))) return CPROF_ENOMEM;
  }
  uint32_t low = 0;
  for (uint32_t i = 1; i < n; i++)
    if (v[i] <= v[low]) low = i;
  out->since_ms = t_ms[low];
  out->per_min = theil_sen(v, t_ms, 0, n, scratch) * 60000.0;
  uint32_t r = (uint32_t)ceil(n * o->recent_fraction);
  if (r < 4) r = 4;
  if (r > n) r = n;
  out->recent = theil_sen(v, t_ms, n - r, r, scratch) * 60000.0;
  out->z = n >= 3 ? mann_kendall(v, n, scratch) : 0;
  double span_min = (double)(t_ms[n - 1] - t_ms[0]) / 60000.0;
  out->growing = n >= o->min_windows && n >= 3 && out->z >= o->z_min && out->per_min > 0 &&
                 out->recent > 0 && out->recent >= o->recent_ratio * out->per_min &&
                 out->per_min * span_min >= (double)o->min_growth;
  free(own);
  return CPROF_OK;
}

/* ---- the tracker ---- */

static uint64_t site_hash(const char *name, const char *url, int32_t line) {
  uint64_t h = 1469598103934665603ull;
  for (const char *s = name; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  h = (h ^ 0xffu) * 1099511628211ull; /* a byte no string holds: "a"+"bc" != "ab"+"c" */
  for (const char *s = url; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  h = (h ^ 0xffu) * 1099511628211ull;
  return (h ^ (uint32_t)line) * 1099511628211ull;
}

static void site_free(site_t *s) {
  free(s->name);
  free(s->url);
  free(s->v);
}

void cprof_trend_result_free(cprof_trend_result_t *r) {
  if (!r) return;
  for (uint32_t i = 0; i < r->ntop; i++) {
    free(r->top[i].name);
    free(r->top[i].url);
    free(r->top[i].series);
  }
  free(r->top);
  free(r->times);
  free(r->heap_series);
  memset(r, 0, sizeof *r);
}

cprof_trend_t *cprof_trend_new(uint32_t max_windows, uint32_t max_sites) {
  if (max_windows < 2 || max_windows > 100000 || max_sites < 1 || max_sites > (1u << 24))
    return NULL;
  cprof_trend_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  size_t pairs = (size_t)max_windows * (max_windows - 1) / 2;
  t->cap = max_windows;
  t->max_sites = max_sites;
  t->t_ms = calloc(max_windows, sizeof *t->t_ms);
  t->heap = calloc(max_windows, sizeof *t->heap);
  t->tmp_v = calloc(max_windows, sizeof *t->tmp_v);
  t->tmp_t = calloc(max_windows, sizeof *t->tmp_t);
  t->scratch = calloc(pairs > max_windows ? pairs : max_windows, sizeof *t->scratch);
  if (!t->t_ms || !t->heap || !t->tmp_v || !t->tmp_t || !t->scratch ||
      pthread_mutex_init(&t->lock, NULL) != 0) {
    free(t->t_ms);
    free(t->heap);
    free(t->tmp_v);
    free(t->tmp_t);
    free(t->scratch);
    free(t);
    return NULL;
  }
  return t;
}

void cprof_trend_free(cprof_trend_t *t) {
  if (!t) return;
  for (uint32_t i = 0; i < t->nsites; i++)
    site_free(&t->sites[i]);
  free(t->sites);
  free(t->table);
  free(t->t_ms);
  free(t->heap);
  free(t->tmp_v);
  free(t->tmp_t);
  free(t->scratch);
  cprof_trend_result_free(&t->latest);
  pthread_mutex_destroy(&t->lock);
  free(t);
}

/* The table for room sites: a power of two at least twice that. */
static int table_rebuild(cprof_trend_t *t, uint32_t room) {
  uint32_t size = 16;
  while (size < 2 * room)
    size *= 2;
  if (size > t->table_size) { /* never shrinks: pruning cannot fail */
    uint32_t *nt = realloc(t->table, size * sizeof *nt);
    if (!nt) return CPROF_ENOMEM;
    t->table = nt;
    t->table_size = size;
  }
  memset(t->table, 0, t->table_size * sizeof *t->table);
  for (uint32_t i = 0; i < t->nsites; i++) {
    uint32_t k = (uint32_t)t->sites[i].hash & (t->table_size - 1);
    while (t->table[k])
      k = (k + 1) & (t->table_size - 1);
    t->table[k] = i + 1;
  }
  return CPROF_OK;
}

/* The site for a frame, created (all windows 0) when new: its index, or -1
 * when out of memory. */
static int64_t site_find(cprof_trend_t *t, const cprof_frame_t *f) {
  uint64_t h = site_hash(f->name, f->url, f->line);
  uint32_t k = (uint32_t)h & (t->table_size - 1);
  for (; t->table[k]; k = (k + 1) & (t->table_size - 1)) {
    site_t *s = &t->sites[t->table[k] - 1];
    if (s->hash == h && s->line == f->line && !strcmp(s->name, f->name) && !strcmp(s->url, f->url))
      return t->table[k] - 1;
  }
  if (t->nsites == t->sites_cap) {
    uint32_t nc = t->sites_cap ? t->sites_cap * 2 : 64;
    site_t *ns = realloc(t->sites, nc * sizeof *ns);
    if (!ns) return -1;
    t->sites = ns;
    t->sites_cap = nc;
  }
  site_t s = {.name = strdup(f->name),
              .url = strdup(f->url),
              .line = f->line,
              .hash = h,
              .v = calloc(t->cap, sizeof(int64_t))};
  if (!s.name || !s.url || !s.v) {
    site_free(&s);
    return -1;
  }
  t->sites[t->nsites] = s;
  t->table[k] = ++t->nsites;
  return t->nsites - 1;
}

typedef struct {
  uint32_t frame;
  int64_t bytes;
} frame_bytes_t;

static int cmp_bytes_desc(const void *a, const void *b) {
  int64_t x = ((const frame_bytes_t *)a)->bytes, y = ((const frame_bytes_t *)b)->bytes;
  return (x < y) - (x > y);
}

/* The profile's live bytes per site frame, largest first, at most
 * max_sites of them. A node's bytes go to its innermost frame with a script
 * (url): what a builtin ("repeat", "set", url "") allocates is charged to
 * the app's function that called it, which is what a reader can fix; a
 * stack with no script at all keeps its own frame. Frames differ by column
 * too; sites merge the columns. */
static int frames_with_bytes(const cprof_profile_t *p, uint32_t max_sites, frame_bytes_t **out,
                             uint32_t *n) {
  int64_t *by = calloc(p->nframes ? p->nframes : 1, sizeof *by);
  uint32_t *site = malloc((p->nnodes ? p->nnodes : 1) * sizeof *site);
  if (!by || !site) {
    free(by);
    free(site);
    return CPROF_ENOMEM;
  }
  for (uint32_t i = 0; i < p->nnodes; i++) { /* parents come first */
    uint32_t f = p->nodes[i].frame, up = p->nodes[i].parent;
    site[i] = CPROF_NONE;
    if (f < p->nframes && p->frames[f].url[0])
      site[i] = f;
    else if (up < i)
      site[i] = site[up];
  }
  for (uint32_t i = 0; i < p->nnodes; i++) {
    uint32_t f = site[i] != CPROF_NONE ? site[i] : p->nodes[i].frame;
    if (p->nodes[i].self > 0 && f < p->nframes) by[f] += p->nodes[i].self;
  }
  free(site);
  uint32_t k = 0;
  for (uint32_t f = 0; f < p->nframes; f++)
    k += by[f] > 0;
  frame_bytes_t *fb = malloc((k ? k : 1) * sizeof *fb);
  if (!fb) {
    free(by);
    return CPROF_ENOMEM;
  }
  k = 0;
  for (uint32_t f = 0; f < p->nframes; f++)
    if (by[f] > 0) fb[k++] = (frame_bytes_t){f, by[f]};
  free(by);
  if (k > max_sites) {
    qsort(fb, k, sizeof *fb, cmp_bytes_desc);
    k = max_sites;
  }
  *out = fb;
  *n = k;
  return CPROF_OK;
}

/* Drops the sites with no bytes in any kept window, then, beyond twice
 * max_sites, those with the fewest bytes now. */
static int prune(cprof_trend_t *t, uint32_t newest) {
  uint32_t w = 0;
  for (uint32_t i = 0; i < t->nsites; i++) {
    int any = 0;
    for (uint32_t k = 0; k < t->n && !any; k++)
      any = t->sites[i].v[(t->start + k) % t->cap] != 0;
    if (any)
      t->sites[w++] = t->sites[i];
    else
      site_free(&t->sites[i]);
  }
  t->nsites = w;
  while (t->nsites > 2 * t->max_sites) { /* rare: sites churn; drop the smallest now */
    uint32_t low = 0;
    for (uint32_t i = 1; i < t->nsites; i++)
      if (t->sites[i].v[newest] < t->sites[low].v[newest]) low = i;
    site_free(&t->sites[low]);
    t->sites[low] = t->sites[--t->nsites];
  }
  return table_rebuild(t, t->nsites);
}

static int cmp_site_desc(const void *a, const void *b) {
  double x = ((const cprof_trend_site_t *)a)->per_min, y = ((const cprof_trend_site_t *)b)->per_min;
  return (x < y) - (x > y);
}

/* One site's or the heap's series, oldest first, into tmp_v / tmp_t. */
static void series_of(cprof_trend_t *t, const int64_t *ring) {
  for (uint32_t k = 0; k < t->n; k++) {
    uint32_t slot = (t->start + k) % t->cap;
    t->tmp_v[k] = ring[slot];
    t->tmp_t[k] = t->t_ms[slot];
  }
}

static int compute(cprof_trend_t *t, const cprof_trend_opts_t *o, cprof_trend_result_t *r) {
  memset(r, 0, sizeof *r);
  if (t->n == 0) return CPROF_OK;
  uint32_t newest = (t->start + t->n - 1) % t->cap;
  r->windows = t->n;
  r->from_ms = t->t_ms[t->start];
  r->to_ms = t->t_ms[newest];
  r->live = t->heap[newest];
  r->sites = t->nsites;
  series_of(t, t->heap);
  cprof_trend_series(t->tmp_v, t->tmp_t, t->n, o, t->scratch, &r->heap);
  cprof_trend_site_t *grow = malloc((t->nsites ? t->nsites : 1) * sizeof *grow);
  if (!grow) return CPROF_ENOMEM;
  uint32_t ng = 0;
  for (uint32_t i = 0; i < t->nsites && t->n >= o->min_windows; i++) {
    site_t *s = &t->sites[i];
    series_of(t, s->v);
    if (t->tmp_v[t->n - 1] <= t->tmp_v[0]) continue; /* cannot have grown: skip the work */
    if (mann_kendall(t->tmp_v, t->n, t->scratch) < o->z_min) continue; /* no trend: no sort */
    cprof_trend_verdict_t vd;
    cprof_trend_series(t->tmp_v, t->tmp_t, t->n, o, t->scratch, &vd);
    if (!vd.growing) continue;
    grow[ng++] =
        (cprof_trend_site_t){.name = s->name,
                             .url = s->url,
                             .line = s->line,
                             .live = s->v[newest],
                             .per_min = vd.per_min,
                             .z = vd.z,
                             .since_ms = vd.since_ms,
                             .series = s->v, /* the ring itself: linearized below */
                             .share = r->heap.per_min > 0 ? vd.per_min / r->heap.per_min : NAN};
  }
  r->growing = ng;
  qsort(grow, ng, sizeof *grow, cmp_site_desc);
  r->ntop = ng < o->top ? ng : o->top;
  r->top = grow;
  int ok = (r->times = malloc(t->n * sizeof *r->times)) != NULL &&
           (r->heap_series = malloc(t->n * sizeof *r->heap_series)) != NULL;
  if (ok) {
    series_of(t, t->heap);
    memcpy(r->times, t->tmp_t, t->n * sizeof *r->times);
    memcpy(r->heap_series, t->tmp_v, t->n * sizeof *r->heap_series);
  }
  for (uint32_t i = 0; i < r->ntop; i++) { /* own copies: the tracker changes */
    const int64_t *ring = grow[i].series;
    grow[i].name = ok ? strdup(grow[i].name) : NULL;
    grow[i].url = ok ? strdup(grow[i].url) : NULL;
    grow[i].series = ok ? malloc(t->n * sizeof(int64_t)) : NULL;
    ok = ok && grow[i].name && grow[i].url && grow[i].series;
    if (ok) {
      series_of(t, ring);
      memcpy(grow[i].series, t->tmp_v, t->n * sizeof(int64_t));
    }
  }
  if (!ok) {
    cprof_trend_result_free(r);
    return CPROF_ENOMEM;
  }
  return CPROF_OK;
}

static int add_locked(cprof_trend_t *t, const cprof_profile_t *p, int64_t end_ms,
                      const cprof_trend_opts_t *o) {
  if (p->kind != CPROF_KIND_HEAP) return CPROF_EINVAL;
  if (t->n > 0 && end_ms <= t->t_ms[(t->start + t->n - 1) % t->cap]) return CPROF_EINVAL;
  frame_bytes_t *fb;
  uint32_t nf;
  int rc = frames_with_bytes(p, t->max_sites, &fb, &nf);
  if (rc != CPROF_OK) return rc;
  int64_t *idx = malloc((nf ? nf : 1) * sizeof *idx);
  /* Room for every new site first, so a failure leaves the windows as
   * they were (new sites are all zeros, pruned next time). */
  if (!idx || table_rebuild(t, t->nsites + nf) != CPROF_OK) rc = CPROF_ENOMEM;
  for (uint32_t i = 0; i < nf && rc == CPROF_OK; i++)
    if ((idx[i] = site_find(t, &p->frames[fb[i].frame])) < 0) rc = CPROF_ENOMEM;
  if (rc == CPROF_OK) {
    uint32_t slot;
    if (t->n < t->cap) {
      slot = (t->start + t->n++) % t->cap;
    } else {
      slot = t->start;
      t->start = (t->start + 1) % t->cap;
    }
    t->t_ms[slot] = end_ms;
    t->heap[slot] = cprof_profile_total(p);
    for (uint32_t i = 0; i < t->nsites; i++)
      t->sites[i].v[slot] = 0;
    for (uint32_t i = 0; i < nf; i++)
      t->sites[idx[i]].v[slot] += fb[i].bytes;
    rc = prune(t, slot);
  }
  free(idx);
  free(fb);
  if (rc != CPROF_OK) return rc;
  cprof_trend_result_t r;
  if ((rc = compute(t, o, &r)) != CPROF_OK) return rc;
  cprof_trend_result_free(&t->latest);
  t->latest = r;
  return CPROF_OK;
}

int cprof_trend_add(cprof_trend_t *t, const cprof_profile_t *heap, int64_t end_ms,
                    const cprof_trend_opts_t *o) {
  if (!t || !heap || !o) return CPROF_EINVAL;
  pthread_mutex_lock(&t->lock);
  int rc = add_locked(t, heap, end_ms, o);
  pthread_mutex_unlock(&t->lock);
  return rc;
}

static void *dup_bytes(const void *p, size_t n) {
  void *q = malloc(n ? n : 1);
  if (q && n) memcpy(q, p, n);
  return q;
}

int cprof_trend_latest(cprof_trend_t *t, cprof_trend_result_t *out) {
  memset(out, 0, sizeof *out);
  if (!t) return CPROF_EINVAL;
  pthread_mutex_lock(&t->lock);
  int rc = CPROF_OK;
  const cprof_trend_result_t *l = &t->latest;
  size_t n = l->windows * sizeof(int64_t);
  *out = *l;
  out->top = NULL;
  out->ntop = 0;
  out->times = out->heap_series = NULL;
  if (l->windows && (!(out->times = dup_bytes(l->times, n)) ||
                     !(out->heap_series = dup_bytes(l->heap_series, n))))
    rc = CPROF_ENOMEM;
  if (rc == CPROF_OK && l->ntop && !(out->top = calloc(l->ntop, sizeof *out->top)))
    rc = CPROF_ENOMEM;
  for (uint32_t i = 0; i < l->ntop && rc == CPROF_OK; i++) {
    out->top[i] = l->top[i];
    out->top[i].name = strdup(l->top[i].name);
    out->top[i].url = strdup(l->top[i].url);
    out->top[i].series = dup_bytes(l->top[i].series, n);
    out->ntop = i + 1;
    if (!out->top[i].name || !out->top[i].url || !out->top[i].series) rc = CPROF_ENOMEM;
  }
  pthread_mutex_unlock(&t->lock);
  if (rc != CPROF_OK) cprof_trend_result_free(out);
  return rc;
}
