#include "net_plugin/engine.h"

namespace railtune::net {

std::unique_ptr<Engine> makeEngine(const EngineOptions&, const Log&) {
  // The socket and verbs transports (issue 5) are chosen here; until then railtune carries nothing
  // and NCCL uses its own IB or Socket transport.
  throw StepAside("no transport yet");
}

}  // namespace railtune::net
