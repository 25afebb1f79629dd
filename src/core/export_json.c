/* Pieces shared by the exporters: cJSON for anything with strings, so
 * escaping is right, one small object at a time, so memory stays flat. */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "internal.h"

cJSON *cprof__frame_json(const cprof_frame_t *f) {
  cJSON *cf = cJSON_CreateObject();
  if (cf == NULL) return NULL;
  if (!cJSON_AddStringToObject(cf, "functionName", f->name) ||
      !cJSON_AddStringToObject(cf, "scriptId", f->script_id) ||
      !cJSON_AddStringToObject(cf, "url", f->url) ||
      !cJSON_AddNumberToObject(cf, "lineNumber", f->line) ||
      !cJSON_AddNumberToObject(cf, "columnNumber", f->column)) {
    cJSON_Delete(cf);
    return NULL;
  }
  return cf;
}

int cprof__put_json(FILE *f, cJSON *item) {
  char *text = cJSON_PrintUnformatted(item);
  cJSON_Delete(item);
  if (text == NULL) return CPROF_ENOMEM;
  int rc = cprof__put(f, text);
  free(text);
  return rc;
}

int cprof__put(FILE *f, const char *s) {
  return fputs(s, f) == EOF ? CPROF_EIO : 0;
}

int cprof__put_end(FILE *f) {
  return fflush(f) != 0 || ferror(f) ? CPROF_EIO : 0;
}
