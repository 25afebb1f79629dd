/* The in-process inspector session driver.
 *
 * Two transports behind one call: Node's raw inspector Connection (replies
 * arrive as the JSON text V8 wrote, so a large profile is never parsed into JS
 * objects on the main thread), or the public node:inspector Session (replies
 * are JS objects, turned back into JSON text here). Either way a call returns
 * the reply message as JSON text, which the core parses off the main thread.
 * For an in-process session every reply arrives synchronously inside the
 * dispatch, so a call completes before it returns. */
#ifndef CPROF_INSPECTOR_H
#define CPROF_INSPECTOR_H

#include <node_api.h>
#include <stddef.h>

typedef struct cprof_insp_s cprof_insp_t;

/* Opens a session. On failure throws ERR_CPROF_INSPECTOR and returns NULL. */
cprof_insp_t *cprof__insp_open(napi_env env);

/* Posts method with params (JSON text or NULL) and gives back the reply
 * message ({"id":N,"result":...} or {"id":N,"error":...}), malloc'd, NUL
 * terminated, owned by the caller. On failure throws and returns -1. */
int cprof__insp_call(napi_env env, cprof_insp_t *insp, const char *method, const char *params,
                     char **reply, size_t *len);

/* cprof__insp_call for small replies: throws ERR_CPROF_INSPECTOR when the
 * reply is an error. Returns 0 or -1. */
int cprof__insp_call_ok(napi_env env, cprof_insp_t *insp, const char *method, const char *params);

/* Disconnects and frees. Safe with NULL. Never throws. */
void cprof__insp_close(napi_env env, cprof_insp_t *insp);

/* Frees without calling into JS: for environment teardown, when no JS may
 * run and Node drops the session itself. Safe with NULL. */
void cprof__insp_abandon(napi_env env, cprof_insp_t *insp);

/* Notifications ({"method":...,"params":...}) are dropped unless a handler
 * is set: then each one goes to fn as malloc'd, NUL-terminated JSON text
 * that fn owns (the recorder catches Profiler.consoleProfileFinished). On
 * the Session transport this subscribes to 'inspectorNotification' and
 * serialises each message. 0, or -1 after throwing. */
typedef void (*cprof_insp_note_fn)(void *ctx, char *json, size_t len);
int cprof__insp_on_note(napi_env env, cprof_insp_t *insp, cprof_insp_note_fn fn, void *ctx);

/* HeapProfiler.startSampling's params into buf: interval bytes, depth
 * frames per stack, collected: keep objects GC has collected (both kinds).
 * heap.start() through the inspector and the recorder's heap windows. */
void cprof__insp_heap_params(char *buf, size_t len, double interval, double depth, int collected);

/* Line ends first. V8 before Node 23 (crbug 41497149, nodejs/node#65140)
 * can deadlock the main thread as a CPU profiler starts: it logs every
 * compiled function under its logger's lock, logging computes the line ends
 * of each script that has none yet, and when that allocation starts a full
 * GC, the GC's code-moving event takes the same lock. Enabling and disabling
 * the Debugger domain computes every script's line ends first, outside the
 * lock (~30 ms for 350 scripts). cprof__insp_line_ends_needed: 1 on Node
 * 20 and 22 (the commands go before Profiler.start); cprof__insp_line_ends
 * posts them there. 0, or -1 after throwing. */
int cprof__insp_line_ends_needed(napi_env env);
int cprof__insp_line_ends(napi_env env, cprof_insp_t *insp);

/* "connection" or "session": which transport this session uses. */
const char *cprof__insp_transport(const cprof_insp_t *insp);

#endif
