/* The railtune net plugin's own profiler event (net v10+ profiler callback), so that a profiler can
 * name the NIC, rail and peer of each network transfer. NCCL copies the plugin id and this struct's
 * address into the ncclProfileNetPlugin event descriptor it hands the profiler's startEvent; a
 * profiler recognises railtune's events by the type bits of the id and reads the struct of the
 * version in its low bits. C, so that any profiler can include it; documented in docs/net.md.
 *
 *   pluginId = RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION
 *
 * The struct and the strings it points to are valid only during the startEvent call (copy what you
 * keep). Fields are only ever added at the end, with a new version. */
#ifndef RAILTUNE_NET_PROFILER_EVENT_H_
#define RAILTUNE_NET_PROFILER_EVENT_H_

#include <stddef.h>
#include <stdint.h>

/* Network type bits (16..31) of the plugin id: "rt", distinct from NCCL's IB (1 << 16) and
 * socket (2 << 16) types. */
#define RAILTUNE_PROFILER_NET_TYPE (0x7274 << 16)
#define RAILTUNE_PROFILER_NET_VERSION 1

enum { railtuneNetEventSend = 1, railtuneNetEventRecv = 2 };

typedef struct {
  uint8_t type;         /* railtuneNetEventSend or railtuneNetEventRecv */
  uint64_t connection;  /* the path log's connection id (unique within the process) */
  int device;           /* NCCL's device index */
  const char* hca;      /* the NIC that carries the transfer ("mlx5_3"), never NULL */
  const char* netdev;   /* its network interface ("" when unknown) */
  int rail;             /* -1: unknown */
  int plane;            /* -1: single plane or unknown */
  const char* peerHost; /* the other end's host, never NULL */
  int peerRank;         /* -1: unknown */
  size_t bytes;         /* the message (send) or the posted buffer (receive) */
} railtuneNetEventDescr_v1_t;

#endif
