/* Test net plugin: exports the net versions selected by RT_NET_V6..RT_NET_V12 and echoes every argument.
 * Types are declared here from the NCCL plugin ABI fact sheet, independently of railtune's nccl/ headers.
 * Behaviour switches: RT_NET_NAME, RT_INIT_FAIL, RT_NDEV (devices() count, default 1), RT_DEVTYPE (device
 * type reported, default HOST = 0), RT_POISON_PROPS / RT_POISON_CONFIG / RT_POISON_ATTR (write 8 bytes past
 * the struct received). */
#include <stdint.h>
#include <string.h>

#include "echo.h"

#ifndef RT_NET_NAME
#define RT_NET_NAME "echo-net"
#endif
#ifndef RT_NDEV
#define RT_NDEV 1
#endif
#ifndef RT_DEVTYPE
#define RT_DEVTYPE 0
#endif
#define EXPORT __attribute__((visibility("default")))

typedef int rtResult;
typedef void (*rtLogger)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);
typedef rtResult (*rtProfCallback)(void** eHandle, int type, void* pHandle, int64_t pluginId, void* extData);

typedef struct {
  int type;
  int version;
  void* handle;
  size_t size;
  int needsProxyProgress;
} rtDevHandle;

typedef struct {
  char* name;
  char* pciPath;
  uint64_t guid;
  int ptrSupport;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
} rtProps6;
typedef struct {
  char* name;
  char* pciPath;
  uint64_t guid;
  int ptrSupport;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
  int netDeviceType;
  int netDeviceVersion;
} rtProps7;
typedef struct {
  char* name;
  char* pciPath;
  uint64_t guid;
  int ptrSupport;
  int regIsGlobal;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
  int netDeviceType;
  int netDeviceVersion;
} rtProps8;
typedef struct {
  int ndevs;
  int devs[4];
} rtVProps4;
typedef struct {
  int ndevs;
  int devs[8];
} rtVProps8;
typedef struct {
  char* name;
  char* pciPath;
  uint64_t guid;
  int ptrSupport;
  int regIsGlobal;
  int forceFlush;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
  int netDeviceType;
  int netDeviceVersion;
  rtVProps4 vProps;
  size_t maxP2pBytes;
  size_t maxCollBytes;
} rtProps9; /* v9 and v10 */
typedef struct {
  char* name;
  char* pciPath;
  uint64_t guid;
  int ptrSupport;
  int regIsGlobal;
  int forceFlush;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
  int netDeviceType;
  int netDeviceVersion;
  rtVProps4 vProps;
  size_t maxP2pBytes;
  size_t maxCollBytes;
  int maxMultiRequestSize;
} rtProps11;
typedef struct {
  char* name;
  char* pciPath;
  uint64_t guid;
  int ptrSupport;
  int regIsGlobal;
  int forceFlush;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
  int netDeviceType;
  int netDeviceVersion;
  rtVProps8 vProps;
  size_t maxP2pBytes;
  size_t maxCollBytes;
  int maxMultiRequestSize;
  short railId;
  short planeId;
} rtProps12;

typedef struct {
  int trafficClass;
} rtCommConfig;
typedef struct {
  int32_t maxConcurrentPeers, minConcurrentPeers, maxFlowsPerPeer, minFlowsPerPeer;
} rtCommAttr;
typedef struct {
  rtCommAttr sendCommAttr, recvCommAttr;
  uint32_t op, algo, proto;
} rtNetAttr;

/* Sentinels the plugin returns; tests look for them on the emulator's side. */
#define RT_LISTEN_COMM ((void*)(uintptr_t)0x11570000u)
#define RT_SEND_COMM ((void*)(uintptr_t)0x5E4D0000u)
#define RT_RECV_COMM ((void*)(uintptr_t)0x4EC70000u)
#define RT_MHANDLE ((void*)(uintptr_t)0x3A4D0000u)
#define RT_REQUEST ((void*)(uintptr_t)0x4E510000u)
#define RT_NET_CTX(v) ((void*)(uintptr_t)(0x7E7E0000u + (v)))
#define RT_GUID 0x1122334455667788ull
#define RT_P2P_BYTES 0x1234567890ull
#define RT_COLL_BYTES 0x2345678901ull
#define RT_TEST_SIZE 0x4321

static char devName[] = "rt-dev";
static char devPci[] = "/sys/devices/pci0000:00/rt";

static void poisonPast(void* p, size_t size) {
  memset((char*)p + size, 0x5A, 8);
}

static rtResult result(void) {
#ifdef RT_INIT_FAIL
  return 2;
#else
  return 0;
#endif
}

/* Shared field values; each version's getProperties fills the fields its struct has. */
#define FILL_BASE(p)       \
  do {                     \
    (p)->name = devName;   \
    (p)->pciPath = devPci; \
    (p)->guid = RT_GUID;   \
    (p)->ptrSupport = 0x5; \
    (p)->speed = 400000;   \
    (p)->port = 7;         \
    (p)->latency = 2.5f;   \
    (p)->maxComms = 65539; \
    (p)->maxRecvs = 8;     \
  } while (0)
#define FILL_DEVTYPE(p)              \
  do {                               \
    (p)->netDeviceType = RT_DEVTYPE; \
    (p)->netDeviceVersion = 0x3;     \
  } while (0)
#define FILL_V9(p, dev)                \
  do {                                 \
    (p)->regIsGlobal = 1;              \
    (p)->forceFlush = 1;               \
    (p)->vProps.ndevs = 2;             \
    (p)->vProps.devs[0] = (dev);       \
    (p)->vProps.devs[1] = (dev) + 9;   \
    (p)->maxP2pBytes = RT_P2P_BYTES;   \
    (p)->maxCollBytes = RT_COLL_BYTES; \
  } while (0)

static rtEchoCall* propsCall(int version, int dev, void* props) {
  rtEchoCall* c = rtEchoBegin("net.getProperties", version);
  RT_ARG_INT(c, dev);
  RT_ARG_PTR(c, props);
  return c;
}
static rtResult finishProps(void* props, size_t size) {
#ifdef RT_POISON_PROPS
  poisonPast(props, size);
#else
  (void)props;
  (void)size;
#endif
  return 0;
}

static rtResult getProps6(int dev, rtProps6* p) {
  propsCall(6, dev, p);
  memset(p, 0, sizeof(*p));
  FILL_BASE(p);
  return finishProps(p, sizeof(*p));
}
static rtResult getProps7(int dev, rtProps7* p) {
  propsCall(7, dev, p);
  memset(p, 0, sizeof(*p));
  FILL_BASE(p);
  FILL_DEVTYPE(p);
  return finishProps(p, sizeof(*p));
}
static rtResult getProps8(int dev, rtProps8* p) {
  propsCall(8, dev, p);
  memset(p, 0, sizeof(*p));
  FILL_BASE(p);
  FILL_DEVTYPE(p);
  p->regIsGlobal = 1;
  return finishProps(p, sizeof(*p));
}
static rtResult getProps9v(int version, int dev, rtProps9* p) {
  propsCall(version, dev, p);
  memset(p, 0, sizeof(*p));
  FILL_BASE(p);
  FILL_DEVTYPE(p);
  FILL_V9(p, dev);
  return finishProps(p, sizeof(*p));
}
static rtResult getProps9(int dev, rtProps9* p) {
  return getProps9v(9, dev, p);
}
static rtResult getProps10(int dev, rtProps9* p) {
  return getProps9v(10, dev, p);
}
static rtResult getProps11(int dev, rtProps11* p) {
  propsCall(11, dev, p);
  memset(p, 0, sizeof(*p));
  FILL_BASE(p);
  FILL_DEVTYPE(p);
  FILL_V9(p, dev);
  p->maxMultiRequestSize = 4;
  return finishProps(p, sizeof(*p));
}
static rtResult getProps12(int dev, rtProps12* p) {
  propsCall(12, dev, p);
  memset(p, 0, sizeof(*p));
  FILL_BASE(p);
  FILL_DEVTYPE(p);
  FILL_V9(p, dev);
  p->vProps.devs[7] = 77;
  p->maxMultiRequestSize = 4;
  p->railId = 3;
  p->planeId = 1;
  return finishProps(p, sizeof(*p));
}

/* ---- calls whose signature depends only on simple versions ---- */
static rtResult initLog(int version, rtLogger log, rtProfCallback prof) {
  rtEchoCall* c = rtEchoBegin("net.init", version);
  RT_ARG_PTR(c, log);
  if (version >= 10) RT_ARG_PTR(c, prof);
  return result();
}
static rtResult initCtx(int version, void** ctx, uint64_t commId, rtCommConfig* config, rtLogger log,
                        rtProfCallback prof) {
  rtEchoCall* c = rtEchoBegin("net.init", version);
  RT_ARG_PTR(c, ctx);
  RT_ARG_U64(c, commId);
  RT_ARG_PTR(c, config);
  RT_ARG_PTR(c, log);
  RT_ARG_PTR(c, prof);
  RT_ARG_INT(c, config->trafficClass);
  rtEchoBytes(c, config, sizeof(*config));
#ifdef RT_POISON_CONFIG
  poisonPast(config, sizeof(*config));
#endif
  if (result() == 0) *ctx = RT_NET_CTX(version);
  return result();
}
static rtResult devicesAny(int version, int* ndev) {
  rtEchoCall* c = rtEchoBegin("net.devices", version);
  RT_ARG_PTR(c, ndev);
  *ndev = RT_NDEV;
  return 0;
}
static rtResult listenAny(int version, void* ctx, int dev, void* handle, void** listenComm) {
  rtEchoCall* c = rtEchoBegin("net.listen", version);
  if (version >= 11) RT_ARG_PTR(c, ctx);
  RT_ARG_INT(c, dev);
  RT_ARG_PTR(c, handle);
  RT_ARG_PTR(c, listenComm);
  *listenComm = RT_LISTEN_COMM;
  return 0;
}
static rtResult connectAny(int version, void* ctx, int dev, rtCommConfig* config, void* handle, void** sendComm,
                           rtDevHandle** sendDevComm) {
  rtEchoCall* c = rtEchoBegin("net.connect", version);
  if (version >= 11) RT_ARG_PTR(c, ctx);
  RT_ARG_INT(c, dev);
  if (version == 10) {
    RT_ARG_PTR(c, config);
    RT_ARG_INT(c, config->trafficClass);
  }
  RT_ARG_PTR(c, handle);
  RT_ARG_PTR(c, sendComm);
  if (version >= 7) RT_ARG_PTR(c, sendDevComm);
  *sendComm = RT_SEND_COMM;
  return 0;
}
static rtResult acceptAny(int version, void* listenComm, void** recvComm, rtDevHandle** recvDevComm) {
  rtEchoCall* c = rtEchoBegin("net.accept", version);
  RT_ARG_PTR(c, listenComm);
  RT_ARG_PTR(c, recvComm);
  if (version >= 7) RT_ARG_PTR(c, recvDevComm);
  *recvComm = RT_RECV_COMM;
  return 0;
}
static rtResult regMrAny(int version, void* comm, void* data, uint64_t size, int type, void** mhandle) {
  rtEchoCall* c = rtEchoBegin("net.regMr", version);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, data);
  RT_ARG_U64(c, size);
  RT_ARG_INT(c, type);
  RT_ARG_PTR(c, mhandle);
  *mhandle = RT_MHANDLE;
  return 0;
}
static rtResult regMrDmaBufAny(int version, void* comm, void* data, size_t size, int type, uint64_t offset, int fd,
                               void** mhandle) {
  rtEchoCall* c = rtEchoBegin("net.regMrDmaBuf", version);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, data);
  RT_ARG_U64(c, size);
  RT_ARG_INT(c, type);
  RT_ARG_U64(c, offset);
  RT_ARG_INT(c, fd);
  RT_ARG_PTR(c, mhandle);
  *mhandle = RT_MHANDLE;
  return 0;
}
static rtResult deregMrAny(int version, void* comm, void* mhandle) {
  rtEchoCall* c = rtEchoBegin("net.deregMr", version);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, mhandle);
  return 0;
}
static rtResult isendAny(int version, void* sendComm, void* data, uint64_t size, int tag, void* mhandle, void* phandle,
                         void** request) {
  rtEchoCall* c = rtEchoBegin("net.isend", version);
  RT_ARG_PTR(c, sendComm);
  RT_ARG_PTR(c, data);
  RT_ARG_U64(c, size);
  RT_ARG_INT(c, tag);
  RT_ARG_PTR(c, mhandle);
  if (version >= 10) RT_ARG_PTR(c, phandle);
  RT_ARG_PTR(c, request);
  *request = RT_REQUEST;
  return 0;
}
/* irecv: sizes are int* before v9 and size_t* from v9; the caller passes element 0 widened. */
static rtResult irecvAny(int version, void* recvComm, int n, void** data, uint64_t size0, int* tags, void** mhandles,
                         void** phandles, void** request) {
  rtEchoCall* c = rtEchoBegin("net.irecv", version);
  RT_ARG_PTR(c, recvComm);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, data[0]);
  RT_ARG_U64(c, size0);
  RT_ARG_INT(c, tags[0]);
  RT_ARG_PTR(c, mhandles[0]);
  if (version >= 10) RT_ARG_PTR(c, phandles[0]);
  RT_ARG_PTR(c, request);
  RT_ARG_PTR(c, *request);
  *request = RT_REQUEST;
  return 0;
}
static rtResult irecvInt(int version, void* recvComm, int n, void** data, int* sizes, int* tags, void** mhandles,
                         void** request) {
  return irecvAny(version, recvComm, n, data, (uint64_t)(int64_t)sizes[0], tags, mhandles, NULL, request);
}
static rtResult iflushAny(int version, void* recvComm, int n, void** data, int* sizes, void** mhandles,
                          void** request) {
  rtEchoCall* c = rtEchoBegin("net.iflush", version);
  RT_ARG_PTR(c, recvComm);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, data[0]);
  RT_ARG_INT(c, sizes[0]);
  RT_ARG_PTR(c, mhandles[0]);
  RT_ARG_PTR(c, request);
  *request = RT_REQUEST;
  return 0;
}
static rtResult testAny(int version, void* request, int* done, int* sizes) {
  rtEchoCall* c = rtEchoBegin("net.test", version);
  RT_ARG_PTR(c, request);
  RT_ARG_PTR(c, done);
  RT_ARG_PTR(c, sizes);
  *done = 1;
  if (sizes) sizes[0] = RT_TEST_SIZE;
  return 0;
}
static rtResult closeAny(int version, const char* what, void* comm) {
  rtEchoCall* c = rtEchoBegin(what, version);
  RT_ARG_PTR(c, comm);
  return 0;
}
static rtResult finalizeAny(int version, void* ctx) {
  rtEchoCall* c = rtEchoBegin("net.finalize", version);
  RT_ARG_PTR(c, ctx);
  return 0;
}
static rtResult setNetAttrAny(int version, void* ctx, rtNetAttr* attr) {
  rtEchoCall* c = rtEchoBegin("net.setNetAttr", version);
  RT_ARG_PTR(c, ctx);
  RT_ARG_PTR(c, attr);
  rtEchoBytes(c, attr, sizeof(*attr));
#ifdef RT_POISON_ATTR
  poisonPast(attr, sizeof(*attr));
#endif
  return 0;
}

#include "net_plugin_tables_v10_v12.h"
#include "net_plugin_tables_v6_v9.h"
