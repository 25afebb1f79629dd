#include "inspector.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "jsutil.h"
#include "macros.h"

struct cprof_insp_s {
  napi_ref conn; /* the Connection or Session object */
  int raw;       /* 1: raw Connection, 0: node:inspector Session */
  unsigned next_id;
  char *reply; /* the reply to the call in flight */
  size_t reply_len;
  cprof_insp_note_fn on_note; /* notifications, or NULL to drop them */
  void *note_ctx;
};

static void insp_fail(napi_env env, const char *what) {
  char msg[768];
  snprintf(
      msg, sizeof msg,
      "cannot use the V8 inspector: %.400s. Run a Node.js built with the inspector, and do not "
      "disable it (--inspect-port=0 and --without-inspector builds cannot profile)",
      what);
  cprof__throw(env, "ERR_CPROF_INSPECTOR", msg);
}

static void set_reply(cprof_insp_t *insp, char *buf, size_t len) {
  free(insp->reply);
  insp->reply = buf;
  insp->reply_len = len;
}

/* JSON.stringify(value) as a malloc'd string. */
static int stringify(napi_env env, napi_value value, char **out, size_t *len) {
  napi_value json = cprof__js_global(env, "JSON"), fn, str;
  if (!json) return -1;
  NAPI_CALL_INT(env, napi_get_named_property(env, json, "stringify", &fn));
  NAPI_CALL_INT(env, napi_call_function(env, json, fn, 1, &value, &str));
  return cprof__js_string_copy(env, str, out, len);
}

/* Connection callback: (message: string). Notifications are dropped. */
static napi_value on_raw_message(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  cprof_insp_t *insp;
  char *buf;
  size_t len;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, (void **)&insp));
  if (argc < 1 || cprof__js_string_copy(env, argv[0], &buf, &len) != 0) return NULL;
  if (strncmp(buf, "{\"method\":", 10) == 0) {
    if (insp->on_note)
      insp->on_note(insp->note_ctx, buf, len);
    else
      free(buf);
    return NULL;
  }
  set_reply(insp, buf, len);
  return NULL;
}

/* Session#post callback: (err, result). Re-serialised as a reply message. */
static napi_value on_session_reply(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], msg, key_value;
  napi_valuetype t;
  cprof_insp_t *insp;
  char *buf;
  size_t len;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, (void **)&insp));
  NAPI_CALL(env, napi_create_object(env, &msg));
  NAPI_CALL(env, napi_typeof(env, argv[0], &t));
  if (t == napi_object) {
    NAPI_CALL(env, napi_get_named_property(env, argv[0], "message", &key_value));
    napi_value err;
    NAPI_CALL(env, napi_create_object(env, &err));
    NAPI_CALL(env, napi_set_named_property(env, err, "message", key_value));
    NAPI_CALL(env, napi_set_named_property(env, msg, "error", err));
  } else {
    NAPI_CALL(env, napi_set_named_property(env, msg, "result", argv[1]));
  }
  if (stringify(env, msg, &buf, &len) != 0) return NULL;
  set_reply(insp, buf, len);
  return NULL;
}

static napi_value construct(napi_env env, napi_value ctor, size_t argc, napi_value *argv) {
  napi_value obj;
  NAPI_CALL(env, napi_new_instance(env, ctor, argc, argv, &obj));
  return obj;
}

/* Whether process.execArgv holds flag (Node flags given on the command line;
 * NODE_OPTIONS is read from the environment). */
static int exec_argv_has(napi_env env, napi_value process, const char *flag) {
  napi_value argv, item;
  uint32_t n = 0;
  char buf[64];
  size_t len;
  if (napi_get_named_property(env, process, "execArgv", &argv) != napi_ok ||
      napi_get_array_length(env, argv, &n) != napi_ok)
    return 0;
  for (uint32_t i = 0; i < n; i++) {
    if (napi_get_element(env, argv, i, &item) == napi_ok &&
        napi_get_value_string_utf8(env, item, buf, sizeof buf, &len) == napi_ok &&
        strcmp(buf, flag) == 0)
      return 1;
  }
  return 0;
}

/* process.binding('inspector').Connection, or NULL (no exception) when it
 * is missing or unwanted: --pending-deprecation would print a warning in the
 * host app, and CPROF_TRANSPORT=session asks for the public API. */
static napi_value raw_connection_class(napi_env env) {
  const char *t = getenv("CPROF_TRANSPORT");
  const char *opts = getenv("NODE_OPTIONS");
  const char *pend = getenv("NODE_PENDING_DEPRECATION");
  if ((t && strcmp(t, "session") == 0) || (opts && strstr(opts, "--pending-deprecation")) ||
      (pend && strcmp(pend, "1") == 0))
    return NULL;
  napi_value process = cprof__js_global(env, "process"), fn, name, binding, ctor, exc;
  napi_valuetype type;
  if (!process || exec_argv_has(env, process, "--pending-deprecation")) return NULL;
  if (napi_get_named_property(env, process, "binding", &fn) != napi_ok ||
      napi_typeof(env, fn, &type) != napi_ok || type != napi_function ||
      napi_create_string_utf8(env, "inspector", NAPI_AUTO_LENGTH, &name) != napi_ok)
    return NULL;
  if (napi_call_function(env, process, fn, 1, &name, &binding) != napi_ok) {
    napi_get_and_clear_last_exception(env, &exc);
    return NULL;
  }
  if (napi_typeof(env, binding, &type) != napi_ok || type != napi_object ||
      napi_get_named_property(env, binding, "Connection", &ctor) != napi_ok ||
      napi_typeof(env, ctor, &type) != napi_ok || type != napi_function)
    return NULL;
  return ctor;
}

static int open_raw(napi_env env, cprof_insp_t *insp, napi_value ctor) {
  napi_value cb, conn;
  NAPI_CALL_INT(env, napi_create_function(env, "cprofOnMessage", NAPI_AUTO_LENGTH, on_raw_message,
                                          insp, &cb));
  if (!(conn = construct(env, ctor, 1, &cb))) return -1;
  insp->raw = 1;
  NAPI_CALL_INT(env, napi_create_reference(env, conn, 1, &insp->conn));
  return 0;
}

static int open_session(napi_env env, cprof_insp_t *insp) {
  napi_value mod = cprof__js_builtin(env, "node:inspector"), ctor, session, connect, ignored;
  if (!mod) {
    insp_fail(env, "node:inspector is not available (Node.js >= 20.16 built with the inspector "
                   "is required)");
    return -1;
  }
  NAPI_CALL_INT(env, napi_get_named_property(env, mod, "Session", &ctor));
  if (!(session = construct(env, ctor, 0, NULL))) {
    char cause[256], what[320];
    cprof__js_take_exception(env, cause, sizeof cause);
    snprintf(what, sizeof what, "new inspector.Session() failed (%s)", cause);
    insp_fail(env, what);
    return -1;
  }
  NAPI_CALL_INT(env, napi_get_named_property(env, session, "connect", &connect));
  if (napi_call_function(env, session, connect, 0, NULL, &ignored) != napi_ok) {
    char cause[256], what[320];
    cprof__js_take_exception(env, cause, sizeof cause);
    snprintf(what, sizeof what, "inspector.Session#connect() failed (%s)", cause);
    insp_fail(env, what);
    return -1;
  }
  NAPI_CALL_INT(env, napi_create_reference(env, session, 1, &insp->conn));
  return 0;
}

cprof_insp_t *cprof__insp_open(napi_env env) {
  cprof_insp_t *insp = calloc(1, sizeof *insp);
  if (!insp) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory opening an inspector session");
    return NULL;
  }
  napi_value ctor = raw_connection_class(env);
  if ((ctor ? open_raw(env, insp, ctor) : open_session(env, insp)) != 0) {
    free(insp);
    return NULL;
  }
  return insp;
}

static int dispatch_raw(napi_env env, napi_value conn, unsigned id, const char *method,
                        const char *params) {
  size_t n = strlen(method) + (params ? strlen(params) : 0) + 64;
  char *msg = malloc(n);
  napi_value fn, str, ignored;
  if (!msg) {
    cprof__throw(env, "ERR_CPROF_NOMEM", "out of memory posting to the inspector");
    return -1;
  }
  snprintf(msg, n, "{\"id\":%u,\"method\":\"%s\"%s%s}", id, method, params ? ",\"params\":" : "",
           params ? params : "");
  napi_status s = napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &str);
  free(msg);
  NAPI_CALL_INT(env, s);
  NAPI_CALL_INT(env, napi_get_named_property(env, conn, "dispatch", &fn));
  NAPI_CALL_INT(env, napi_call_function(env, conn, fn, 1, &str, &ignored));
  return 0;
}

static int dispatch_session(napi_env env, cprof_insp_t *insp, napi_value session,
                            const char *method, const char *params) {
  napi_value argv[3], fn, ignored, json, parse;
  NAPI_CALL_INT(env, napi_create_string_utf8(env, method, NAPI_AUTO_LENGTH, &argv[0]));
  if (params) {
    if (!(json = cprof__js_global(env, "JSON"))) return -1;
    NAPI_CALL_INT(env, napi_create_string_utf8(env, params, NAPI_AUTO_LENGTH, &argv[1]));
    NAPI_CALL_INT(env, napi_get_named_property(env, json, "parse", &parse));
    NAPI_CALL_INT(env, napi_call_function(env, json, parse, 1, &argv[1], &argv[1]));
  } else {
    NAPI_CALL_INT(env, napi_get_undefined(env, &argv[1]));
  }
  NAPI_CALL_INT(env, napi_create_function(env, "cprofOnReply", NAPI_AUTO_LENGTH, on_session_reply,
                                          insp, &argv[2]));
  NAPI_CALL_INT(env, napi_get_named_property(env, session, "post", &fn));
  NAPI_CALL_INT(env, napi_call_function(env, session, fn, 3, argv, &ignored));
  return 0;
}

int cprof__insp_call(napi_env env, cprof_insp_t *insp, const char *method, const char *params,
                     char **reply, size_t *len) {
  napi_value conn;
  int rc;
  NAPI_CALL_INT(env, napi_get_reference_value(env, insp->conn, &conn));
  set_reply(insp, NULL, 0);
  rc = insp->raw ? dispatch_raw(env, conn, ++insp->next_id, method, params)
                 : dispatch_session(env, insp, conn, method, params);
  if (rc != 0) return -1;
  if (!insp->reply) {
    char what[160];
    snprintf(what, sizeof what, "%s got no reply (is another debugger holding the session?)",
             method);
    insp_fail(env, what);
    return -1;
  }
  *reply = insp->reply;
  *len = insp->reply_len;
  insp->reply = NULL;
  return 0;
}

int cprof__insp_call_ok(napi_env env, cprof_insp_t *insp, const char *method, const char *params) {
  char *reply;
  size_t len;
  if (cprof__insp_call(env, insp, method, params, &reply, &len) != 0) return -1;
  cJSON *msg = cJSON_ParseWithLength(reply, len);
  cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
  int rc = 0;
  if (!msg || err) {
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(err, "message"));
    char what[512];
    snprintf(what, sizeof what, "%s failed: %s", method, text ? text : "unreadable reply");
    insp_fail(env, what);
    rc = -1;
  }
  cJSON_Delete(msg);
  free(reply);
  return rc;
}

void cprof__insp_close(napi_env env, cprof_insp_t *insp) {
  napi_value conn, fn, ignored;
  if (!insp) return;
  if (insp->conn && napi_get_reference_value(env, insp->conn, &conn) == napi_ok && conn &&
      napi_get_named_property(env, conn, "disconnect", &fn) == napi_ok &&
      napi_call_function(env, conn, fn, 0, NULL, &ignored) != napi_ok)
    napi_get_and_clear_last_exception(env, &ignored);
  cprof__insp_abandon(env, insp);
}

void cprof__insp_abandon(napi_env env, cprof_insp_t *insp) {
  if (!insp) return;
  if (insp->conn) napi_delete_reference(env, insp->conn);
  free(insp->reply);
  free(insp);
}

/* Session 'inspectorNotification' listener: (message) → JSON text. */
static napi_value on_session_note(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  cprof_insp_t *insp;
  char *buf;
  size_t len;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, (void **)&insp));
  if (argc < 1 || !insp->on_note || stringify(env, argv[0], &buf, &len) != 0) return NULL;
  insp->on_note(insp->note_ctx, buf, len);
  return NULL;
}

int cprof__insp_on_note(napi_env env, cprof_insp_t *insp, cprof_insp_note_fn fn, void *ctx) {
  napi_value session, on, argv[2], ignored;
  insp->on_note = fn;
  insp->note_ctx = ctx;
  if (insp->raw) return 0;
  NAPI_CALL_INT(env, napi_get_reference_value(env, insp->conn, &session));
  NAPI_CALL_INT(env,
                napi_create_string_utf8(env, "inspectorNotification", NAPI_AUTO_LENGTH, &argv[0]));
  NAPI_CALL_INT(env, napi_create_function(env, "cprofOnNote", NAPI_AUTO_LENGTH, on_session_note,
                                          insp, &argv[1]));
  NAPI_CALL_INT(env, napi_get_named_property(env, session, "on", &on));
  NAPI_CALL_INT(env, napi_call_function(env, session, on, 2, argv, &ignored));
  return 0;
}

int cprof__insp_line_ends_needed(napi_env env) {
  const napi_node_version *ver;
  return napi_get_node_version(env, &ver) == napi_ok && ver->major <= 22;
}

int cprof__insp_line_ends(napi_env env, cprof_insp_t *insp) {
  if (!cprof__insp_line_ends_needed(env)) return 0;
  return cprof__insp_call_ok(env, insp, "Debugger.enable", NULL) != 0 ||
                 cprof__insp_call_ok(env, insp, "Debugger.disable", NULL) != 0
             ? -1
             : 0;
}

const char *cprof__insp_transport(const cprof_insp_t *insp) {
  return insp->raw ? "connection" : "session";
}

void cprof__insp_heap_params(char *buf, size_t len, double interval, double depth, int collected) {
  const char *inc = collected ? "true" : "false";
  snprintf(buf, len,
           "{\"samplingInterval\":%.0f,\"stackDepth\":%.0f,"
           "\"includeObjectsCollectedByMajorGC\":%s,\"includeObjectsCollectedByMinorGC\":%s}",
           interval, depth, inc, inc);
}
