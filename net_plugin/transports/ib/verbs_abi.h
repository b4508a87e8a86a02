// The part of libibverbs' ABI the verbs transport uses, declared here so that the net plugin builds without
// rdma-core's headers (as NCCL does with its src/include/ibvcore.h) and calls verbs only through one
// function table (verbs_table.h). Layouts are rdma-core 44's (Debian 12) <infiniband/verbs.h>, which every
// later rdma-core keeps for these fields; each offset that matters is asserted below, for x86-64 and aarch64
// alike (the pthread types differ in size between them: a mutex is 40 bytes on x86-64, 48 on aarch64, and
// the structs that embed one follow). Differences from NCCL's copy that a library must respect (the
// strict simulator does): ibv_send_wr is read only to its 80th byte, ibv_qp_attr to its 136th (no
// rate_limit), and ibv_port_attr has no active_speed_ex before rdma-core 49 (a caller's 56-byte buffer is
// filled to 52, or 48 by the exported compat ibv_query_port).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace railtune::net::ib {

// --- enums (values are the ABI's) -----------------------------------------------------------------------
enum IbvNodeType : int { kIbvNodeCa = 1 };
enum IbvPortState : int { kIbvPortDown = 1, kIbvPortInit = 2, kIbvPortArmed = 3, kIbvPortActive = 4 };
enum IbvLinkLayer : uint8_t { kIbvLinkLayerUnspecified = 0, kIbvLinkLayerInfiniband = 1, kIbvLinkLayerEthernet = 2 };
enum IbvMtu : int { kIbvMtu256 = 1, kIbvMtu512 = 2, kIbvMtu1024 = 3, kIbvMtu2048 = 4, kIbvMtu4096 = 5 };
enum IbvQpType : int { kIbvQptRc = 2 };
enum IbvQpState : int {
  kIbvQpsReset = 0,
  kIbvQpsInit = 1,
  kIbvQpsRtr = 2,
  kIbvQpsRts = 3,
  kIbvQpsSqd = 4,
  kIbvQpsSqe = 5,
  kIbvQpsErr = 6,
};
enum IbvQpAttrMask : int {
  kIbvQpState = 1 << 0,
  kIbvQpCurState = 1 << 1,
  kIbvQpEnSqdAsyncNotify = 1 << 2,
  kIbvQpAccessFlags = 1 << 3,
  kIbvQpPkeyIndex = 1 << 4,
  kIbvQpPort = 1 << 5,
  kIbvQpQkey = 1 << 6,
  kIbvQpAv = 1 << 7,
  kIbvQpPathMtu = 1 << 8,
  kIbvQpTimeout = 1 << 9,
  kIbvQpRetryCnt = 1 << 10,
  kIbvQpRnrRetry = 1 << 11,
  kIbvQpRqPsn = 1 << 12,
  kIbvQpMaxQpRdAtomic = 1 << 13,
  kIbvQpAltPath = 1 << 14,
  kIbvQpMinRnrTimer = 1 << 15,
  kIbvQpSqPsn = 1 << 16,
  kIbvQpMaxDestRdAtomic = 1 << 17,
  kIbvQpPathMigState = 1 << 18,
  kIbvQpCap = 1 << 19,
  kIbvQpDestQpn = 1 << 20,
  kIbvQpRateLimit = 1 << 25,
};
enum IbvAccessFlags : int {
  kIbvAccessLocalWrite = 1,
  kIbvAccessRemoteWrite = 2,
  kIbvAccessRemoteRead = 4,
  kIbvAccessRemoteAtomic = 8,
  kIbvAccessRelaxedOrdering = 1 << 20,
};
enum IbvWrOpcode : int {
  kIbvWrRdmaWrite = 0,
  kIbvWrRdmaWriteWithImm = 1,
  kIbvWrSend = 2,
  kIbvWrSendWithImm = 3,
  kIbvWrRdmaRead = 4,
};
enum IbvSendFlags : unsigned { kIbvSendFence = 1, kIbvSendSignaled = 2, kIbvSendSolicited = 4, kIbvSendInline = 8 };
enum IbvWcStatus : int {
  kIbvWcSuccess = 0,
  kIbvWcLocLenErr = 1,
  kIbvWcLocQpOpErr = 2,
  kIbvWcLocProtErr = 4,
  kIbvWcWrFlushErr = 5,
  kIbvWcRemInvReqErr = 9,
  kIbvWcRemAccessErr = 10,
  kIbvWcRemOpErr = 11,
  kIbvWcRetryExcErr = 12,
  kIbvWcRnrRetryExcErr = 13,
  kIbvWcFatalErr = 19,
  kIbvWcGeneralErr = 21,
};
enum IbvWcOpcode : int {
  kIbvWcSend = 0,
  kIbvWcRdmaWrite = 1,
  kIbvWcRdmaRead = 2,
  kIbvWcRecv = 128,
  kIbvWcRecvRdmaWithImm = 129,
};
enum IbvWcFlags : unsigned { kIbvWcWithImm = 2 };
enum IbvEventType : int {
  kIbvEventCqErr = 0,
  kIbvEventQpFatal = 1,
  kIbvEventQpReqErr = 2,
  kIbvEventQpAccessErr = 3,
  kIbvEventCommEst = 4,
  kIbvEventDeviceFatal = 8,
  kIbvEventPortActive = 9,
  kIbvEventPortErr = 10,
};

// --- structs -----------------------------------------------------------------------------------------------
struct IbvContext;

union IbvGid {
  uint8_t raw[16];
  struct {
    uint64_t subnetPrefix;  // big-endian
    uint64_t interfaceId;   // big-endian
  } global;
};

struct IbvDevice {
  void* obsoleteOps[2];  // rdma-core's _ops: never used
  int nodeType;
  int transportType;
  char name[64];
  char devName[64];
  char devPath[256];
  char ibdevPath[256];
};

struct IbvPd {
  IbvContext* context;
  uint32_t handle;
};

struct IbvMr {
  IbvContext* context;
  IbvPd* pd;
  void* addr;
  size_t length;
  uint32_t handle;
  uint32_t lkey;
  uint32_t rkey;
};

struct IbvCompChannel {
  IbvContext* context;
  int fd;
  int refcnt;
};

struct IbvCq {
  IbvContext* context;
  IbvCompChannel* channel;
  void* cqContext;
  uint32_t handle;
  int cqe;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  uint32_t compEventsCompleted;
  uint32_t asyncEventsCompleted;
};

struct IbvQp {
  IbvContext* context;
  void* qpContext;
  IbvPd* pd;
  IbvCq* sendCq;
  IbvCq* recvCq;
  void* srq;
  uint32_t handle;
  uint32_t qpNum;
  int state;   // IbvQpState
  int qpType;  // IbvQpType
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  uint32_t eventsCompleted;
};

struct IbvWc {
  uint64_t wrId;
  int status;  // IbvWcStatus
  int opcode;  // IbvWcOpcode
  uint32_t vendorErr;
  uint32_t byteLen;
  uint32_t immData;  // network byte order
  uint32_t qpNum;
  uint32_t srcQp;
  unsigned wcFlags;
  uint16_t pkeyIndex;
  uint16_t slid;
  uint8_t sl;
  uint8_t dlidPathBits;
};

struct IbvSge {
  uint64_t addr;
  uint32_t length;
  uint32_t lkey;
};

// Up to the xrc union: what NCCL's copy declares (80 bytes) and all a caller of RDMA WRITE/READ fills.
struct IbvSendWr {
  uint64_t wrId;
  IbvSendWr* next;
  IbvSge* sgList;
  int numSge;
  int opcode;  // IbvWrOpcode
  unsigned sendFlags;
  uint32_t immData;  // network byte order
  union {
    struct {
      uint64_t remoteAddr;
      uint32_t rkey;
    } rdma;
    struct {
      uint64_t remoteAddr;
      uint64_t compareAdd;
      uint64_t swap;
      uint32_t rkey;
    } atomic;
  } wr;
  uint32_t xrcRemoteSrqn;
};

struct IbvRecvWr {
  uint64_t wrId;
  IbvRecvWr* next;
  IbvSge* sgList;
  int numSge;
};

struct IbvGlobalRoute {
  IbvGid dgid;
  uint32_t flowLabel;
  uint8_t sgidIndex;
  uint8_t hopLimit;
  uint8_t trafficClass;
};

struct IbvAhAttr {
  IbvGlobalRoute grh;
  uint16_t dlid;
  uint8_t sl;
  uint8_t srcPathBits;
  uint8_t staticRate;
  uint8_t isGlobal;
  uint8_t portNum;
};

struct IbvQpCap {
  uint32_t maxSendWr;
  uint32_t maxRecvWr;
  uint32_t maxSendSge;
  uint32_t maxRecvSge;
  uint32_t maxInlineData;
};

struct IbvQpInitAttr {
  void* qpContext;
  IbvCq* sendCq;
  IbvCq* recvCq;
  void* srq;
  IbvQpCap cap;
  int qpType;
  int sqSigAll;
};

// Without rate_limit (NCCL's 136-byte layout): ibv_modify_qp and ibv_query_qp never touch more.
struct IbvQpAttr {
  int qpState;
  int curQpState;
  int pathMtu;
  int pathMigState;
  uint32_t qkey;
  uint32_t rqPsn;
  uint32_t sqPsn;
  uint32_t destQpNum;
  unsigned qpAccessFlags;
  IbvQpCap cap;
  IbvAhAttr ahAttr;
  IbvAhAttr altAhAttr;
  uint16_t pkeyIndex;
  uint16_t altPkeyIndex;
  uint8_t enSqdAsyncNotify;
  uint8_t sqDraining;
  uint8_t maxRdAtomic;
  uint8_t maxDestRdAtomic;
  uint8_t minRnrTimer;
  uint8_t portNum;
  uint8_t timeout;
  uint8_t retryCnt;
  uint8_t rnrRetry;
  uint8_t altPortNum;
  uint8_t altTimeout;
};

// rdma-core 49's layout (56 bytes, active_speed_ex last); rdma-core 44 writes the first 52 (and the exported
// compat ibv_query_port the first 48): callers zero it first and read active_speed_ex as 0 = absent.
struct IbvPortAttr {
  int state;  // IbvPortState
  int maxMtu;
  int activeMtu;
  int gidTblLen;
  uint32_t portCapFlags;
  uint32_t maxMsgSz;
  uint32_t badPkeyCntr;
  uint32_t qkeyViolCntr;
  uint16_t pkeyTblLen;
  uint16_t lid;
  uint16_t smLid;
  uint8_t lmc;
  uint8_t maxVlNum;
  uint8_t smSl;
  uint8_t subnetTimeout;
  uint8_t initTypeReply;
  uint8_t activeWidth;
  uint8_t activeSpeed;
  uint8_t physState;
  uint8_t linkLayer;  // IbvLinkLayer
  uint8_t flags;
  uint16_t portCapFlags2;
  uint32_t activeSpeedEx;
};

struct IbvDeviceAttr {
  char fwVer[64];
  uint64_t nodeGuid;
  uint64_t sysImageGuid;
  uint64_t maxMrSize;
  uint64_t pageSizeCap;
  uint32_t vendorId;
  uint32_t vendorPartId;
  uint32_t hwVer;
  int maxQp;
  int maxQpWr;
  unsigned deviceCapFlags;
  int maxSge;
  int maxSgeRd;
  int maxCq;
  int maxCqe;
  int maxMr;
  int maxPd;
  int maxQpRdAtom;
  int maxEeRdAtom;
  int maxResRdAtom;
  int maxQpInitRdAtom;
  int maxEeInitRdAtom;
  int atomicCap;
  int maxEe;
  int maxRdd;
  int maxMw;
  int maxRawIpv6Qp;
  int maxRawEthyQp;
  int maxMcastGrp;
  int maxMcastQpAttach;
  int maxTotalMcastQpAttach;
  int maxAh;
  int maxFmr;
  int maxMapPerFmr;
  int maxSrq;
  int maxSrqWr;
  int maxSrqSge;
  uint16_t maxPkeys;
  uint8_t localCaAckDelay;
  uint8_t physPortCnt;
};

struct IbvAsyncEvent {
  union {
    IbvCq* cq;
    IbvQp* qp;
    void* srq;
    void* wq;
    int portNum;
  } element;
  int eventType;  // IbvEventType
};

// The context's operations: 32 slots, of which the inline ibv_poll_cq, ibv_post_send and ibv_post_recv of
// <infiniband/verbs.h> call three (11, 25, 26). The others are compat slots or unused here.
struct IbvContextOps {
  void* compat0to10[11];
  int (*pollCq)(IbvCq* cq, int entries, IbvWc* wc);              // 11
  int (*reqNotifyCq)(IbvCq* cq, int solicitedOnly);              // 12
  void* compat13to24[12];                                        // 13..24 (20: post_srq_recv)
  int (*postSend)(IbvQp* qp, IbvSendWr* wr, IbvSendWr** badWr);  // 25
  int (*postRecv)(IbvQp* qp, IbvRecvWr* wr, IbvRecvWr** badWr);  // 26
  void* compat27to31[5];
};

struct IbvContext {
  IbvDevice* device;
  IbvContextOps ops;
  int cmdFd;
  int asyncFd;
  int numCompVectors;
  pthread_mutex_t mutex;
  void* abiCompat;
};

// --- layout checks (LP64: x86-64 and aarch64) -----------------------------------------------------------
static_assert(sizeof(void*) == 8, "the verbs ABI declared here is LP64's");
static_assert(sizeof(IbvGid) == 16);
static_assert(offsetof(IbvDevice, name) == 24 && sizeof(IbvDevice) == 664);
static_assert(sizeof(IbvContextOps) == 256 && offsetof(IbvContextOps, pollCq) == 11 * 8 &&
              offsetof(IbvContextOps, postSend) == 25 * 8 && offsetof(IbvContextOps, postRecv) == 26 * 8);
static_assert(offsetof(IbvContext, ops) == 8 && offsetof(IbvContext, asyncFd) == 268 &&
              offsetof(IbvContext, mutex) == 280 && offsetof(IbvContext, abiCompat) == 280 + sizeof(pthread_mutex_t));
static_assert(sizeof(IbvPd) == 16 && sizeof(IbvMr) == 48 && offsetof(IbvMr, lkey) == 36 && offsetof(IbvMr, rkey) == 40);
static_assert(offsetof(IbvCq, cqe) == 28 && offsetof(IbvCq, mutex) == 32);
static_assert(offsetof(IbvQp, handle) == 48 && offsetof(IbvQp, qpNum) == 52 && offsetof(IbvQp, state) == 56 &&
              offsetof(IbvQp, mutex) == 64);
static_assert(sizeof(IbvWc) == 48 && offsetof(IbvWc, immData) == 24 && offsetof(IbvWc, wcFlags) == 36);
static_assert(sizeof(IbvSge) == 16);
static_assert(offsetof(IbvSendWr, immData) == 36 && offsetof(IbvSendWr, wr) == 40 && sizeof(IbvSendWr) == 80);
static_assert(sizeof(IbvRecvWr) == 32);
static_assert(sizeof(IbvGlobalRoute) == 24 && sizeof(IbvAhAttr) == 32 && offsetof(IbvAhAttr, portNum) == 30);
static_assert(sizeof(IbvQpInitAttr) == 64 && offsetof(IbvQpInitAttr, qpType) == 52);
static_assert(offsetof(IbvQpAttr, cap) == 36 && offsetof(IbvQpAttr, ahAttr) == 56 &&
              offsetof(IbvQpAttr, pkeyIndex) == 120 && offsetof(IbvQpAttr, timeout) == 130 &&
              offsetof(IbvQpAttr, altTimeout) == 134 && sizeof(IbvQpAttr) == 136);
static_assert(offsetof(IbvPortAttr, lid) == 34 && offsetof(IbvPortAttr, activeWidth) == 43 &&
              offsetof(IbvPortAttr, linkLayer) == 46 && offsetof(IbvPortAttr, portCapFlags2) == 48 &&
              offsetof(IbvPortAttr, activeSpeedEx) == 52 && sizeof(IbvPortAttr) == 56);
static_assert(offsetof(IbvDeviceAttr, sysImageGuid) == 72 && offsetof(IbvDeviceAttr, maxQp) == 108 &&
              offsetof(IbvDeviceAttr, physPortCnt) == 227 && sizeof(IbvDeviceAttr) == 232);
static_assert(sizeof(IbvAsyncEvent) == 16 && offsetof(IbvAsyncEvent, eventType) == 8);

}  // namespace railtune::net::ib
