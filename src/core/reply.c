/* Finding the profile inside an inspector reply without parsing it, so the
 * .cpuprofile can be written byte for byte as V8 made it, before the parse. */
#include "reply.h"

#include <string.h>

#include "profile.h"

static const char RESULT[] = ",\"result\":{\"profile\":";

int cprof_reply_profile_span(const char *json, size_t len, size_t *off, size_t *n) {
  size_t i = 6; /* after {"id": */
  if (len < 8 || memcmp(json, "{\"id\":", 6) != 0) return 0;
  while (i < len && json[i] >= '0' && json[i] <= '9')
    i++;
  if (i == 6 || len - i < sizeof RESULT - 1 || memcmp(json + i, RESULT, sizeof RESULT - 1) != 0)
    return 0;
  i += sizeof RESULT - 1;
  size_t end = len;
  while (end > i && (json[end - 1] == ' ' || json[end - 1] == '\n' || json[end - 1] == '\r'))
    end--;
  /* The reply closes the profile, then result, then the message. */
  if (end < i + 4 || memcmp(json + end - 2, "}}", 2) != 0 || json[i] != '{' || json[end - 3] != '}')
    return 0;
  *off = i;
  *n = end - 2 - i;
  return 1;
}
