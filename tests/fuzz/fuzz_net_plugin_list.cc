// libFuzzer target for the emulator's NCCL_NET_PLUGIN list processing (Loader::openNetList), which
// parses the list without opening anything. Checks NCCL's rules on every input: "none" means no
// external entry, at most 14 external entries, no empty or over-long names, and NCCL's internal IB
// and Socket always last.
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "emulator/loader.h"

namespace {

constexpr std::size_t kMaxExternal = 14;
constexpr std::size_t kMaxNameLength = 255;

void require(bool promise) {
  if (!promise) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An environment variable ends at its first NUL.
  std::string value(reinterpret_cast<const char*>(data), size);
  value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));

  for (auto behaviour : {railtune::emu::NcclBehaviour::V2_28, railtune::emu::NcclBehaviour::V2_30}) {
    railtune::emu::Loader loader(behaviour, railtune::emu::EnvSource::fromMap({{"NCCL_NET_PLUGIN", value}}));
    const auto list = loader.openNetList();
    require(list.size() >= 2);
    require(list[list.size() - 2].internal && list[list.size() - 2].internalName == "IB");
    require(list.back().internal && list.back().internalName == "Socket");
    const std::size_t external = list.size() - 2;
    require(external <= kMaxExternal);
    if (strcasecmp(value.c_str(), "none") == 0) require(external == 0);
    for (std::size_t i = 0; i < external; ++i) {
      const std::string& name = list[i].binding.requested;
      require(!list[i].internal && !name.empty() && name.size() < kMaxNameLength);
      require(name.find(',') == std::string::npos && !list[i].binding.library);
    }
  }
  return 0;
}
