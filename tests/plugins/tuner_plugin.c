/* Test tuner plugin: exports the tuner versions selected by RT_TUNER_V2..RT_TUNER_V7 and echoes every
 * argument it receives. Types are declared here, independently of railtune's nccl/ headers, from the
 * NCCL plugin ABI fact sheet (plain C types, the sheet's member order).
 * Behaviour switches: RT_TUNER_NAME (plugin name), RT_INIT_FAIL, RT_POISON_CONSTANTS, RT_POISON_DOMAINS,
 * RT_POISON_TABLE (write 8 bytes past the struct received, as a plugin built for the wrong ABI would). */
#include <stdint.h>
#include <string.h>

#include "echo.h"

#ifndef RT_TUNER_NAME
#define RT_TUNER_NAME "echo-tuner"
#endif
#define EXPORT __attribute__((visibility("default")))

typedef int rtResult; /* ncclResult_t: 0 success, 3 internal error */
typedef void (*rtLogger)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} rtNvlDomainInfo;

typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[4][3];
  double perChMaxRingLL128Bws[4][3];
  double perChMaxTreeLL128Bws[4][3];
  double perChMaxTreeBws[4][3];
  double perChMaxNVLSTreeBws[4][3];
} rtTunerConstants;

/* v7: five compute-capability rows in each per-GPU array (row 4: Rubin). */
typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[5][3];
  double perChMaxRingLL128Bws[5][3];
  double perChMaxTreeLL128Bws[5][3];
  double perChMaxTreeBws[5][3];
  double perChMaxNVLSTreeBws[5][3];
} rtTunerConstantsV7;

/* Values the plugin hands back, so tests can see they reached NCCL's side. */
#define RT_OUT_CHANNELS 0x21
#define RT_OUT_CHUNK 0xC0FFEEu
#define RT_CTX(version) ((void*)(uintptr_t)(0x7C7C0000u + (version)))

static void poisonPast(void* p, size_t size) {
  memset((char*)p + size, 0x5A, 8);
}

static rtResult initCommon(rtEchoCall* c) {
  (void)c;
#ifdef RT_INIT_FAIL
  return 3;
#else
  return 0;
#endif
}

/* v2..v4 init: (nRanks, nNodes, logFunction, context) */
static rtResult initOld(int version, size_t nRanks, size_t nNodes, rtLogger log, void** context) {
  rtEchoCall* c = rtEchoBegin("tuner.init", version);
  RT_ARG_U64(c, nRanks);
  RT_ARG_U64(c, nNodes);
  RT_ARG_PTR(c, log);
  RT_ARG_PTR(c, context);
  *context = RT_CTX(version);
  return initCommon(c);
}

/* v5..v7 init: (ctx, commId, nRanks, nNodes, logFunction, nvlDomainInfo, constants), echoed; the constants table
 * is v5's four rows or v7's five, so it is echoed and poisoned at the size the caller names. */
static rtEchoCall* echoInitNew(int version, void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, rtLogger log,
                               rtNvlDomainInfo* domains, void* constants, size_t constantBytes) {
  rtEchoCall* c = rtEchoBegin("tuner.init", version);
  RT_ARG_PTR(c, ctx);
  RT_ARG_U64(c, commId);
  RT_ARG_U64(c, nRanks);
  RT_ARG_U64(c, nNodes);
  RT_ARG_PTR(c, log);
  RT_ARG_PTR(c, domains);
  RT_ARG_PTR(c, constants);
  RT_ARG_INT(c, domains->nNvlDomains);
  RT_ARG_INT(c, domains->minRanksPerNvlDomain);
  RT_ARG_INT(c, domains->maxRanksPerNvlDomain);
  rtEchoBytes(c, constants, constantBytes);
  return c;
}
static rtResult finishInitNew(int version, rtEchoCall* c, void** ctx, rtNvlDomainInfo* domains, void* constants,
                              size_t constantBytes) {
#ifdef RT_POISON_CONSTANTS
  poisonPast(constants, constantBytes);
#else
  (void)constants;
  (void)constantBytes;
#endif
#ifdef RT_POISON_DOMAINS
  poisonPast(domains, sizeof(*domains));
#else
  (void)domains;
#endif
  *ctx = RT_CTX(version);
  return initCommon(c);
}

/* v5/v6 init */
static rtResult initNew(int version, void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, rtLogger log,
                        rtNvlDomainInfo* domains, rtTunerConstants* constants) {
  rtEchoCall* c = echoInitNew(version, ctx, commId, nRanks, nNodes, log, domains, constants, sizeof(*constants));
  /* An edit NCCL must see afterwards: Blackwell, 4+ nodes, tree bandwidth. */
  constants->perChMaxTreeBws[3][2] = 15.0;
  return finishInitNew(version, c, ctx, domains, constants, sizeof(*constants));
}

/* The cost table is float[7][3] passed as float**: index it only through the array cast. */
static void touchTable(rtEchoCall* c, float** collCostTable) {
  float(*table)[3] = (float(*)[3])collCostTable;
  rtEchoBytes(c, table, sizeof(float) * 7 * 3);
  if (table[1][2] != -1.0f) table[1][2] = 0.0f; /* prefer Ring/Simple */
#ifdef RT_POISON_TABLE
  poisonPast(table, sizeof(float) * 7 * 3);
#endif
}

static rtResult destroyAny(int version, void* context) {
  rtEchoCall* c = rtEchoBegin("tuner.finalize", version);
  RT_ARG_PTR(c, context);
  return 0;
}

#if defined(RT_TUNER_V2)
static rtResult v2Init(size_t nRanks, size_t nNodes, rtLogger log, void** context) {
  return initOld(2, nRanks, nNodes, log, context);
}
static rtResult v2GetCollInfo(void* context, int collType, size_t nBytes, int collNetSupport, int nvlsSupport,
                              int numPipeOps, int* algorithm, int* protocol, int* nChannels) {
  rtEchoCall* c = rtEchoBegin("tuner.getCollInfo", 2);
  RT_ARG_PTR(c, context);
  RT_ARG_INT(c, collType);
  RT_ARG_U64(c, nBytes);
  RT_ARG_INT(c, collNetSupport);
  RT_ARG_INT(c, nvlsSupport);
  RT_ARG_INT(c, numPipeOps);
  RT_ARG_PTR(c, algorithm);
  RT_ARG_PTR(c, protocol);
  RT_ARG_PTR(c, nChannels);
  RT_ARG_INT(c, *algorithm);
  RT_ARG_INT(c, *protocol);
  *algorithm = 1; /* Ring */
  *protocol = 2;  /* Simple */
  *nChannels = RT_OUT_CHANNELS;
  return 0;
}
static rtResult v2Destroy(void* context) {
  return destroyAny(2, context);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(size_t, size_t, rtLogger, void**);
  rtResult (*getCollInfo)(void*, int, size_t, int, int, int, int*, int*, int*);
  rtResult (*destroy)(void*);
} ncclTunerPlugin_v2 = {RT_TUNER_NAME, v2Init, v2GetCollInfo, v2Destroy};
#endif

#if defined(RT_TUNER_V3)
static rtResult v3Init(size_t nRanks, size_t nNodes, rtLogger log, void** context) {
  return initOld(3, nRanks, nNodes, log, context);
}
static rtResult v3GetCollInfo(void* context, int collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int* nChannels) {
  rtEchoCall* c = rtEchoBegin("tuner.getCollInfo", 3);
  RT_ARG_PTR(c, context);
  RT_ARG_INT(c, collType);
  RT_ARG_U64(c, nBytes);
  RT_ARG_INT(c, numPipeOps);
  RT_ARG_PTR(c, collCostTable);
  RT_ARG_INT(c, numAlgo);
  RT_ARG_INT(c, numProto);
  RT_ARG_PTR(c, nChannels);
  RT_ARG_INT(c, *nChannels);
  touchTable(c, collCostTable);
  *nChannels = RT_OUT_CHANNELS;
  return 0;
}
static rtResult v3Destroy(void* context) {
  return destroyAny(3, context);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(size_t, size_t, rtLogger, void**);
  rtResult (*getCollInfo)(void*, int, size_t, int, float**, int, int, int*);
  rtResult (*destroy)(void*);
} ncclTunerPlugin_v3 = {RT_TUNER_NAME, v3Init, v3GetCollInfo, v3Destroy};
#endif

/* v4, v5 and v6 share getCollInfo's signature: (..., numPipeOps, table, numAlgo, numProto, regBuff, nChannels). */
static rtResult getCollInfoRegBuff(int version, void* context, int collType, size_t nBytes, int numPipeOps,
                                   float** collCostTable, int numAlgo, int numProto, int regBuff, int* nChannels) {
  rtEchoCall* c = rtEchoBegin("tuner.getCollInfo", version);
  RT_ARG_PTR(c, context);
  RT_ARG_INT(c, collType);
  RT_ARG_U64(c, nBytes);
  RT_ARG_INT(c, numPipeOps);
  RT_ARG_PTR(c, collCostTable);
  RT_ARG_INT(c, numAlgo);
  RT_ARG_INT(c, numProto);
  RT_ARG_INT(c, regBuff);
  RT_ARG_PTR(c, nChannels);
  RT_ARG_INT(c, *nChannels);
  touchTable(c, collCostTable);
  *nChannels = RT_OUT_CHANNELS;
  return 0;
}

#if defined(RT_TUNER_V4)
static rtResult v4Init(size_t nRanks, size_t nNodes, rtLogger log, void** context) {
  return initOld(4, nRanks, nNodes, log, context);
}
static rtResult v4GetCollInfo(void* context, int collType, size_t nBytes, int numPipeOps, float** table, int numAlgo,
                              int numProto, int regBuff, int* nChannels) {
  return getCollInfoRegBuff(4, context, collType, nBytes, numPipeOps, table, numAlgo, numProto, regBuff, nChannels);
}
static rtResult v4Destroy(void* context) {
  return destroyAny(4, context);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(size_t, size_t, rtLogger, void**);
  rtResult (*getCollInfo)(void*, int, size_t, int, float**, int, int, int, int*);
  rtResult (*destroy)(void*);
} ncclTunerPlugin_v4 = {RT_TUNER_NAME, v4Init, v4GetCollInfo, v4Destroy};
#endif

#if defined(RT_TUNER_V5)
static rtResult v5Init(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, rtLogger log,
                       rtNvlDomainInfo* domains, rtTunerConstants* constants) {
  return initNew(5, ctx, commId, nRanks, nNodes, log, domains, constants);
}
static rtResult v5GetCollInfo(void* context, int collType, size_t nBytes, int numPipeOps, float** table, int numAlgo,
                              int numProto, int regBuff, int* nChannels) {
  return getCollInfoRegBuff(5, context, collType, nBytes, numPipeOps, table, numAlgo, numProto, regBuff, nChannels);
}
static rtResult v5Finalize(void* context) {
  return destroyAny(5, context);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, uint64_t, size_t, size_t, rtLogger, rtNvlDomainInfo*, rtTunerConstants*);
  rtResult (*getCollInfo)(void*, int, size_t, int, float**, int, int, int, int*);
  rtResult (*finalize)(void*);
} ncclTunerPlugin_v5 = {RT_TUNER_NAME, v5Init, v5GetCollInfo, v5Finalize};
#endif

#if defined(RT_TUNER_V6) || defined(RT_TUNER_V7)
/* getChunkSize, the same for v6 and v7: echoes the call and answers RT_OUT_CHUNK. */
static rtResult getChunkSizeAny(int version, void* context, int collType, size_t nBytes, int algo, int proto,
                                int nChannels, size_t* chunkSize) {
  rtEchoCall* c = rtEchoBegin("tuner.getChunkSize", version);
  RT_ARG_PTR(c, context);
  RT_ARG_INT(c, collType);
  RT_ARG_U64(c, nBytes);
  RT_ARG_INT(c, algo);
  RT_ARG_INT(c, proto);
  RT_ARG_INT(c, nChannels);
  RT_ARG_PTR(c, chunkSize);
  RT_ARG_U64(c, *chunkSize);
  *chunkSize = RT_OUT_CHUNK;
  return 0;
}
#endif

#if defined(RT_TUNER_V6)
static rtResult v6Init(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, rtLogger log,
                       rtNvlDomainInfo* domains, rtTunerConstants* constants) {
  return initNew(6, ctx, commId, nRanks, nNodes, log, domains, constants);
}
static rtResult v6GetCollInfo(void* context, int collType, size_t nBytes, int numPipeOps, float** table, int numAlgo,
                              int numProto, int regBuff, int* nChannels) {
  return getCollInfoRegBuff(6, context, collType, nBytes, numPipeOps, table, numAlgo, numProto, regBuff, nChannels);
}
static rtResult v6Finalize(void* context) {
  return destroyAny(6, context);
}
static rtResult v6GetChunkSize(void* context, int collType, size_t nBytes, int algo, int proto, int nChannels,
                               size_t* chunkSize) {
  return getChunkSizeAny(6, context, collType, nBytes, algo, proto, nChannels, chunkSize);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, uint64_t, size_t, size_t, rtLogger, rtNvlDomainInfo*, rtTunerConstants*);
  rtResult (*getCollInfo)(void*, int, size_t, int, float**, int, int, int, int*);
  rtResult (*finalize)(void*);
  rtResult (*getChunkSize)(void*, int, size_t, int, int, int, size_t*);
} ncclTunerPlugin_v6 = {RT_TUNER_NAME, v6Init, v6GetCollInfo, v6Finalize, v6GetChunkSize};
#endif

#if defined(RT_TUNER_V7)
/* v7 init: v6's arguments with the five-row table; edits in the Blackwell row and in row 4 (Rubin). */
static rtResult v7Init(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, rtLogger log,
                       rtNvlDomainInfo* domains, rtTunerConstantsV7* constants) {
  rtEchoCall* c = echoInitNew(7, ctx, commId, nRanks, nNodes, log, domains, constants, sizeof(*constants));
  constants->perChMaxTreeBws[3][2] = 15.0;
  constants->perChMaxTreeBws[4][2] = 16.0;
  return finishInitNew(7, c, ctx, domains, constants, sizeof(*constants));
}
static rtResult v7GetCollInfo(void* context, int collType, size_t nBytes, int numPipeOps, float** table, int numAlgo,
                              int numProto, int regBuff, int* nChannels) {
  return getCollInfoRegBuff(7, context, collType, nBytes, numPipeOps, table, numAlgo, numProto, regBuff, nChannels);
}
static rtResult v7Finalize(void* context) {
  return destroyAny(7, context);
}
static rtResult v7GetChunkSize(void* context, int collType, size_t nBytes, int algo, int proto, int nChannels,
                               size_t* chunkSize) {
  return getChunkSizeAny(7, context, collType, nBytes, algo, proto, nChannels, chunkSize);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, uint64_t, size_t, size_t, rtLogger, rtNvlDomainInfo*, rtTunerConstantsV7*);
  rtResult (*getCollInfo)(void*, int, size_t, int, float**, int, int, int, int*);
  rtResult (*finalize)(void*);
  rtResult (*getChunkSize)(void*, int, size_t, int, int, int, size_t*);
} ncclTunerPlugin_v7 = {RT_TUNER_NAME, v7Init, v7GetCollInfo, v7Finalize, v7GetChunkSize};
#endif
