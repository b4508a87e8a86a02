/* Per-version entry points and exported tables of the test profiler plugin (included by profiler_plugin.c). */

#if defined(RT_PROF_V1)
static rtResult p1Init(void** context, int* mask) {
  return initOld(1, context, mask);
}
static rtResult p1Start(void* ctx, void** h, rtDescr1* d) {
  return start1(ctx, h, d);
}
static rtResult p1Stop(void* h) {
  return stopAny(1, h);
}
static rtResult p1Record(void* h, int state, rtStateArgs1* args) {
  return recordAny(1, h, state, args, sizeof(*args));
}
static rtResult p1Finalize(void* ctx) {
  return finalizeAny(1, ctx);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, int*);
  rtResult (*startEvent)(void*, void**, rtDescr1*);
  rtResult (*stopEvent)(void*);
  rtResult (*recordEventState)(void*, int, rtStateArgs1*);
  rtResult (*finalize)(void*);
} ncclProfiler_v1 = {RT_PROFILER_NAME, p1Init, p1Start, p1Stop, p1Record, p1Finalize};
#endif

#if defined(RT_PROF_V2)
static rtResult p2Init(void** context, int* mask) {
  return initOld(2, context, mask);
}
static rtResult p2Start(void* ctx, void** h, rtDescr2* d) {
  return start2(ctx, h, d);
}
static rtResult p2Stop(void* h) {
  return stopAny(2, h);
}
static rtResult p2Record(void* h, int state, rtStateArgs1* args) {
  return recordAny(2, h, state, args, sizeof(*args));
}
static rtResult p2Finalize(void* ctx) {
  return finalizeAny(2, ctx);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, int*);
  rtResult (*startEvent)(void*, void**, rtDescr2*);
  rtResult (*stopEvent)(void*);
  rtResult (*recordEventState)(void*, int, rtStateArgs1*);
  rtResult (*finalize)(void*);
} ncclProfiler_v2 = {RT_PROFILER_NAME, p2Init, p2Start, p2Stop, p2Record, p2Finalize};
#endif

#if defined(RT_PROF_V3)
static rtResult p3Init(void** context, int* mask) {
  return initOld(3, context, mask);
}
static rtResult p3Start(void* ctx, void** h, rtDescr3* d) {
  return start3(ctx, h, d);
}
static rtResult p3Stop(void* h) {
  return stopAny(3, h);
}
static rtResult p3Record(void* h, int state, rtStateArgs1* args) {
  return recordAny(3, h, state, args, sizeof(*args));
}
static rtResult p3Finalize(void* ctx) {
  return finalizeAny(3, ctx);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, int*);
  rtResult (*startEvent)(void*, void**, rtDescr3*);
  rtResult (*stopEvent)(void*);
  rtResult (*recordEventState)(void*, int, rtStateArgs1*);
  rtResult (*finalize)(void*);
} ncclProfiler_v3 = {RT_PROFILER_NAME, p3Init, p3Start, p3Stop, p3Record, p3Finalize};
#endif

#if defined(RT_PROF_V4)
static rtResult p4Init(void** context, int* mask, const char* commName, uint64_t commHash, int nNodes, int nRanks,
                       int rank, rtLogger log) {
  rtEchoCall* c = rtEchoBegin("profiler.init", 4);
  RT_ARG_PTR(c, context);
  RT_ARG_PTR(c, mask);
  RT_ARG_PTR(c, commName);
  RT_ARG_U64(c, commHash);
  RT_ARG_INT(c, nNodes);
  RT_ARG_INT(c, nRanks);
  RT_ARG_INT(c, rank);
  RT_ARG_PTR(c, log);
  *context = RT_PROF_CTX(4);
  return initResult(mask);
}
static rtResult p4Start(void* ctx, void** h, rtDescr4* d) {
  return start4(ctx, h, d);
}
static rtResult p4Stop(void* h) {
  return stopAny(4, h);
}
static rtResult p4Record(void* h, int state, rtStateArgs4* args) {
  return recordAny(4, h, state, args, sizeof(*args));
}
static rtResult p4Finalize(void* ctx) {
  return finalizeAny(4, ctx);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, int*, const char*, uint64_t, int, int, int, rtLogger);
  rtResult (*startEvent)(void*, void**, rtDescr4*);
  rtResult (*stopEvent)(void*);
  rtResult (*recordEventState)(void*, int, rtStateArgs4*);
  rtResult (*finalize)(void*);
} ncclProfiler_v4 = {RT_PROFILER_NAME, p4Init, p4Start, p4Stop, p4Record, p4Finalize};
#endif

#if defined(RT_PROF_V5)
static rtResult p5Init(void** context, uint64_t commId, int* mask, const char* commName, int nNodes, int nRanks,
                       int rank, rtLogger log) {
  rtEchoCall* c = rtEchoBegin("profiler.init", 5);
  RT_ARG_PTR(c, context);
  RT_ARG_U64(c, commId);
  RT_ARG_PTR(c, mask);
  RT_ARG_PTR(c, commName);
  RT_ARG_INT(c, nNodes);
  RT_ARG_INT(c, nRanks);
  RT_ARG_INT(c, rank);
  RT_ARG_PTR(c, log);
  *context = RT_PROF_CTX(5);
  return initResult(mask);
}
static rtResult p5Start(void* ctx, void** h, rtDescr5* d) {
  return start5v(5, ctx, h, d);
}
static rtResult p5Stop(void* h) {
  return stopAny(5, h);
}
static rtResult p5Record(void* h, int state, rtStateArgs4* args) {
  return recordAny(5, h, state, args, sizeof(*args));
}
static rtResult p5Finalize(void* ctx) {
  return finalizeAny(5, ctx);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, uint64_t, int*, const char*, int, int, int, rtLogger);
  rtResult (*startEvent)(void*, void**, rtDescr5*);
  rtResult (*stopEvent)(void*);
  rtResult (*recordEventState)(void*, int, rtStateArgs4*);
  rtResult (*finalize)(void*);
} ncclProfiler_v5 = {RT_PROFILER_NAME, p5Init, p5Start, p5Stop, p5Record, p5Finalize};
#endif

#if defined(RT_PROF_V6)
static rtResult p6Init(void** context, uint64_t commId, int* mask, const char* commName, int nNodes, int nRanks,
                       int rank, rtLogger log) {
  rtEchoCall* c = rtEchoBegin("profiler.init", 6);
  RT_ARG_PTR(c, context);
  RT_ARG_U64(c, commId);
  RT_ARG_PTR(c, mask);
  RT_ARG_PTR(c, commName);
  RT_ARG_INT(c, nNodes);
  RT_ARG_INT(c, nRanks);
  RT_ARG_INT(c, rank);
  RT_ARG_PTR(c, log);
  *context = RT_PROF_CTX(6);
  return initResult(mask);
}
static rtResult p6Start(void* ctx, void** h, rtDescr5* d) {
  return start5v(6, ctx, h, d);
}
static rtResult p6Stop(void* h) {
  return stopAny(6, h);
}
static rtResult p6Record(void* h, int state, rtStateArgs4* args) {
  return recordAny(6, h, state, args, sizeof(*args));
}
static rtResult p6Finalize(void* ctx) {
  return finalizeAny(6, ctx);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, uint64_t, int*, const char*, int, int, int, rtLogger);
  rtResult (*startEvent)(void*, void**, rtDescr5*);
  rtResult (*stopEvent)(void*);
  rtResult (*recordEventState)(void*, int, rtStateArgs4*);
  rtResult (*finalize)(void*);
} ncclProfiler_v6 = {RT_PROFILER_NAME, p6Init, p6Start, p6Stop, p6Record, p6Finalize};
#endif
