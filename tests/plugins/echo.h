/* Sentinel echo shared by the test plugins: every call a plugin receives is recorded here, argument
 * by argument (raw 64-bit values) plus the bytes of the struct it was handed, so that tests can
 * check that each argument the emulator passed arrived in its own slot. Plain C; this header
 * deliberately knows nothing of railtune's NCCL declarations. */
#ifndef RAILTUNE_TEST_ECHO_H
#define RAILTUNE_TEST_ECHO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RT_ECHO_MAX_CALLS 64
#define RT_ECHO_MAX_ARGS 24
#define RT_ECHO_MAX_BYTES 1280

typedef struct {
  char func[32]; /* "tuner.init", "net.isend", ... */
  int version;   /* ABI version of the table that received the call */
  int nArgs;
  uint64_t args[RT_ECHO_MAX_ARGS]; /* each argument as raw bits (ints sign-extended, pointers as addresses) */
  size_t nBytes;                   /* bytes of the struct the call handed over (as the plugin declares it) */
  unsigned char bytes[RT_ECHO_MAX_BYTES];
} rtEchoCall;

typedef struct {
  int nCalls;
  int overflow;
  rtEchoCall calls[RT_ECHO_MAX_CALLS];
} rtEchoRecord;

/* Exported by every test plugin (C linkage, default visibility). */
rtEchoRecord* railtuneTestEcho(void);
void railtuneTestEchoReset(void);

/* Plugin-internal helpers. */
rtEchoCall* rtEchoBegin(const char* func, int version);
void rtEchoArg(rtEchoCall* c, uint64_t value);
void rtEchoBytes(rtEchoCall* c, const void* data, size_t n);

#define RT_ARG_PTR(c, p) rtEchoArg((c), (uint64_t)(uintptr_t)(p))
#define RT_ARG_INT(c, v) rtEchoArg((c), (uint64_t)(int64_t)(v))
#define RT_ARG_U64(c, v) rtEchoArg((c), (uint64_t)(v))

#ifdef __cplusplus
}
#endif

#endif
