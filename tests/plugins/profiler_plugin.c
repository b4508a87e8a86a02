/* Test profiler plugin: exports the profiler versions selected by RT_PROF_V1..RT_PROF_V6 and echoes every
 * argument, including the descriptor fields as this plugin's own declarations (written from the NCCL
 * plugin ABI fact sheet, not from railtune's nccl/ headers) see them.
 * Behaviour switches: RT_PROFILER_NAME, RT_INIT_FAIL, RT_MASK (mask written at init, default all events),
 * RT_POISON_DESCR / RT_POISON_STATE (write 8 bytes past the struct received). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "echo.h"
#include "profiler_plugin_types.h"

#ifndef RT_PROFILER_NAME
#define RT_PROFILER_NAME "echo-profiler"
#endif
#ifndef RT_MASK
#define RT_MASK 0x7FFF
#endif
#define EXPORT __attribute__((visibility("default")))
#define RT_HANDLE(type) ((void*)(uintptr_t)(0xE0000000u | (uint32_t)(type)))
#define RT_PROF_CTX(v) ((void*)(uintptr_t)(0xC0C00000u + (v)))

static void poisonPast(void* p, size_t size) {
  memset((char*)p + size, 0x5A, 8);
}

static rtResult initResult(int* mask) {
#ifdef RT_INIT_FAIL
  (void)mask;
  return 3;
#else
  *mask = RT_MASK;
  return 0;
#endif
}

static rtEchoCall* startCall(int version, void* context, void** eHandle, uint64_t type, void* parent, int rank) {
  rtEchoCall* c = rtEchoBegin("profiler.startEvent", version);
  RT_ARG_PTR(c, context);
  RT_ARG_PTR(c, eHandle);
  RT_ARG_U64(c, type);
  RT_ARG_PTR(c, parent);
  RT_ARG_INT(c, rank);
  *eHandle = RT_HANDLE(type);
  return c;
}

static rtResult finishStart(rtEchoCall* c, void* descr, size_t size) {
  rtEchoBytes(c, descr, size);
#ifdef RT_POISON_DESCR
  poisonPast(descr, size);
#endif
  return 0;
}

/* Fields common to every version's proxyOp/proxyStep records. */
#define ECHO_PROXY(c, d)                     \
  do {                                       \
    if ((d)->type == tProxyOp) {             \
      RT_ARG_INT(c, (d)->proxyOp.pid);       \
      RT_ARG_INT(c, (d)->proxyOp.channelId); \
      RT_ARG_INT(c, (d)->proxyOp.peer);      \
      RT_ARG_INT(c, (d)->proxyOp.nSteps);    \
      RT_ARG_INT(c, (d)->proxyOp.chunkSize); \
      RT_ARG_INT(c, (d)->proxyOp.isSend);    \
    } else if ((d)->type == tProxyStep) {    \
      RT_ARG_INT(c, (d)->proxyStep.step);    \
    }                                        \
  } while (0)

static rtResult start1(void* context, void** eHandle, rtDescr1* d) {
  rtEchoCall* c = startCall(1, context, eHandle, d->type, d->parentObj, d->rank);
  if (d->type == tColl) {
    RT_ARG_PTR(c, d->coll.name);
    RT_ARG_U64(c, d->coll.commHash);
    RT_ARG_U64(c, d->coll.seqNumber);
    RT_ARG_INT(c, d->coll.func);
    RT_ARG_PTR(c, d->coll.sendBuff);
    RT_ARG_PTR(c, d->coll.recvBuff);
    RT_ARG_U64(c, d->coll.count);
    RT_ARG_INT(c, d->coll.root);
    RT_ARG_INT(c, d->coll.datatype);
    RT_ARG_U64(c, d->coll.op);
    RT_ARG_U64(c, d->coll.trafficBytes);
    RT_ARG_INT(c, d->coll.nMaxChannels);
    RT_ARG_INT(c, d->coll.nWarps);
    RT_ARG_INT(c, d->coll.algo);
    RT_ARG_INT(c, d->coll.proto);
    RT_ARG_INT(c, d->coll.isCollnet);
    RT_ARG_INT(c, d->coll.isNvls);
  } else if (d->type == tP2p) {
    RT_ARG_PTR(c, d->p2p.name);
    RT_ARG_U64(c, d->p2p.commHash);
    RT_ARG_INT(c, d->p2p.func);
    RT_ARG_PTR(c, d->p2p.buff);
    RT_ARG_INT(c, d->p2p.datatype);
    RT_ARG_U64(c, d->p2p.count);
    RT_ARG_INT(c, d->p2p.peer);
  }
  ECHO_PROXY(c, d);
  return finishStart(c, d, sizeof(*d));
}

/* v2 and v3 share the coll/p2p layouts up to trafficBytes (v2 only). */
#define ECHO_COLL23(c, d)                  \
  do {                                     \
    RT_ARG_PTR(c, (d)->coll.name);         \
    RT_ARG_U64(c, (d)->coll.commHash);     \
    RT_ARG_U64(c, (d)->coll.seqNumber);    \
    RT_ARG_PTR(c, (d)->coll.func);         \
    RT_ARG_PTR(c, (d)->coll.sendBuff);     \
    RT_ARG_PTR(c, (d)->coll.recvBuff);     \
    RT_ARG_U64(c, (d)->coll.count);        \
    RT_ARG_INT(c, (d)->coll.root);         \
    RT_ARG_PTR(c, (d)->coll.datatype);     \
    RT_ARG_INT(c, (d)->coll.nMaxChannels); \
    RT_ARG_INT(c, (d)->coll.nWarps);       \
    RT_ARG_PTR(c, (d)->coll.algo);         \
    RT_ARG_PTR(c, (d)->coll.proto);        \
  } while (0)
#define ECHO_P2P23(c, d)              \
  do {                                \
    RT_ARG_PTR(c, (d)->p2p.name);     \
    RT_ARG_U64(c, (d)->p2p.commHash); \
    RT_ARG_PTR(c, (d)->p2p.func);     \
    RT_ARG_PTR(c, (d)->p2p.buff);     \
    RT_ARG_PTR(c, (d)->p2p.datatype); \
    RT_ARG_U64(c, (d)->p2p.count);    \
    RT_ARG_INT(c, (d)->p2p.peer);     \
  } while (0)

static rtResult start2(void* context, void** eHandle, rtDescr2* d) {
  rtEchoCall* c = startCall(2, context, eHandle, d->type, d->parentObj, d->rank);
  if (d->type == tColl) {
    ECHO_COLL23(c, d);
    RT_ARG_U64(c, d->coll.trafficBytes);
  } else if (d->type == tP2p) {
    ECHO_P2P23(c, d);
  }
  ECHO_PROXY(c, d);
  return finishStart(c, d, sizeof(*d));
}

static rtResult start3(void* context, void** eHandle, rtDescr3* d) {
  rtEchoCall* c = startCall(3, context, eHandle, d->type, d->parentObj, d->rank);
  if (d->type == tColl) {
    ECHO_COLL23(c, d);
  } else if (d->type == tP2p) {
    ECHO_P2P23(c, d);
  } else if (d->type == tKernelCh) {
    RT_ARG_INT(c, d->kernelCh.channelId);
  } else if (d->type == tNetPlugin) {
    RT_ARG_INT(c, d->netPlugin.id);
    RT_ARG_PTR(c, d->netPlugin.data);
  }
  ECHO_PROXY(c, d);
  return finishStart(c, d, sizeof(*d));
}

/* v4, v5 and v6 share coll (up to proto), p2p (up to nChannels), kernelCh and netPlugin layouts. */
#define ECHO_COLL45(c, d)               \
  do {                                  \
    RT_ARG_U64(c, (d)->coll.seqNumber); \
    RT_ARG_PTR(c, (d)->coll.func);      \
    RT_ARG_PTR(c, (d)->coll.sendBuff);  \
    RT_ARG_PTR(c, (d)->coll.recvBuff);  \
    RT_ARG_U64(c, (d)->coll.count);     \
    RT_ARG_INT(c, (d)->coll.root);      \
    RT_ARG_PTR(c, (d)->coll.datatype);  \
    RT_ARG_INT(c, (d)->coll.nChannels); \
    RT_ARG_INT(c, (d)->coll.nWarps);    \
    RT_ARG_PTR(c, (d)->coll.algo);      \
    RT_ARG_PTR(c, (d)->coll.proto);     \
  } while (0)
#define ECHO_REST45(c, d)                     \
  do {                                        \
    if ((d)->type == tP2p) {                  \
      RT_ARG_PTR(c, (d)->p2p.func);           \
      RT_ARG_PTR(c, (d)->p2p.buff);           \
      RT_ARG_PTR(c, (d)->p2p.datatype);       \
      RT_ARG_U64(c, (d)->p2p.count);          \
      RT_ARG_INT(c, (d)->p2p.peer);           \
      RT_ARG_INT(c, (d)->p2p.nChannels);      \
    } else if ((d)->type == tKernelCh) {      \
      RT_ARG_INT(c, (d)->kernelCh.channelId); \
      RT_ARG_U64(c, (d)->kernelCh.pTimer);    \
    } else if ((d)->type == tNetPlugin) {     \
      RT_ARG_INT(c, (d)->netPlugin.id);       \
      RT_ARG_PTR(c, (d)->netPlugin.data);     \
    }                                         \
    ECHO_PROXY(c, d);                         \
  } while (0)

static rtResult start4(void* context, void** eHandle, rtDescr4* d) {
  rtEchoCall* c = startCall(4, context, eHandle, d->type, d->parentObj, d->rank);
  if (d->type == tColl) ECHO_COLL45(c, d);
  ECHO_REST45(c, d);
  return finishStart(c, d, sizeof(*d));
}

static rtResult start5v(int version, void* context, void** eHandle, rtDescr5* d) {
  rtEchoCall* c = startCall(version, context, eHandle, d->type, d->parentObj, d->rank);
  if (d->type == tColl) {
    ECHO_COLL45(c, d);
    RT_ARG_PTR(c, d->coll.parentGroup);
  } else if (d->type == tGroupApi) {
    RT_ARG_INT(c, d->groupApi.graphCaptured);
    RT_ARG_INT(c, d->groupApi.groupDepth);
  } else if (d->type == tCollApi) {
    RT_ARG_PTR(c, d->collApi.func);
    RT_ARG_U64(c, d->collApi.count);
    RT_ARG_PTR(c, d->collApi.datatype);
    RT_ARG_INT(c, d->collApi.root);
    RT_ARG_PTR(c, d->collApi.stream);
    RT_ARG_INT(c, d->collApi.graphCaptured);
  } else if (d->type == tKernelLaunch) {
    RT_ARG_PTR(c, d->kernelLaunch.stream);
  } else if (d->type == tCeColl) {
    RT_ARG_U64(c, d->ceColl.seqNumber);
    RT_ARG_PTR(c, d->ceColl.syncStrategy);
    RT_ARG_INT(c, d->ceColl.batchSize);
    RT_ARG_INT(c, d->ceColl.numBatches);
    RT_ARG_INT(c, d->ceColl.ceSeqNum);
    RT_ARG_PTR(c, d->ceColl.stream);
  }
  ECHO_REST45(c, d);
  return finishStart(c, d, sizeof(*d));
}

static rtResult stopAny(int version, void* eHandle) {
  rtEchoCall* c = rtEchoBegin("profiler.stopEvent", version);
  RT_ARG_PTR(c, eHandle);
  return 0;
}

static rtResult recordAny(int version, void* eHandle, int state, void* args, size_t size) {
  rtEchoCall* c = rtEchoBegin("profiler.recordEventState", version);
  RT_ARG_PTR(c, eHandle);
  RT_ARG_INT(c, state);
  RT_ARG_PTR(c, args);
  rtEchoBytes(c, args, size);
#ifdef RT_POISON_STATE
  poisonPast(args, size);
#endif
  return 0;
}

static rtResult finalizeAny(int version, void* context) {
  rtEchoCall* c = rtEchoBegin("profiler.finalize", version);
  RT_ARG_PTR(c, context);
  return 0;
}

/* v1..v3 init: (context, eActivationMask) */
static rtResult initOld(int version, void** context, int* mask) {
  rtEchoCall* c = rtEchoBegin("profiler.init", version);
  RT_ARG_PTR(c, context);
  RT_ARG_PTR(c, mask);
  *context = RT_PROF_CTX(version);
  return initResult(mask);
}

#include "profiler_plugin_tables.h"
