// The bridge from the handshake to the path log: what the peer said about itself becomes the
// connect record's remote end.
#include "formats/path_log.h"

namespace railtune::formats::path_log {

void describePeer(const HandshakeHeader& peer, uint64_t localDigest, PathRecord* connect) {
  connect->remote.host.assign(peer.host);
  connect->remote.pid = peer.pid;
  connect->remote.device = peer.device;
  connect->remote.hca.assign(peer.hca);
  connect->remote.rail = peer.rail;
  connect->remote.plane = peer.plane;
  connect->remote.rank = peer.rank;
  connect->localDigest = localDigest;
  connect->remoteDigest = peer.digest;
}

}  // namespace railtune::formats::path_log
