/* Entry points and exported tables of the test net plugin, versions 10..12 (included by net_plugin.c). */

#if defined(RT_NET_V10)
static rtResult v10CloseSend(void* c) {
  return closeAny(10, "net.closeSend", c);
}
static rtResult v10CloseRecv(void* c) {
  return closeAny(10, "net.closeRecv", c);
}
static rtResult v10CloseListen(void* c) {
  return closeAny(10, "net.closeListen", c);
}
static rtResult v10Devices(int* n) {
  return devicesAny(10, n);
}
static rtResult v10DeregMr(void* comm, void* mh) {
  return deregMrAny(10, comm, mh);
}
static rtResult v10RegMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t off, int fd, void** mh) {
  return regMrDmaBufAny(10, comm, data, size, type, off, fd, mh);
}
static rtResult v10Iflush(void* rc, int n, void** data, int* sizes, void** mh, void** req) {
  return iflushAny(10, rc, n, data, sizes, mh, req);
}
static rtResult v10Test(void* req, int* done, int* sizes) {
  return testAny(10, req, done, sizes);
}

static rtResult v10GetDeviceMr(void* comm, void* mh, void** dptr) {
  rtEchoCall* c = rtEchoBegin("net.getDeviceMr", 10);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, mh);
  RT_ARG_PTR(c, dptr);
  return 0;
}
static rtResult v10IrecvConsumed(void* rc, int n, void* req) {
  rtEchoCall* c = rtEchoBegin("net.irecvConsumed", 10);
  RT_ARG_PTR(c, rc);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, req);
  return 0;
}

static rtResult v10MakeVDevice(int* d, rtVProps4* props) {
  rtEchoCall* c = rtEchoBegin("net.makeVDevice", 10);
  RT_ARG_PTR(c, d);
  RT_ARG_PTR(c, props);
  RT_ARG_INT(c, props->ndevs);
  RT_ARG_INT(c, props->devs[0]);
  RT_ARG_INT(c, props->devs[1]);
  return 0;
}

static rtResult v10Init(rtLogger log, rtProfCallback prof) {
  return initLog(10, log, prof);
}
static rtResult v10Listen(int dev, void* handle, void** lc) {
  return listenAny(10, NULL, dev, handle, lc);
}
static rtResult v10Connect(int dev, rtCommConfig* config, void* handle, void** sc, rtDevHandle** dc) {
  return connectAny(10, NULL, dev, config, handle, sc, dc);
}
static rtResult v10Accept(void* lc, void** rc, rtDevHandle** dc) {
  return acceptAny(10, lc, rc, dc);
}
static rtResult v10RegMr(void* comm, void* data, size_t size, int type, void** mh) {
  return regMrAny(10, comm, data, (uint64_t)size, type, mh);
}
static rtResult v10Isend(void* sc, void* data, size_t size, int tag, void* mh, void* ph, void** req) {
  return isendAny(10, sc, data, size, tag, mh, ph, req);
}
static rtResult v10Irecv(void* rc, int n, void** data, size_t* sizes, int* tags, void** mh, void** ph, void** req) {
  return irecvAny(10, rc, n, data, sizes[0], tags, mh, ph, req);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(rtLogger, rtProfCallback);
  rtResult (*devices)(int*);
  rtResult (*getProperties)(int, rtProps9*);
  rtResult (*listen)(int, void*, void**);
  rtResult (*connect)(int, rtCommConfig*, void*, void**, rtDevHandle**);
  rtResult (*accept)(void*, void**, rtDevHandle**);
  rtResult (*regMr)(void*, void*, size_t, int, void**);
  rtResult (*regMrDmaBuf)(void*, void*, size_t, int, uint64_t, int, void**);
  rtResult (*deregMr)(void*, void*);
  rtResult (*isend)(void*, void*, size_t, int, void*, void*, void**);
  rtResult (*irecv)(void*, int, void**, size_t*, int*, void**, void**, void**);
  rtResult (*iflush)(void*, int, void**, int*, void**, void**);
  rtResult (*test)(void*, int*, int*);
  rtResult (*closeSend)(void*);
  rtResult (*closeRecv)(void*);
  rtResult (*closeListen)(void*);
  rtResult (*getDeviceMr)(void*, void*, void**);
  rtResult (*irecvConsumed)(void*, int, void*);
  rtResult (*makeVDevice)(int*, rtVProps4*);
} ncclNetPlugin_v10 = {RT_NET_NAME,  v10Init,        v10Devices,     getProps10,       v10Listen,
                       v10Connect,   v10Accept,      v10RegMr,       v10RegMrDmaBuf,   v10DeregMr,
                       v10Isend,     v10Irecv,       v10Iflush,      v10Test,          v10CloseSend,
                       v10CloseRecv, v10CloseListen, v10GetDeviceMr, v10IrecvConsumed, v10MakeVDevice};
#endif

#if defined(RT_NET_V11)
static rtResult v11CloseSend(void* c) {
  return closeAny(11, "net.closeSend", c);
}
static rtResult v11CloseRecv(void* c) {
  return closeAny(11, "net.closeRecv", c);
}
static rtResult v11CloseListen(void* c) {
  return closeAny(11, "net.closeListen", c);
}
static rtResult v11Devices(int* n) {
  return devicesAny(11, n);
}
static rtResult v11DeregMr(void* comm, void* mh) {
  return deregMrAny(11, comm, mh);
}
static rtResult v11RegMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t off, int fd, void** mh) {
  return regMrDmaBufAny(11, comm, data, size, type, off, fd, mh);
}
static rtResult v11Iflush(void* rc, int n, void** data, int* sizes, void** mh, void** req) {
  return iflushAny(11, rc, n, data, sizes, mh, req);
}
static rtResult v11Test(void* req, int* done, int* sizes) {
  return testAny(11, req, done, sizes);
}

static rtResult v11GetDeviceMr(void* comm, void* mh, void** dptr) {
  rtEchoCall* c = rtEchoBegin("net.getDeviceMr", 11);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, mh);
  RT_ARG_PTR(c, dptr);
  return 0;
}
static rtResult v11IrecvConsumed(void* rc, int n, void* req) {
  rtEchoCall* c = rtEchoBegin("net.irecvConsumed", 11);
  RT_ARG_PTR(c, rc);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, req);
  return 0;
}

static rtResult v11MakeVDevice(int* d, rtVProps4* props) {
  rtEchoCall* c = rtEchoBegin("net.makeVDevice", 11);
  RT_ARG_PTR(c, d);
  RT_ARG_PTR(c, props);
  RT_ARG_INT(c, props->ndevs);
  RT_ARG_INT(c, props->devs[0]);
  RT_ARG_INT(c, props->devs[1]);
  return 0;
}

static rtResult v11Init(void** ctx, uint64_t commId, rtCommConfig* config, rtLogger log, rtProfCallback prof) {
  return initCtx(11, ctx, commId, config, log, prof);
}
static rtResult v11Listen(void* ctx, int dev, void* handle, void** lc) {
  return listenAny(11, ctx, dev, handle, lc);
}
static rtResult v11Connect(void* ctx, int dev, void* handle, void** sc, rtDevHandle** dc) {
  return connectAny(11, ctx, dev, NULL, handle, sc, dc);
}
static rtResult v11Accept(void* lc, void** rc, rtDevHandle** dc) {
  return acceptAny(11, lc, rc, dc);
}
static rtResult v11RegMr(void* comm, void* data, size_t size, int type, void** mh) {
  return regMrAny(11, comm, data, (uint64_t)size, type, mh);
}
static rtResult v11Isend(void* sc, void* data, size_t size, int tag, void* mh, void* ph, void** req) {
  return isendAny(11, sc, data, size, tag, mh, ph, req);
}
static rtResult v11Irecv(void* rc, int n, void** data, size_t* sizes, int* tags, void** mh, void** ph, void** req) {
  return irecvAny(11, rc, n, data, sizes[0], tags, mh, ph, req);
}
static rtResult v11Finalize(void* ctx) {
  return finalizeAny(11, ctx);
}
static rtResult v11SetNetAttr(void* ctx, rtNetAttr* attr) {
  return setNetAttrAny(11, ctx, attr);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, uint64_t, rtCommConfig*, rtLogger, rtProfCallback);
  rtResult (*devices)(int*);
  rtResult (*getProperties)(int, rtProps11*);
  rtResult (*listen)(void*, int, void*, void**);
  rtResult (*connect)(void*, int, void*, void**, rtDevHandle**);
  rtResult (*accept)(void*, void**, rtDevHandle**);
  rtResult (*regMr)(void*, void*, size_t, int, void**);
  rtResult (*regMrDmaBuf)(void*, void*, size_t, int, uint64_t, int, void**);
  rtResult (*deregMr)(void*, void*);
  rtResult (*isend)(void*, void*, size_t, int, void*, void*, void**);
  rtResult (*irecv)(void*, int, void**, size_t*, int*, void**, void**, void**);
  rtResult (*iflush)(void*, int, void**, int*, void**, void**);
  rtResult (*test)(void*, int*, int*);
  rtResult (*closeSend)(void*);
  rtResult (*closeRecv)(void*);
  rtResult (*closeListen)(void*);
  rtResult (*getDeviceMr)(void*, void*, void**);
  rtResult (*irecvConsumed)(void*, int, void*);
  rtResult (*makeVDevice)(int*, rtVProps4*);
  rtResult (*finalize)(void*);
  rtResult (*setNetAttr)(void*, rtNetAttr*);
} ncclNetPlugin_v11 = {RT_NET_NAME,      v11Init,        v11Devices,     getProps11,   v11Listen,      v11Connect,
                       v11Accept,        v11RegMr,       v11RegMrDmaBuf, v11DeregMr,   v11Isend,       v11Irecv,
                       v11Iflush,        v11Test,        v11CloseSend,   v11CloseRecv, v11CloseListen, v11GetDeviceMr,
                       v11IrecvConsumed, v11MakeVDevice, v11Finalize,    v11SetNetAttr};
#endif

#if defined(RT_NET_V12)
static rtResult v12CloseSend(void* c) {
  return closeAny(12, "net.closeSend", c);
}
static rtResult v12CloseRecv(void* c) {
  return closeAny(12, "net.closeRecv", c);
}
static rtResult v12CloseListen(void* c) {
  return closeAny(12, "net.closeListen", c);
}
static rtResult v12Devices(int* n) {
  return devicesAny(12, n);
}
static rtResult v12DeregMr(void* comm, void* mh) {
  return deregMrAny(12, comm, mh);
}
static rtResult v12RegMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t off, int fd, void** mh) {
  return regMrDmaBufAny(12, comm, data, size, type, off, fd, mh);
}
static rtResult v12Iflush(void* rc, int n, void** data, int* sizes, void** mh, void** req) {
  return iflushAny(12, rc, n, data, sizes, mh, req);
}
static rtResult v12Test(void* req, int* done, int* sizes) {
  return testAny(12, req, done, sizes);
}

static rtResult v12GetDeviceMr(void* comm, void* mh, void** dptr) {
  rtEchoCall* c = rtEchoBegin("net.getDeviceMr", 12);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, mh);
  RT_ARG_PTR(c, dptr);
  return 0;
}
static rtResult v12IrecvConsumed(void* rc, int n, void* req) {
  rtEchoCall* c = rtEchoBegin("net.irecvConsumed", 12);
  RT_ARG_PTR(c, rc);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, req);
  return 0;
}

static rtResult v12MakeVDevice(int* d, rtVProps8* props) {
  rtEchoCall* c = rtEchoBegin("net.makeVDevice", 12);
  RT_ARG_PTR(c, d);
  RT_ARG_PTR(c, props);
  RT_ARG_INT(c, props->ndevs);
  RT_ARG_INT(c, props->devs[0]);
  RT_ARG_INT(c, props->devs[1]);
  return 0;
}

static rtResult v12Init(void** ctx, uint64_t commId, rtCommConfig* config, rtLogger log, rtProfCallback prof) {
  return initCtx(12, ctx, commId, config, log, prof);
}
static rtResult v12Listen(void* ctx, int dev, void* handle, void** lc) {
  return listenAny(12, ctx, dev, handle, lc);
}
static rtResult v12Connect(void* ctx, int dev, void* handle, void** sc, rtDevHandle** dc) {
  return connectAny(12, ctx, dev, NULL, handle, sc, dc);
}
static rtResult v12Accept(void* lc, void** rc, rtDevHandle** dc) {
  return acceptAny(12, lc, rc, dc);
}
static rtResult v12RegMr(void* comm, void* data, size_t size, int type, void** mh) {
  return regMrAny(12, comm, data, (uint64_t)size, type, mh);
}
static rtResult v12Isend(void* sc, void* data, size_t size, int tag, void* mh, void* ph, void** req) {
  return isendAny(12, sc, data, size, tag, mh, ph, req);
}
static rtResult v12Irecv(void* rc, int n, void** data, size_t* sizes, int* tags, void** mh, void** ph, void** req) {
  return irecvAny(12, rc, n, data, sizes[0], tags, mh, ph, req);
}
static rtResult v12Finalize(void* ctx) {
  return finalizeAny(12, ctx);
}
static rtResult v12SetNetAttr(void* ctx, rtNetAttr* attr) {
  return setNetAttrAny(12, ctx, attr);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(void**, uint64_t, rtCommConfig*, rtLogger, rtProfCallback);
  rtResult (*devices)(int*);
  rtResult (*getProperties)(int, rtProps12*);
  rtResult (*listen)(void*, int, void*, void**);
  rtResult (*connect)(void*, int, void*, void**, rtDevHandle**);
  rtResult (*accept)(void*, void**, rtDevHandle**);
  rtResult (*regMr)(void*, void*, size_t, int, void**);
  rtResult (*regMrDmaBuf)(void*, void*, size_t, int, uint64_t, int, void**);
  rtResult (*deregMr)(void*, void*);
  rtResult (*isend)(void*, void*, size_t, int, void*, void*, void**);
  rtResult (*irecv)(void*, int, void**, size_t*, int*, void**, void**, void**);
  rtResult (*iflush)(void*, int, void**, int*, void**, void**);
  rtResult (*test)(void*, int*, int*);
  rtResult (*closeSend)(void*);
  rtResult (*closeRecv)(void*);
  rtResult (*closeListen)(void*);
  rtResult (*getDeviceMr)(void*, void*, void**);
  rtResult (*irecvConsumed)(void*, int, void*);
  rtResult (*makeVDevice)(int*, rtVProps8*);
  rtResult (*finalize)(void*);
  rtResult (*setNetAttr)(void*, rtNetAttr*);
} ncclNetPlugin_v12 = {RT_NET_NAME,      v12Init,        v12Devices,     getProps12,   v12Listen,      v12Connect,
                       v12Accept,        v12RegMr,       v12RegMrDmaBuf, v12DeregMr,   v12Isend,       v12Irecv,
                       v12Iflush,        v12Test,        v12CloseSend,   v12CloseRecv, v12CloseListen, v12GetDeviceMr,
                       v12IrecvConsumed, v12MakeVDevice, v12Finalize,    v12SetNetAttr};
#endif
