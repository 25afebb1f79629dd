/* The derived formats end to end in C: pprof (gunzipped with zlib and
 * decoded by a small protobuf reader written here), folded stacks, the SVG
 * flame graph, the text report, the diff, and atomic writes. The JS tests
 * check the same files with parsers we did not write. */
#define _GNU_SOURCE /* strndup, memmem */
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <zlib.h>

#include "helpers.h"
#include "internal.h"
#include "xml.h"

/* (root) → main → {work, (anonymous) → work}, plus (idle) and GC; the
 * names carry characters each format must escape. */
static const char *CPU =
    "{'nodes':["
    "{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1},'children':[2,6,7]},"
    "{'id':2,'callFrame':{'functionName':'main','scriptId':'3','url':'file:///app/main.js',"
    "'lineNumber':9,'columnNumber':4},'children':[3,4]},"
    "{'id':3,'callFrame':{'functionName':'work<T>&\\u0027x\\u0027;y','scriptId':'3',"
    "'url':'file:///app/main.js','lineNumber':19,'columnNumber':0}},"
    "{'id':4,'callFrame':{'functionName':'','scriptId':'4',"
    "'url':'file:///app/node_modules/dep/i.js','lineNumber':0,'columnNumber':0},'children':[5]},"
    "{'id':5,'callFrame':{'functionName':'work<T>&\\u0027x\\u0027;y','scriptId':'3',"
    "'url':'file:///app/main.js','lineNumber':19,'columnNumber':0}},"
    "{'id':6,'callFrame':{'functionName':'(idle)','scriptId':'0','url':'','lineNumber':-1,"
    "'columnNumber':-1}},"
    "{'id':7,'callFrame':{'functionName':'(garbage collector)','scriptId':'0','url':'',"
    "'lineNumber':-1,'columnNumber':-1}}],"
    "'startTime':1000,'endTime':2000,"
    "'samples':[3,3,5,2,6,7,3],'timeDeltas':[0,100,200,150,250,100,100]}";
/* weights: 100 200 150 250 100 100 100 (last: 2000 - 1900)
 * node 3 (work under main): 100+200+100 = 400, 3 samples
 * node 5 (work under anon):  150, 1 sample
 * node 2 (main):             250
 * node 6 (idle): 100; node 7 (GC): 100; total 1000 µs, 7 samples */

static char *format_text(cprof_format_t fmt, const cprof_profile_t *p, const cprof_export_opts_t *o,
                         size_t *len) {
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(cprof_export_format(fmt, p, o, f), 0);
  char *text = slurp(f, len);
  fclose(f);
  return text;
}

/* ---- a protobuf reader for the test ---- */

typedef struct {
  const unsigned char *p, *end;
} rd_t;

static uint64_t rd_varint(rd_t *r) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    assert_true(r->p < r->end);
    unsigned char b = *r->p++;
    v |= (uint64_t)(b & 0x7F) << shift;
    if (!(b & 0x80)) return v;
  }
  fail_msg("varint longer than 10 bytes");
  return 0;
}

/* Next field: its number, wire type, and value (varint) or bytes. */
static int rd_field(rd_t *r, uint32_t *field, uint64_t *v, rd_t *bytes) {
  if (r->p >= r->end) return 0;
  uint64_t key = rd_varint(r);
  *field = (uint32_t)(key >> 3);
  switch (key & 7) {
  case 0:
    *v = rd_varint(r);
    return 1;
  case 2: {
    uint64_t n = rd_varint(r);
    assert_true(n <= (uint64_t)(r->end - r->p));
    *bytes = (rd_t){r->p, r->p + n};
    r->p += n;
    return 1;
  }
  default:
    fail_msg("unexpected wire type %u", (unsigned)(key & 7));
    return 0;
  }
}

static unsigned char *gunzip(const char *gz, size_t len, size_t *out_len) {
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK); /* gzip only */
  size_t cap = 1 << 20;
  unsigned char *out = malloc(cap);
  assert_non_null(out);
  zs.next_in = (Bytef *)(uintptr_t)gz;
  zs.avail_in = (uInt)len;
  zs.next_out = out;
  zs.avail_out = (uInt)cap;
  assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
  *out_len = zs.total_out;
  inflateEnd(&zs);
  return out;
}

#define MAX_ID 4096

typedef struct {
  char *strings[4096];
  uint32_t nstrings;
  uint64_t sample_type[4][2];
  uint32_t nsample_types;
  uint64_t period_type[2];
  uint64_t period, time_nanos, duration_nanos;
  uint64_t sums[2]; /* sum of each value over samples */
  uint32_t nsamples, nlocations, nfunctions;
  uint32_t max_stack;
  uint64_t function_name[MAX_ID]; /* by function id */
  uint64_t function_line[MAX_ID];
  uint64_t location_fn[MAX_ID]; /* by location id */
  uint64_t first_sample_leaf;
  uint32_t nmappings;
  uint64_t mapping_id, mapping_file, mapping_flags; /* flags: has_functions..has_line_numbers */
  uint32_t locations_in_mapping;                    /* locations with mapping_id == mapping_id */
} pprof_t;

static void read_value_type(rd_t m, uint64_t out[2]) {
  uint32_t field;
  uint64_t v = 0;
  rd_t b;
  while (rd_field(&m, &field, &v, &b))
    if (field == 1 || field == 2) out[field - 1] = v;
}

static void read_sample(pprof_t *pp, rd_t m) {
  uint32_t field, depth = 0, nvals = 0;
  uint64_t v;
  rd_t b;
  while (rd_field(&m, &field, &v, &b)) {
    if (field == 1) {
      while (b.p < b.end) {
        uint64_t id = rd_varint(&b);
        if (depth++ == 0 && pp->nsamples == 0) pp->first_sample_leaf = id;
      }
    } else if (field == 2) {
      while (b.p < b.end) {
        assert_true(nvals < 2);
        pp->sums[nvals++] += rd_varint(&b);
      }
    }
  }
  assert_int_equal(nvals, 2);
  assert_true(depth >= 1);
  if (depth > pp->max_stack) pp->max_stack = depth;
  pp->nsamples++;
}

static void read_location(pprof_t *pp, rd_t m) {
  uint32_t field, f2;
  uint64_t v, id = 0, fn = 0, v2;
  rd_t b, b2;
  uint64_t mapping = 0;
  while (rd_field(&m, &field, &v, &b)) {
    if (field == 1) id = v;
    if (field == 2) mapping = v;
    if (field == 4)
      while (rd_field(&b, &f2, &v2, &b2))
        if (f2 == 1) fn = v2;
  }
  assert_true(id > 0 && id < MAX_ID && fn > 0);
  if (mapping != 0 && mapping == pp->mapping_id) pp->locations_in_mapping++;
  pp->location_fn[id] = fn;
  pp->nlocations++;
}

static void read_function(pprof_t *pp, rd_t m) {
  uint32_t field;
  uint64_t v, id = 0, name = 0, line = 0;
  rd_t b;
  while (rd_field(&m, &field, &v, &b)) {
    if (field == 1) id = v;
    if (field == 2) name = v;
    if (field == 5) line = v;
  }
  assert_true(id > 0 && id < MAX_ID);
  pp->function_name[id] = name;
  pp->function_line[id] = line;
  pp->nfunctions++;
}

static void read_mapping(pprof_t *pp, rd_t m) {
  uint32_t field;
  uint64_t v;
  rd_t b;
  while (rd_field(&m, &field, &v, &b)) {
    if (field == 1) pp->mapping_id = v;
    if (field == 5) pp->mapping_file = v;
    if (field >= 7 && field <= 9 && v) pp->mapping_flags |= 1u << (field - 7);
    if (field == 2 || field == 3 || field == 4 || field == 10) assert_int_equal(v, 0);
  }
  pp->nmappings++;
}

static void read_pprof(pprof_t *pp, const char *gz, size_t len) {
  size_t n;
  unsigned char *raw = gunzip(gz, len, &n);
  rd_t r = {raw, raw + n}, b;
  uint32_t field;
  uint64_t v;
  memset(pp, 0, sizeof(*pp));
  while (rd_field(&r, &field, &v, &b)) {
    switch (field) {
    case 1:
      assert_true(pp->nsample_types < 4);
      read_value_type(b, pp->sample_type[pp->nsample_types++]);
      break;
    case 2:
      read_sample(pp, b);
      break;
    case 3: /* profile.proto puts mappings before locations; so do we */
      assert_int_equal(pp->nlocations, 0);
      read_mapping(pp, b);
      break;
    case 4:
      read_location(pp, b);
      break;
    case 5:
      read_function(pp, b);
      break;
    case 6:
      assert_true(pp->nstrings < 4096);
      pp->strings[pp->nstrings] = strndup((const char *)b.p, (size_t)(b.end - b.p));
      pp->nstrings++;
      break;
    case 9:
      pp->time_nanos = v;
      break;
    case 10:
      pp->duration_nanos = v;
      break;
    case 11:
      read_value_type(b, pp->period_type);
      break;
    case 12:
      pp->period = v;
      break;
    default:
      fail_msg("unexpected Profile field %u", field);
    }
  }
  free(raw);
}

static void free_pprof(pprof_t *pp) {
  for (uint32_t i = 0; i < pp->nstrings; i++)
    free(pp->strings[i]);
}

static const char *str(const pprof_t *pp, uint64_t i) {
  assert_true(i < pp->nstrings);
  return pp->strings[i];
}

static void pprof_cpu(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  cprof_export_opts_t o = {.interval = 100, .start_time_ms = 1700000000123};
  size_t len;
  char *gz = format_text(CPROF_FORMAT_PPROF, p, &o, &len);
  assert_true(len > 18 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b);
  pprof_t pp;
  read_pprof(&pp, gz, len);
  assert_string_equal(str(&pp, 0), "");
  assert_int_equal(pp.nsample_types, 2);
  assert_string_equal(str(&pp, pp.sample_type[0][0]), "samples");
  assert_string_equal(str(&pp, pp.sample_type[0][1]), "count");
  assert_string_equal(str(&pp, pp.sample_type[1][0]), "cpu");
  assert_string_equal(str(&pp, pp.sample_type[1][1]), "nanoseconds");
  assert_string_equal(str(&pp, pp.period_type[0]), "cpu");
  assert_string_equal(str(&pp, pp.period_type[1]), "nanoseconds");
  assert_int_equal(pp.period, 100 * 1000);
  assert_int_equal(pp.duration_nanos, 1000 * 1000);
  assert_int_equal(pp.time_nanos, UINT64_C(1700000000123) * 1000000);
  /* One Mapping, no main script given: "", resolved, holding every location. */
  assert_int_equal(pp.nmappings, 1);
  assert_int_equal(pp.mapping_id, 1);
  assert_string_equal(str(&pp, pp.mapping_file), "");
  assert_int_equal(pp.mapping_flags, 7);
  assert_int_equal(pp.locations_in_mapping, pp.nlocations);
  /* one sample per stack with samples: work×2 stacks, main, idle, GC */
  assert_int_equal(pp.nsamples, 5);
  assert_int_equal(pp.sums[0], 7);           /* every V8 sample once */
  assert_int_equal(pp.sums[1], 1000 * 1000); /* the total, µs → ns */
  assert_int_equal(pp.max_stack, 3);         /* work ← (anonymous) ← main; no (root) */
  /* every location names a function that exists with a name */
  assert_int_equal(pp.nlocations, pp.nfunctions);
  int seen_work = 0;
  for (uint64_t id = 1; id < MAX_ID; id++) {
    if (pp.location_fn[id] == 0) continue;
    uint64_t fn = pp.location_fn[id];
    const char *name = str(&pp, pp.function_name[fn]);
    assert_true(name[0] != '\0');
    if (strcmp(name, "work<T>&'x';y") == 0) {
      seen_work = 1;
      assert_int_equal(pp.function_line[fn], 20); /* 1-based */
    }
  }
  assert_true(seen_work);
  free_pprof(&pp);
  free(gz);
  cprof_profile_free(p);
}

/* The parts for push: each a whole Profile within the limits, together the
 * profile's samples. */
static void pprof_parts_check(const cprof_profile_t *p, const cprof_export_opts_t *o,
                              uint32_t max_samples, size_t max_bytes, size_t want_parts,
                              uint64_t want_sums[2], uint32_t want_samples) {
  cprof_blob_t *parts;
  size_t n;
  uint64_t sums[2] = {0, 0};
  uint32_t samples = 0;
  assert_int_equal(cprof_export_pprof_parts(p, o, max_samples, max_bytes, &parts, &n), CPROF_OK);
  assert_int_equal(n, want_parts);
  for (size_t i = 0; i < n; i++) {
    pprof_t pp;
    read_pprof(&pp, (const char *)parts[i].data, parts[i].len);
    assert_string_equal(str(&pp, 0), "");
    assert_int_equal(pp.nsample_types, 2);
    assert_int_equal(pp.nmappings, 1);
    assert_int_equal(pp.nlocations, pp.nfunctions); /* only what its samples name */
    assert_int_equal(pp.time_nanos, (uint64_t)o->start_time_ms * 1000000);
    if (max_samples) assert_true(pp.nsamples <= max_samples);
    assert_true(n == 1 || pp.nsamples >= 1);
    sums[0] += pp.sums[0];
    sums[1] += pp.sums[1];
    samples += pp.nsamples;
    free_pprof(&pp);
  }
  assert_int_equal(sums[0], want_sums[0]);
  assert_int_equal(sums[1], want_sums[1]);
  assert_int_equal(samples, want_samples);
  cprof_blobs_free(parts, n);
}

static void pprof_parts(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  cprof_export_opts_t o = {.interval = 100, .start_time_ms = 1700000000123};
  uint64_t cpu[2] = {7, 1000 * 1000};
  pprof_parts_check(p, &o, 0, 0, 1, cpu, 5);     /* no limits: one part */
  pprof_parts_check(p, &o, 16000, 0, 1, cpu, 5); /* within them: one part */
  pprof_parts_check(p, &o, 2, 0, 3, cpu, 5);     /* 2 + 2 + 1 samples */
  pprof_parts_check(p, &o, 0, 1, 5, cpu, 5);     /* every part too large: one sample each */
  cprof_profile_free(p);

  /* Heap for Pyroscope: the count named inuse_objects (alloc_ with collected). */
  p = parse_file(CPROF_FIXTURES "/small.heapprofile");
  for (int collected = 0; collected < 2; collected++) {
    cprof_export_opts_t h = {.interval = 32768, .include_collected = collected, .pprof_objects = 1};
    cprof_blob_t *parts;
    size_t n;
    assert_int_equal(cprof_export_pprof_parts(p, &h, 1, 0, &parts, &n), CPROF_OK);
    assert_true(n > 1);
    pprof_t pp;
    read_pprof(&pp, (const char *)parts[0].data, parts[0].len);
    assert_string_equal(str(&pp, pp.sample_type[0][0]),
                        collected ? "alloc_objects" : "inuse_objects");
    assert_string_equal(str(&pp, pp.sample_type[1][0]), collected ? "alloc_space" : "inuse_space");
    assert_int_equal(pp.nsamples, 1);
    free_pprof(&pp);
    cprof_blobs_free(parts, n);
  }
  cprof_profile_free(p);

  /* No samples: one part, a valid empty Profile. */
  p = parse_ok("{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
               "'lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':[]}],'startTime':0,"
               "'endTime':1000,'samples':[],'timeDeltas':[]}");
  uint64_t none[2] = {0, 0};
  pprof_parts_check(p, &o, 2, 0, 1, none, 0);
  cprof_profile_free(p);
}

/* For Pyroscope (push): no (idle), frames named <file>:<name>:<line> (under
 * pprof_cwd as ./<path>), sample time capped at the thread's CPU time. */
static void pprof_pyroscope(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  cprof_export_opts_t o = {.interval = 100,
                           .start_time_ms = 1700000000123,
                           .pprof_skip_idle = 1,
                           .pprof_unique_names = 1,
                           .pprof_cwd = "/app"};
  uint64_t busy[2] = {6, 900 * 1000}; /* every sample but the (idle) one */
  pprof_parts_check(p, &o, 0, 0, 1, busy, 4);
  pprof_parts_check(p, &o, 1, 0, 4, busy, 4); /* split: no part of (idle) alone */
  size_t len;
  char *gz = format_text(CPROF_FORMAT_PPROF, p, &o, &len);
  pprof_t pp;
  read_pprof(&pp, gz, len);
  const char *want[] = {"./main.js:main:10", "./main.js:work<T>&'x';y:20",
                        "./node_modules/dep/i.js:(anonymous):1", "(garbage collector)"};
  int seen[4] = {0};
  for (uint64_t id = 1; id < MAX_ID; id++) {
    if (pp.location_fn[id] == 0) continue;
    const char *name = str(&pp, pp.function_name[pp.location_fn[id]]);
    assert_true(strcmp(name, "(idle)") != 0);
    for (int i = 0; i < 4; i++)
      seen[i] += strcmp(name, want[i]) == 0;
  }
  for (int i = 0; i < 4; i++)
    assert_int_equal(seen[i], 1);
  free_pprof(&pp);
  free(gz);
  /* Outside pprof_cwd the path stays whole. */
  o.pprof_cwd = "/ap";
  gz = format_text(CPROF_FORMAT_PPROF, p, &o, &len);
  read_pprof(&pp, gz, len);
  int whole = 0;
  for (uint64_t id = 1; id < MAX_ID; id++)
    if (pp.location_fn[id])
      whole += strcmp(str(&pp, pp.function_name[pp.location_fn[id]]), "/app/main.js:main:10") == 0;
  assert_int_equal(whole, 1);
  free_pprof(&pp);
  free(gz);
  /* The thread ran 450 µs of the 900 µs sampled busy: times halve, counts stay. */
  o.pprof_cpu_cap_us = 450;
  uint64_t capped[2] = {6, 450 * 1000};
  pprof_parts_check(p, &o, 0, 0, 1, capped, 4);
  o.pprof_cpu_cap_us = 5000; /* more CPU than sampled: unchanged */
  pprof_parts_check(p, &o, 0, 0, 1, busy, 4);
  cprof_profile_free(p);
}

static void pprof_heap(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.heapprofile");
  for (int collected = 0; collected < 2; collected++) {
    cprof_export_opts_t o = {.interval = 32768,
                             .include_collected = collected,
                             .duration_us = 2500000,
                             .main = "/srv/app/server.js"};
    size_t len;
    char *gz = format_text(CPROF_FORMAT_PPROF, p, &o, &len);
    pprof_t pp;
    read_pprof(&pp, gz, len);
    assert_int_equal(pp.nsample_types, 2);
    /* V8 samples, named so: not Go's estimated object counts. */
    assert_string_equal(str(&pp, pp.sample_type[0][0]), "samples");
    assert_string_equal(str(&pp, pp.sample_type[0][1]), "count");
    assert_string_equal(str(&pp, pp.sample_type[1][0]), collected ? "alloc_space" : "inuse_space");
    assert_string_equal(str(&pp, pp.sample_type[1][1]), "bytes");
    assert_string_equal(str(&pp, pp.period_type[0]), "space");
    assert_string_equal(str(&pp, pp.period_type[1]), "bytes");
    assert_int_equal(pp.period, 32768);
    assert_int_equal(pp.duration_nanos, UINT64_C(2500000000));
    assert_int_equal(pp.time_nanos, 0); /* unknown: left out */
    assert_int_equal(pp.sums[0], p->nsamples);
    assert_int_equal(pp.sums[1], (uint64_t)cprof_profile_total(p));
    assert_int_equal(pp.nmappings, 1);
    assert_string_equal(str(&pp, pp.mapping_file), "/srv/app/server.js");
    assert_int_equal(pp.mapping_flags, 7);
    assert_true(pp.nlocations > 0);
    assert_int_equal(pp.locations_in_mapping, pp.nlocations);
    free_pprof(&pp);
    free(gz);
  }
  cprof_profile_free(p);
}

static void folded_cpu_exact(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  size_t len;
  char *text = format_text(CPROF_FORMAT_FOLDED, p, NULL, &len);
  /* siblings sorted by label; ';' in a name becomes ',' */
  assert_string_equal(text, "(garbage collector) 100\n"
                            "(idle) 100\n"
                            "main (/app/main.js:10) 250\n"
                            "main (/app/main.js:10);(anonymous) (/app/node_modules/dep/i.js:1);"
                            "work<T>&'x',y (/app/main.js:20) 150\n"
                            "main (/app/main.js:10);work<T>&'x',y (/app/main.js:20) 400\n");
  free(text);
  cprof_profile_free(p);
}

/* Sums the counts of folded text. */
static int64_t folded_sum(const char *text, uint32_t *lines) {
  int64_t sum = 0;
  *lines = 0;
  for (const char *s = text; *s;) {
    const char *nl = strchr(s, '\n');
    assert_non_null(nl);
    const char *sp = nl;
    while (sp > s && sp[-1] != ' ')
      sp--;
    assert_true(sp > s);
    sum += strtoll(sp, NULL, 10);
    (*lines)++;
    s = nl + 1;
  }
  return sum;
}

static void folded_totals_fixtures(void **state) {
  (void)state;
  const char *files[] = {CPROF_FIXTURES "/small.cpuprofile", CPROF_FIXTURES "/small.heapprofile"};
  for (int i = 0; i < 2; i++) {
    cprof_profile_t *p = parse_file(files[i]);
    size_t len;
    uint32_t lines;
    char *text = format_text(CPROF_FORMAT_FOLDED, p, NULL, &len);
    assert_int_equal(folded_sum(text, &lines), cprof_profile_total(p));
    assert_true(lines > 3);
    assert_null(strstr(text, "(root)")); /* left out: it is every stack's base */
    free(text);
    cprof_profile_free(p);
  }
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *s = hay; (s = strstr(s, needle)) != NULL; s += strlen(needle))
    n++;
  return n;
}

static void svg_cpu(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  cprof_export_opts_t o = {.title = "a<b>.cpuprofile"};
  size_t len;
  char *svg = format_text(CPROF_FORMAT_SVG, p, &o, &len);
  assert_true(strncmp(svg, "<?xml version=\"1.0\"", 19) == 0);
  assert_non_null(strstr(svg, "</svg>\n"));
  assert_non_null(strstr(svg, "CPU flame graph: a&lt;b&gt;.cpuprofile"));
  assert_non_null(strstr(svg, "work&lt;T&gt;&amp;&#39;x&#39;;y (/app/main.js:20)"));
  assert_null(strstr(svg, "work<T>"));
  /* frames: root, main, GC, idle, work, (anonymous), work */
  assert_int_equal(count(svg, "<g class=\"f\""), 7);
  assert_int_equal(count(svg, "<script"), 1);
  assert_int_equal(count(svg, "]]>"), 1); /* only the script's CDATA end */
  assert_null(strstr(svg, "href"));       /* nothing to fetch */
  assert_null(strstr(svg, "src="));
  free(svg);
  cprof_profile_free(p);
}

/* A long title keeps its start and its end (the file name) around "…". */
static void svg_long_title(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  char title[300];
  memset(title, 'd', 200);
  strcpy(title + 200, "/profile-after.cpuprofile");
  cprof_export_opts_t o = {.title = title};
  size_t len;
  char *svg = format_text(CPROF_FORMAT_SVG, p, &o, &len);
  const char *t = strstr(svg, "<text id=\"title\"");
  assert_non_null(t);
  const char *end = strstr(t, "</text>");
  assert_non_null(strstr(t, "CPU flame graph: ddd"));
  const char *ell = strstr(t, "\xE2\x80\xA6");
  assert_true(ell != NULL && ell < end);
  assert_true(strncmp(end - 24, "profile-after.cpuprofile", 24) == 0);
  /* at most 68 code points: "CPU flame graph: " and the fitted title */
  char *copy = strndup(t, (size_t)(end - t));
  assert_true(cprof__utf8_len(strchr(copy, '>') + 1) <= 68);
  free(copy);
  free(svg);
  cprof_profile_free(p);
}

/* A root with one wide child and 3000 children of 1 µs each: the narrow
 * ones become one merged frame, not 3000. */
static void svg_merges_narrow_frames(void **state) {
  (void)state;
  sbuf_t b = {0};
  const uint32_t narrow = 3000;
  sb_printf(&b, "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":"
                "\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[");
  for (uint32_t i = 0; i <= narrow; i++)
    sb_printf(&b, "%s%u", i ? "," : "", i + 2);
  sb_printf(&b, "]}");
  for (uint32_t i = 0; i <= narrow; i++)
    sb_printf(&b,
              ",{\"id\":%u,\"callFrame\":{\"functionName\":\"f%05u\",\"scriptId\":\"1\",\"url\":"
              "\"file:///a.js\",\"lineNumber\":%u,\"columnNumber\":0}}",
              i + 2, i, i);
  /* sample 0 in the wide f00000 (weight 100000), then one 1 µs sample each */
  sb_printf(&b, "],\"startTime\":0,\"endTime\":%u,\"samples\":[", 100000 + narrow);
  for (uint32_t i = 0; i <= narrow; i++)
    sb_printf(&b, "%s%u", i ? "," : "", i + 2);
  sb_printf(&b, "],\"timeDeltas\":[0");
  for (uint32_t i = 1; i <= narrow; i++)
    sb_printf(&b, ",%u", i == 1 ? 100000 : 1);
  sb_printf(&b, "]}");
  cprof_profile_t *p = parse_raw(b.s, b.len);
  free(b.s);
  size_t len;
  char *svg = format_text(CPROF_FORMAT_SVG, p, NULL, &len);
  assert_int_equal(count(svg, "<g class=\"f\""), 3); /* root, f00000, the merged run */
  assert_non_null(strstr(svg, "data-run=\"(3000 frames)\""));
  free(svg);
  cprof_profile_free(p);
}

static void svg_heap_and_empty(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.heapprofile");
  size_t len;
  char *svg = format_text(CPROF_FORMAT_SVG, p, NULL, &len);
  assert_non_null(strstr(svg, "Heap allocation flame graph"));
  assert_non_null(strstr(svg, "makeObjects"));
  free(svg);
  cprof_profile_free(p);
  /* no samples: the root alone, full width, no division by zero */
  p = parse_ok("{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
               "'lineNumber':-1,'columnNumber':-1}}],'startTime':0,'endTime':0,'samples':[],"
               "'timeDeltas':[]}");
  svg = format_text(CPROF_FORMAT_SVG, p, NULL, &len);
  assert_int_equal(count(svg, "<g class=\"f\""), 1);
  assert_non_null(strstr(svg, "width=\"1180.00\""));
  assert_null(strstr(svg, "\"nan"));
  assert_null(strstr(svg, "\"-nan"));
  assert_null(strstr(svg, "\"inf"));
  free(svg);
  cprof_profile_free(p);
}

static void report_sections(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(CPU);
  cprof_export_opts_t o = {.title = "x.cpuprofile", .top = 2, .cut_percent = 20, .focus = "work"};
  size_t len;
  char *text = format_text(CPROF_FORMAT_TXT, p, &o, &len);
  assert_non_null(
      strstr(text, "x.cpuprofile\nCPU profile: 7 samples, 1.00 ms sampled over 1.00 ms"));
  assert_non_null(strstr(text, "(idle) 10.0%, (program) 0.0%, (garbage collector) 10.0%"));
  assert_non_null(strstr(text, "Top 2 functions by self time"));
  /* work's two nodes merge in the flat profile: 550 µs */
  assert_non_null(strstr(text, "0.55 ms   55.0%        0.55 ms   55.0%  work<T>&'x';y"));
  assert_non_null(strstr(text, "Top 2 functions by total time"));
  assert_non_null(strstr(text, "0.25 ms   25.0%        0.80 ms   80.0%  main (/app/main.js:10)"));
  /* cut at 20%: (anonymous) (15%) and its child are not in the tree */
  const char *tree = strstr(text, "Call tree (top-down), nodes with at least 20% of the total");
  assert_non_null(tree);
  const char *callers = strstr(text, "Callers of work");
  assert_non_null(callers);
  assert_null(memmem(tree, (size_t)(callers - tree), "(anonymous)", 11));
  assert_non_null(strstr(tree, "\xE2\x94\x94\xE2\x94\x80 work<T>&'x';y (/app/main.js:20)"));
  /* callers: both call paths of work, with their share */
  assert_non_null(strstr(callers, "0.55 ms, 55.0% of the total"));
  assert_non_null(strstr(callers, "main (/app/main.js:10)"));
  assert_int_equal(cprof_report_matches(p, "work"), 1); /* a substring of its label */
  assert_int_equal(cprof_report_matches(p, "main"), 1);
  assert_int_equal(cprof_report_matches(p, "nothing-like-it"), 0);
  free(text);
  cprof_profile_free(p);
}

/* A CPU profile that is one call chain depth frames deep: f0..f6 over and
 * over under the root, leaf at the bottom with the only sample. */
static cprof_profile_t *cpu_chain(uint32_t depth) {
  sbuf_t b = {0};
  sb_printf(&b, "{\"nodes\":[");
  for (uint32_t id = 1; id <= depth + 1; id++) {
    int leaf = id == depth + 1;
    char name[16];
    snprintf(name, sizeof(name), id == 1 ? "(root)" : leaf ? "leaf" : "f%u", id % 7);
    sb_printf(&b,
              "%s{\"id\":%u,\"callFrame\":{\"functionName\":\"%s\",\"scriptId\":\"1\","
              "\"url\":\"%s\",\"lineNumber\":%u,\"columnNumber\":0},\"hitCount\":%d",
              id > 1 ? "," : "", id, name, id == 1 ? "" : "file:///app/deep.js", id % 7, leaf);
    if (!leaf) sb_printf(&b, ",\"children\":[%u]", id + 1);
    sb_printf(&b, "}");
  }
  sb_printf(&b, "],\"startTime\":0,\"endTime\":1000,\"samples\":[%u],\"timeDeltas\":[10]}",
            depth + 1);
  cprof_profile_t *p = parse_raw(b.s, b.len);
  free(b.s);
  return p;
}

static size_t longest_line(const char *s) {
  size_t best = 0;
  for (const char *nl; *s; s = nl + 1) {
    nl = strchr(s, '\n');
    if (nl == NULL) nl = s + strlen(s) - 1;
    if ((size_t)(nl - s) > best) best = (size_t)(nl - s);
  }
  return best;
}

/* Issue 32: a 100,000-deep chain used to print a line per level with an
 * indentation growing with it (quadratic: 150 MB at 10,000 levels). The
 * trees stop at 256 levels, guides at 64, and say what is left out. */
static void report_deep_chain_elided(void **state) {
  (void)state;
  cprof_profile_t *p = cpu_chain(100000);
  cprof_export_opts_t o = {.focus = "leaf"};
  size_t len;
  char *text = format_text(CPROF_FORMAT_TXT, p, &o, &len);
  assert_true(len < 256 * 1024);
  assert_true(longest_line(text) < 60 + 64 * 5 + 100);
  const char *tree = strstr(text, "Call tree (top-down)");
  const char *callers = strstr(text, "Callers of leaf (/app/deep.js:");
  assert_non_null(tree);
  assert_non_null(callers);
  /* the root, levels 1..256, then one line for the 99,744 levels below */
  assert_non_null(strstr(tree, "[+191] \xE2\x94\x94\xE2\x94\x80 f"));
  const char *more =
      strstr(tree, "[+192] \xE2\x94\x94\xE2\x94\x80 \xE2\x80\xA6 99744 more levels\n");
  assert_non_null(more);
  assert_true(more < callers);
  /* leaf's callers: 99,999 of them (not the root), 256 shown */
  assert_non_null(
      strstr(callers, "[+192] \xE2\x94\x94\xE2\x94\x80 \xE2\x80\xA6 99743 more levels\n"));
  free(text);
  cprof_profile_free(p);
  /* at the limit nothing is left out */
  p = cpu_chain(256);
  text = format_text(CPROF_FORMAT_TXT, p, NULL, &len);
  assert_non_null(strstr(text, "[+191] \xE2\x94\x94\xE2\x94\x80 leaf (/app/deep.js:"));
  assert_null(strstr(text, "more level"));
  free(text);
  cprof_profile_free(p);
}

/* Heap profiles are bytes: the callers' note says so, not "time". */
static void report_heap_callers_in_bytes(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.heapprofile");
  cprof_export_opts_t o = {.focus = "Module._load"};
  size_t len;
  char *text = format_text(CPROF_FORMAT_TXT, p, &o, &len);
  const char *callers = strstr(text, "Callers of Module._load");
  assert_non_null(callers);
  assert_non_null(strstr(callers, "with the bytes the function allocated below it"));
  assert_null(strstr(text, "the time"));
  free(text);
  cprof_profile_free(p);
}

/* Issue 32: ESC, BEL, CR, LF in names, urls, the title and the focus name
 * reach the report and the diff escaped: no control byte but the line
 * ends. */
static void text_outputs_escape_controls(void **state) {
  (void)state;
  cprof_profile_t *p =
      parse_ok("{'nodes':[{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'',"
               "'lineNumber':-1,'columnNumber':-1},'children':[2]},"
               "{'id':2,'callFrame':{'functionName':'\\u001b]0;pwned\\u0007\\u001b[2Jx\\r\\ny',"
               "'scriptId':'1','url':'file:///a\\u001b[31m.js','lineNumber':0,'columnNumber':0}}],"
               "'startTime':0,'endTime':100,'samples':[2],'timeDeltas':[10]}");
  cprof_export_opts_t o = {.title = "t\x1b[1m", .focus = "\x1b]0;pwned"};
  for (int pass = 0; pass < 3; pass++) {
    size_t len;
    char *text;
    if (pass < 2) {
      if (pass == 1) o.focus = "\x1b[K";
      text = format_text(CPROF_FORMAT_TXT, p, &o, &len);
    } else {
      FILE *f = tmpfile();
      assert_non_null(f);
      assert_int_equal(cprof_diff_text(p, p, &o, f), 0);
      text = slurp(f, &len);
      fclose(f);
    }
    for (size_t i = 0; i < len; i++)
      if ((unsigned char)text[i] < 0x20 && text[i] != '\n')
        fail_msg("pass %d: raw control byte 0x%02x at %zu", pass, (unsigned char)text[i], i);
    assert_non_null(strstr(text, "t\\x1b[1m\n"));
    assert_non_null(strstr(text, "\\x1b]0;pwned\\x07\\x1b[2Jx\\r\\ny (/a\\x1b[31m.js:1)"));
    if (pass == 0) assert_non_null(strstr(text, "Callers of \\x1b]0;pwned"));
    if (pass == 1) assert_non_null(strstr(text, "No function matches \"\\x1b[K\""));
    free(text);
  }
  cprof_profile_free(p);
}

/* The title line, whatever the kind's words, keeps clear of the search box:
 * at most TITLE_MAX (68) code points. */
static void svg_title_fits(void **state) {
  (void)state;
  const char *files[] = {CPROF_FIXTURES "/small.cpuprofile", CPROF_FIXTURES "/small.heapprofile"};
  char title[201];
  memset(title, 'x', 200);
  title[200] = '\0';
  cprof_export_opts_t o = {.title = title};
  for (int i = 0; i < 2; i++) {
    cprof_profile_t *p = parse_file(files[i]);
    size_t len;
    char *svg = format_text(CPROF_FORMAT_SVG, p, &o, &len);
    const char *start = strstr(svg, "<text id=\"title\" x=\"600\" y=\"24\">");
    assert_non_null(start);
    start = strchr(start, '>') + 1;
    const char *end = strstr(start, "</text>");
    size_t points = 0;
    for (const char *c = start; c < end; c++)
      points += ((unsigned char)*c & 0xC0) != 0x80;
    assert_true(points <= 68);
    assert_true(points >= 60); /* and uses the room it has */
    free(svg);
    cprof_profile_free(p);
  }
}

/* A V8 builtin the app calls (map: no script) counts as app code in the
 * legend and takes the app's colours; (program) stays native. */
static void svg_builtins_count_with_their_caller(void **state) {
  (void)state;
  cprof_profile_t *p = parse_ok(
      "{'nodes':["
      "{'id':1,'callFrame':{'functionName':'(root)','scriptId':'0','url':'','lineNumber':-1,"
      "'columnNumber':-1},'children':[2,4]},"
      "{'id':2,'callFrame':{'functionName':'main','scriptId':'3','url':'file:///app/main.js',"
      "'lineNumber':9,'columnNumber':4},'children':[3]},"
      "{'id':3,'callFrame':{'functionName':'map','scriptId':'0','url':'','lineNumber':-1,"
      "'columnNumber':-1}},"
      "{'id':4,'callFrame':{'functionName':'(program)','scriptId':'0','url':'','lineNumber':-1,"
      "'columnNumber':-1}}],"
      "'startTime':0,'endTime':400,'samples':[3,3,3,4],'timeDeltas':[0,100,100,100]}");
  size_t len;
  char *svg = format_text(CPROF_FORMAT_SVG, p, NULL, &len);
  assert_non_null(strstr(svg, ">app code 75.0%</text>"));
  assert_non_null(strstr(svg, ">native, V8, GC 25.0%</text>"));
  /* map's rect is orange (the app's hues), (program)'s grey (r == g == b) */
  const char *map = strstr(svg, "<title>map");
  assert_non_null(map);
  int r, g, b;
  assert_int_equal(sscanf(strstr(map, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &g, &b), 3);
  assert_true(r > g && g > b);
  const char *prog = strstr(svg, "<title>(program)");
  assert_non_null(prog);
  assert_int_equal(sscanf(strstr(prog, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &g, &b), 3);
  assert_true(r == g && g == b);
  free(svg);
  cprof_profile_free(p);
}

static void diff_table_and_svg(void **state) {
  (void)state;
  cprof_profile_t *a = parse_ok(CPU);
  /* after: work under main takes 700 of 1300 instead of 400 of 1000 */
  char *after_json = dq(CPU);
  char *at = strstr(after_json, "\"endTime\":2000");
  assert_non_null(at);
  memcpy(at, "\"endTime\":2300", 14);
  cprof_profile_t *b = parse_raw(after_json, strlen(after_json));
  free(after_json);
  FILE *f = tmpfile();
  size_t len;
  assert_non_null(f);
  cprof_export_opts_t o = {.title = "a → b"};
  assert_int_equal(cprof_diff_text(a, b, &o, f), 0);
  char *text = slurp(f, &len);
  fclose(f);
  assert_non_null(strstr(text, "a → b\nbefore: 7 samples, 1.00 ms, busy 0.90 ms; after: 7 samples, "
                               "1.30 ms, busy 1.20 ms\nShares are % of each profile's busy time"));
  /* shares of busy time (the total without (idle)'s 100 µs): work: 550 of 900 (61.11%) → 850 of
   * 1200 (70.83%), the biggest change, first */
  const char *row = strstr(text, "work<T>");
  assert_non_null(row);
  assert_non_null(strstr(text, "0.55 ms       0.85 ms   61.11%   70.83%    +9.72"));
  assert_null(strstr(text, "  (idle)\n"));                  /* waiting is not ranked: no row */
  assert_non_null(strstr(text, "  (garbage collector)\n")); /* GC is CPU work: a row */
  free(text);
  /* diff_json: every ranked function, busy time and samples per side */
  f = tmpfile();
  assert_non_null(f);
  o.diff_json = 1;
  assert_int_equal(cprof_diff_text(a, b, &o, f), 0);
  o.diff_json = 0;
  text = slurp(f, &len);
  fclose(f);
  cJSON *j = cJSON_Parse(text);
  assert_non_null(j);
  assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring, "cpu");
  assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "busy"), 0)->valuedouble, 900);
  assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "idle"), 1)->valuedouble, 100);
  assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "busySamples"), 0)->valuedouble, 6);
  const cJSON *fns = cJSON_GetObjectItem(j, "functions"), *first = cJSON_GetArrayItem(fns, 0);
  assert_string_equal(cJSON_GetObjectItem(first, "name")->valuestring, "work<T>&'x';y");
  assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(first, "self"), 1)->valuedouble, 850);
  const cJSON *fn;
  cJSON_ArrayForEach(fn, fns) {
    assert_string_not_equal(cJSON_GetObjectItem(fn, "name")->valuestring, "(idle)");
    assert_string_not_equal(cJSON_GetObjectItem(fn, "name")->valuestring, "(root)");
  }
  cJSON_Delete(j);
  free(text);
  f = tmpfile();
  assert_int_equal(cprof_diff_svg(a, b, &o, f), 0);
  text = slurp(f, &len);
  fclose(f);
  assert_non_null(strstr(text, "Differential flame graph: a \xE2\x86\x92 b"));
  assert_non_null(strstr(text, "fill=\"rgb(255,0,0)\"")); /* the largest growth: full red */
  assert_non_null(strstr(text, ",255)\""));               /* something shrank: blue */
  /* (idle) has no share of busy time: grey, and the subtitle says what shares are of */
  const char *idle = strstr(text, "<title>(idle)");
  int r, g, bl;
  assert_non_null(idle);
  assert_int_equal(sscanf(strstr(idle, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &g, &bl), 3);
  assert_true(r == g && g == bl);
  assert_non_null(strstr(text, "change of self share of busy time"));
  free(text);
  cprof_profile_t *h = parse_file(CPROF_FIXTURES "/small.heapprofile");
  f = tmpfile();
  assert_int_equal(cprof_diff_text(a, h, NULL, f), CPROF_EINVAL); /* CPU vs heap */
  fclose(f);
  cprof_profile_free(h);
  cprof_profile_free(a);
  cprof_profile_free(b);
}

static void write_format_atomic(void **state) {
  (void)state;
  char dir[] = "/tmp/cprof-formats-XXXXXX", err[256] = "";
  assert_non_null(mkdtemp(dir));
  cprof_profile_t *p = parse_ok(CPU);
  for (int fmt = 0; fmt < CPROF_FORMAT_COUNT; fmt++) {
    char name[64], path[512];
    struct stat st;
    long long size = -1;
    snprintf(name, sizeof(name), "out.%s", cprof_format_ext((cprof_format_t)fmt));
    assert_int_equal(
        cprof_write_format(dir, name, (cprof_format_t)fmt, p, NULL, &size, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, size);
    assert_true(size > 0);
    unlink(path);
  }
  assert_int_equal(
      cprof_write_format(dir, "x", CPROF_FORMAT_COUNT, p, NULL, NULL, err, sizeof(err)),
      CPROF_EINVAL);
  assert_non_null(strstr(err, "unknown output format"));
  /* a directory that does not exist: EIO, named in the message, nothing left */
  char missing[600];
  snprintf(missing, sizeof(missing), "%s/no/such/dir", dir);
  assert_int_equal(
      cprof_write_format(missing, "a.svg", CPROF_FORMAT_SVG, p, NULL, NULL, err, sizeof(err)),
      CPROF_EIO);
  assert_non_null(strstr(err, "a.svg"));
  assert_int_equal(rmdir(dir), 0); /* empty: no temp file was left */
  cprof_profile_free(p);
}

static void write_errors_are_eio(void **state) {
  (void)state;
  cprof_profile_t *p = parse_file(CPROF_FIXTURES "/small.cpuprofile");
  for (int fmt = 0; fmt < CPROF_FORMAT_COUNT; fmt++) {
    FILE *f = fopen("/dev/full", "w");
    if (f == NULL) skip();
    assert_int_equal(cprof_export_format((cprof_format_t)fmt, p, NULL, f), CPROF_EIO);
    fclose(f);
  }
  cprof_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pprof_cpu),
      cmocka_unit_test(pprof_heap),
      cmocka_unit_test(pprof_parts),
      cmocka_unit_test(pprof_pyroscope),
      cmocka_unit_test(folded_cpu_exact),
      cmocka_unit_test(folded_totals_fixtures),
      cmocka_unit_test(svg_cpu),
      cmocka_unit_test(svg_long_title),
      cmocka_unit_test(svg_merges_narrow_frames),
      cmocka_unit_test(svg_heap_and_empty),
      cmocka_unit_test(report_heap_callers_in_bytes),
      cmocka_unit_test(svg_title_fits),
      cmocka_unit_test(svg_builtins_count_with_their_caller),
      cmocka_unit_test(report_sections),
      cmocka_unit_test(report_deep_chain_elided),
      cmocka_unit_test(text_outputs_escape_controls),
      cmocka_unit_test(diff_table_and_svg),
      cmocka_unit_test(write_format_atomic),
      cmocka_unit_test(write_errors_are_eio),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
