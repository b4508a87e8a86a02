// Event bits, event states and net-event ids shared by every profiler version (nccl_profiler.h; the v7
// additions from NCCL 2.31.2's nccl_profiler.h:29 and :78).
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "nccl/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  ncclProfileGroup = (1 << 0),
  ncclProfileColl = (1 << 1),
  ncclProfileP2p = (1 << 2),
  ncclProfileProxyOp = (1 << 3),
  ncclProfileProxyStep = (1 << 4),
  ncclProfileProxyCtrl = (1 << 5),
  ncclProfileKernelCh = (1 << 6),
  ncclProfileNetPlugin = (1 << 7),
  ncclProfileGroupApi = (1 << 8),
  ncclProfileCollApi = (1 << 9),
  ncclProfileP2pApi = (1 << 10),
  ncclProfileKernelLaunch = (1 << 11),
  ncclProfileCeColl = (1 << 12),       // v6
  ncclProfileCeSync = (1 << 13),       // v6
  ncclProfileCeBatch = (1 << 14),      // v6
  ncclProfileKernelPhase = (1 << 15),  // v7: a kernel channel's barrier phase (under KernelCh)
};

// One enum for every version; numbering is not in declaration order (v4 states were added later).
typedef enum {
  ncclProfilerProxyOpSendPosted = 0,  // deprecated from v4
  ncclProfilerProxyOpSendRemFifoWait = 1,
  ncclProfilerProxyOpSendTransmitted = 2,
  ncclProfilerProxyOpSendDone = 3,
  ncclProfilerProxyOpRecvPosted = 4,
  ncclProfilerProxyOpRecvReceived = 5,
  ncclProfilerProxyOpRecvTransmitted = 6,
  ncclProfilerProxyOpRecvDone = 7,
  ncclProfilerProxyOpInProgress_v4 = 19,
  ncclProfilerProxyStepSendGPUWait = 8,
  ncclProfilerProxyStepSendPeerWait_v4 = 20,
  ncclProfilerProxyStepSendWait = 9,
  ncclProfilerProxyStepRecvWait = 10,
  ncclProfilerProxyStepRecvFlushWait = 11,
  ncclProfilerProxyStepRecvGPUWait = 12,
  ncclProfilerProxyCtrlIdle = 13,
  ncclProfilerProxyCtrlActive = 14,
  ncclProfilerProxyCtrlSleep = 15,
  ncclProfilerProxyCtrlWakeup = 16,
  ncclProfilerProxyCtrlAppend = 17,
  ncclProfilerProxyCtrlAppendEnd = 18,
  ncclProfilerNetPluginUpdate = 21,
  ncclProfilerKernelChStop = 22,
  ncclProfilerGroupStartApiStop = 23,
  ncclProfilerGroupEndApiStart = 24,
  ncclProfilerCeCollStart = 25,  // v6
  ncclProfilerCeCollComplete = 26,
  ncclProfilerCeSyncStart = 27,
  ncclProfilerCeSyncComplete = 28,
  ncclProfilerCeBatchStart = 29,
  ncclProfilerCeBatchComplete = 30,
  ncclProfilerKernelPhaseStop = 31,  // v7: a phase's end (GPU timer in the kernelCh state argument)
} ncclProfilerEventState_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v1_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v2_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v3_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v4_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v5_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v6_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v7_t;

// A net plugin's event id: low 16 bits the descriptor version, high 16 bits the network type.
#define NCCL_PROFILER_NET_VER_BITS (16)
#define NCCL_PROFILER_NET_VER_MASK (~0U >> NCCL_PROFILER_NET_VER_BITS)
#define NCCL_PROFILER_NET_TYPE_MASK (~0U << NCCL_PROFILER_NET_VER_BITS)
typedef enum {
  NCCL_PROFILER_NET_TYPE_IB = (1U << NCCL_PROFILER_NET_VER_BITS),
  NCCL_PROFILER_NET_TYPE_SOCK = (2U << NCCL_PROFILER_NET_VER_BITS),
} ncclProfilerNetType;

// The descriptors NCCL's own IB and Socket transports hand over as netPlugin.data (version 1).
enum { ncclProfileQp = (1 << 0) };
typedef struct {
  uint8_t type;
  union {
    struct {
      int device;
      uint64_t wr_id;
      int opcode;
      int qpNum;
      size_t length;
    } qp;
  };
} ncclProfilerNetIbDescr_v1_t;

enum { ncclProfileSocket = (1 << 0) };
typedef struct {
  uint8_t type;
  union {
    struct {
      int fd;
      int op;
      size_t length;
    } sock;
  };
} ncclProfilerNetSockDescr_v1_t;

#ifdef __cplusplus
}
#endif
