// libFuzzer target for the NCCL topology XML reader (topo_gen/nccl_xml.h) on arbitrary bytes. Besides
// crashes and sanitizer reports it checks the reader's promises: a rejection names the input with
// file:line:column, and a host it accepts, written back within NCCL's limits, reads again the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "topo_gen/nccl_xml.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

void checkRewrite(const railtune::fabric::Host& host) {
  railtune::topo::XmlElement root;
  try {
    root = railtune::topo::buildNcclXml(host);
  } catch (const std::invalid_argument&) {
    return;  // a host the writer refuses with a message (duplicate ids, a NIC with no CPU)
  }
  if (!railtune::topo::ncclLimitViolations(root).empty()) return;
  const railtune::fabric::Host again = railtune::topo::readNcclXml(railtune::topo::dumpNcclXml(root), "rewrite.xml");
  require(again.cpus.size() == host.cpus.size());
  require(again.name == host.name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  railtune::fabric::Host host;
  try {
    host = railtune::topo::readNcclXml(text, "fuzz.xml");
  } catch (const railtune::topo::NcclXmlError& e) {
    require(std::string(e.what()).rfind("fuzz.xml:", 0) == 0);
    return 0;
  }
  checkRewrite(host);
  return 0;
}
