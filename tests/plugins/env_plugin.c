/* Test env plugin: exports ncclEnvPlugin_v1 and/or _v2 (RT_ENV_V1, RT_ENV_V2) and echoes its calls.
 * getEnv answers "RT_ENV_ECHO" with a fixed value and everything else with NULL. Types declared locally. */
#include <stdint.h>
#include <string.h>

#include "echo.h"

#ifndef RT_ENV_NAME
#define RT_ENV_NAME "echo-env"
#endif
#define EXPORT __attribute__((visibility("default")))

typedef int rtResult;
typedef void (*rtLogger)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

static rtResult initAny(int version, uint8_t major, uint8_t minor, uint8_t patch, const char* suffix, rtLogger log) {
  rtEchoCall* c = rtEchoBegin("env.init", version);
  RT_ARG_U64(c, major);
  RT_ARG_U64(c, minor);
  RT_ARG_U64(c, patch);
  RT_ARG_PTR(c, suffix);
  if (version >= 2) RT_ARG_PTR(c, log);
  return 0;
}
static rtResult finalizeAny(int version) {
  rtEchoBegin("env.finalize", version);
  return 0;
}
static const char* getEnvAny(int version, const char* name) {
  rtEchoCall* c = rtEchoBegin("env.getEnv", version);
  RT_ARG_PTR(c, name);
  return (name && strcmp(name, "RT_ENV_ECHO") == 0) ? "echoed" : NULL;
}

#if defined(RT_ENV_V1)
static rtResult e1Init(uint8_t major, uint8_t minor, uint8_t patch, const char* suffix) {
  return initAny(1, major, minor, patch, suffix, NULL);
}
static rtResult e1Finalize(void) {
  return finalizeAny(1);
}
static const char* e1GetEnv(const char* name) {
  return getEnvAny(1, name);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(uint8_t, uint8_t, uint8_t, const char*);
  rtResult (*finalize)(void);
  const char* (*getEnv)(const char*);
} ncclEnvPlugin_v1 = {RT_ENV_NAME, e1Init, e1Finalize, e1GetEnv};
#endif

#if defined(RT_ENV_V2)
static rtResult e2Init(uint8_t major, uint8_t minor, uint8_t patch, const char* suffix, rtLogger log) {
  return initAny(2, major, minor, patch, suffix, log);
}
static rtResult e2Finalize(void) {
  return finalizeAny(2);
}
static const char* e2GetEnv(const char* name) {
  return getEnvAny(2, name);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(uint8_t, uint8_t, uint8_t, const char*, rtLogger);
  rtResult (*finalize)(void);
  const char* (*getEnv)(const char*);
} ncclEnvPlugin_v2 = {RT_ENV_NAME, e2Init, e2Finalize, e2GetEnv};
#endif
