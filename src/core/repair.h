/* v8.startCpuProfile's text made JSON (repair.c). */
#ifndef CPROF_REPAIR_H
#define CPROF_REPAIR_H

#include <stddef.h>

/* The CPU profile text of v8.startCpuProfile().stop() on Node 24.x-26.x,
 * whose callFrame functionName and url values V8 writes unescaped, with
 * both escaped. *out is malloc'd and NUL-terminated
 * (*out_len leaves the NUL out); *nframes (may be NULL) counts the frames.
 * CPROF_OK; CPROF_EPARSE when a frame's values cannot be cut (the caller
 * falls back); CPROF_ENOMEM; CPROF_EINVAL. The result can still fail to
 * parse (a name holding a whole fake tail): parse it. */
int cprof_cpu_text_repair(const char *text, size_t len, char **out, size_t *out_len,
                          size_t *nframes);

#endif
