/* Profiler.consoleProfileFinished, the inspector notification that carries
 * each finished recorder window: {"method":"Profiler.consoleProfileFinished",
 * "params":{"id":...,"location":{...},"profile":{...},"title":"..."}}. */
#ifndef CPROF_NOTE_H
#define CPROF_NOTE_H

#include <stddef.h>

/* Finds the profile object's text and the title inside such a notification
 * (members in any order), checking the JSON grammar on the way. CPROF_OK
 * with the spans (the title's text is the raw, still escaped, string body),
 * CPROF_ESCHEMA when it is another notification or lacks either member, or
 * CPROF_EPARSE on bad JSON; errbuf says which. */
int cprof_note_profile_span(const char *json, size_t len, size_t *off, size_t *n,
                            const char **title, size_t *title_len, char *errbuf, size_t errlen);

#endif
