// Profiler ABI v7 (symbol ncclProfiler_v7, NCCL 2.31): v6 plus the application's per-call tag (userTag
// on the API, task and copy-engine events), the symmetric kernel a collective ran (coll.kernelVariant,
// coll.isSymColl) and the KernelPhase sub-event of a kernel channel (initial sync, compute, final sync),
// whose stop reuses the kernelCh state argument. Declared from NCCL 2.31.2's
// src/include/plugin/profiler/profiler_v7.h (the layout is pinned by tests/abi).
#pragma once

#include "nccl/profiler_v6.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint64_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      bool graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;
      uint64_t userTag;  // v7: the application's tag for this call (0: untagged)
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
      uint64_t userTag;  // v7
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      uint64_t seqNumber;
      const char* func;
      void const* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
      void* parentGroup;
      const char* kernelVariant;  // v7: the symmetric kernel ("AGxLL_R"), NULL otherwise
      bool isSymColl;             // v7: a symmetric-memory kernel ran it
      uint64_t userTag;           // v7
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void* parentGroup;
      uint64_t userTag;  // v7
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
    struct {
      uint64_t seqNumber;
      const char* func;
      void const* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      const char* syncStrategy;
      bool intraBatchSync;
      uint32_t batchSize;
      uint32_t numBatches;
      uint32_t ceSeqNum;
      void* stream;
      uint64_t userTag;  // v7
    } ceColl;
    struct {
      bool isComplete;
      int nRanks;
    } ceCollSync;
    struct {
      int numOps;
      size_t totalBytes;
      bool useIntraSync;
    } ceCollBatch;
    struct {
      uint8_t channelId;
      uint8_t phaseId;        // 0 initial_sync, 1 compute, 2 final_sync
      const char* phaseName;  // NCCL's name of phaseId
      uint64_t pTimer;        // the phase's start, GPU globaltimer (ns)
    } kernelPhase;            // v7
  };
} ncclProfilerEventDescr_v7_t;

// v6's members plus nothing: a KernelPhase stop (ncclProfilerKernelPhaseStop) passes its GPU timer in
// kernelCh.pTimer, the member a KernelCh stop uses.
typedef union {
  struct {
    size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    uint64_t pTimer;
  } kernelCh;
} ncclProfilerEventStateArgs_v7_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes,
                       int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v7_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_v7_t eState,
                                   ncclProfilerEventStateArgs_v7_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v7_t;

#ifdef __cplusplus
}
#endif
