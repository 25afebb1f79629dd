/* The profile inside an inspector reply, located without a parse (reply.c). */
#ifndef CPROF_REPLY_H
#define CPROF_REPLY_H

#include <stddef.h>

/* Finds the profile object's text inside an inspector reply
 * ({"id":N,"result":{"profile":{...}}}) without parsing it: 1 with its
 * offset and length, 0 when json is not such a reply (an error reply, or
 * another shape). The span is only located, not validated. */
int cprof_reply_profile_span(const char *json, size_t len, size_t *off, size_t *n);

#endif
