/* The echo record of one test plugin library (each .so has its own). */
#include "echo.h"

#include <string.h>

static rtEchoRecord record;
static rtEchoCall scratch; /* receives calls past the limit so plugins never write out of bounds */

__attribute__((visibility("default"))) rtEchoRecord* railtuneTestEcho(void) {
  return &record;
}

__attribute__((visibility("default"))) void railtuneTestEchoReset(void) {
  memset(&record, 0, sizeof(record));
}

/* Calls may come from several threads (NCCL's proxy threads): each claims its own slot atomically. */
rtEchoCall* rtEchoBegin(const char* func, int version) {
  rtEchoCall* c = &scratch;
  int slot = __atomic_fetch_add(&record.nCalls, 1, __ATOMIC_RELAXED);
  if (slot < RT_ECHO_MAX_CALLS) {
    c = &record.calls[slot];
  } else {
    __atomic_store_n(&record.nCalls, RT_ECHO_MAX_CALLS, __ATOMIC_RELAXED);
    __atomic_store_n(&record.overflow, 1, __ATOMIC_RELAXED);
    return c; /* the scratch slot may be shared by late callers; tests never read it */
  }
  memset(c, 0, sizeof(*c));
  strncpy(c->func, func, sizeof(c->func) - 1);
  c->version = version;
  return c;
}

void rtEchoArg(rtEchoCall* c, uint64_t value) {
  if (c->nArgs < RT_ECHO_MAX_ARGS) c->args[c->nArgs++] = value;
}

void rtEchoBytes(rtEchoCall* c, const void* data, size_t n) {
  if (data == NULL) return;
  if (n > RT_ECHO_MAX_BYTES) n = RT_ECHO_MAX_BYTES;
  memcpy(c->bytes, data, n);
  c->nBytes = n;
}
