/* The recorder's continuous mode: one file per finished window in a store
 * directory, named <kind>-<pid>-<fromMs>-<toMs>.<ext> (kind cpu or heap,
 * times in ms since the epoch, ext cpuprofile, heapprofile or pb.gz), and
 * retention by age and bytes over the directory. */
#ifndef CPROF_STORE_H
#define CPROF_STORE_H

#include <stddef.h>
#include <stdint.h>

/* Writes the file name into buf; CPROF_OK or CPROF_EINVAL when it does not
 * fit. */
int cprof_store_name(char *buf, size_t len, const char *kind, long pid, int64_t from_ms,
                     int64_t to_ms, const char *ext);

/* 1 when name is a finished store file (temporary files of a write in
 * progress, in this process or another, never are), with its end time. */
int cprof_store_parse_name(const char *name, int64_t *to_ms);

typedef struct {
  unsigned files;           /* store files seen */
  unsigned long long bytes; /* their size, after pruning */
  unsigned deleted;         /* files deleted */
} cprof_store_prune_t;

/* Deletes store files in dir that ended more than max_age_ms before now_ms
 * (0: no age limit), then the oldest ones while the rest is above
 * max_bytes (0: no limit). Files ending at or after keep_from_ms (the
 * window just written) are never deleted. Only finished names are touched,
 * so a file another process is writing (still under its temporary name)
 * is safe. CPROF_OK or CPROF_EIO / CPROF_ENOMEM with errbuf. */
int cprof_store_prune(const char *dir, int64_t now_ms, int64_t max_age_ms,
                      unsigned long long max_bytes, int64_t keep_from_ms, cprof_store_prune_t *out,
                      char *errbuf, size_t errlen);

/* For a full disk: deletes the oldest store files in dir that ended before
 * keep_from_ms, oldest first, until at least min_bytes are freed, and at
 * least one window (min_bytes 0: the oldest one): the files that end at
 * the same time as the last one deleted go too. out->deleted and out->bytes
 * (the bytes freed) say what went; deleted 0 means nothing older is left.
 * Only finished store names are touched, as for cprof_store_prune.
 * CPROF_OK or CPROF_EIO / CPROF_ENOMEM with errbuf. */
int cprof_store_evict(const char *dir, int64_t keep_from_ms, unsigned long long min_bytes,
                      cprof_store_prune_t *out, char *errbuf, size_t errlen);

#endif
