// The 144 constants of ncclTunerConstants_v5_t by number and by name, for a fitter that reads and writes
// them one at a time (terms.h). Names use NCCL's own vocabulary: NCCL_HW_* links, ncclAlgoStr and
// ncclProtoStr, the compute-capability rows and NCCL_TUNING_SCALE_* columns of nccl_tuner.h.
#include <array>
#include <stdexcept>
#include <string>

#include "emulator/nccl_model/model_internal.h"

namespace railtune::ncclmodel {
namespace {

constexpr int kCells = kNumAlgorithms * kNumProtocols;                       // 21
constexpr int kHwBase = kCells;                                              // 21
constexpr int kCapBase = kHwBase + formats::kNumHwLinks * kCells;            // 84
constexpr int kCapSize = formats::kNumCompCaps * formats::kNumTuningScales;  // 12
static_assert(kCapBase + 5 * kCapSize == kNumConstIds);
static_assert(sizeof(CostModelConstants) == kNumConstIds * sizeof(double));

constexpr const char* kLinkNames[formats::kNumHwLinks] = {"NVLINK", "PCI", "NET"};
constexpr const char* kCapArrayNames[5] = {"llMaxBws", "perChMaxRingLL128Bws", "perChMaxTreeLL128Bws",
                                           "perChMaxTreeBws", "perChMaxNVLSTreeBws"};
constexpr const char* kRowNames[formats::kNumCompCaps] = {"Volta", "Ampere", "Hopper", "Blackwell"};
constexpr const char* kScaleNames[formats::kNumTuningScales] = {"1NODE", "2NODES", "4NODES"};

std::string rowName(int array, int row, int scale) {
  // Across nodes NCCL indexes llMaxBws by the CPU (tuning.cc:269-271@v2.30.7): row 1 for AMD or mixed,
  // row 0 for the others (Intel, ARM); rows 2 and 3 are then never read.
  if (array == static_cast<int>(CapArray::LlMax) && scale > 0 && row < 2) return row == 1 ? "AmdCPU" : "OtherCPU";
  return kRowNames[row];
}

std::array<std::string, kNumConstIds> makeNames() {
  std::array<std::string, kNumConstIds> names;
  for (int i = 0; i < kNumConstIds; i++) {
    std::string& n = names[static_cast<size_t>(i)];
    if (i < kHwBase) {
      n = std::string("baseLatencies[") + kAlgoNames[i / kNumProtocols] + "][" + kProtoNames[i % kNumProtocols] + "]";
    } else if (i < kCapBase) {
      const int k = i - kHwBase, cell = k % kCells;
      n = std::string("hwLatencies[") + kLinkNames[k / kCells] + "][" + kAlgoNames[cell / kNumProtocols] + "][" +
          kProtoNames[cell % kNumProtocols] + "]";
    } else {
      const int k = i - kCapBase, array = k / kCapSize, row = (k % kCapSize) / formats::kNumTuningScales;
      const int scale = k % formats::kNumTuningScales;
      n = std::string(kCapArrayNames[array]) + "[" + rowName(array, row, scale) + "][" + kScaleNames[scale] + "]";
    }
  }
  return names;
}

const std::array<std::string, kNumConstIds>& names() {
  static const std::array<std::string, kNumConstIds> table = makeNames();
  return table;
}

int indexOf(ConstId id) {
  return static_cast<int>(id);
}

}  // namespace

ConstId baseLatencyId(Algorithm a, Protocol p) {
  return static_cast<ConstId>(static_cast<int>(a) * kNumProtocols + static_cast<int>(p));
}

ConstId hwLatencyId(HwLink link, Algorithm a, Protocol p) {
  return static_cast<ConstId>(kHwBase + static_cast<int>(link) * kCells + static_cast<int>(a) * kNumProtocols +
                              static_cast<int>(p));
}

ConstId capId(CapArray array, int row, int scale) {
  return static_cast<ConstId>(kCapBase + static_cast<int>(array) * kCapSize + row * formats::kNumTuningScales + scale);
}

const char* constName(ConstId id) {
  const int i = indexOf(id);
  if (i < 0 || i >= kNumConstIds) return "invalid";
  return names()[static_cast<size_t>(i)].c_str();
}

std::optional<ConstId> constIdByName(std::string_view name) {
  for (int i = 0; i < kNumConstIds; i++)
    if (names()[static_cast<size_t>(i)] == name) return static_cast<ConstId>(i);
  return std::nullopt;
}

double& constRef(CostModelConstants& c, ConstId id) {
  const int i = indexOf(id);
  if (i < 0 || i >= kNumConstIds)
    throw std::out_of_range("NCCL model: no tuner constant number " + std::to_string(i) + " (there are 144)");
  if (i < kHwBase) return c.baseLatencies[i / kNumProtocols][i % kNumProtocols];
  if (i < kCapBase) {
    const int k = i - kHwBase, cell = k % kCells;
    return c.hwLatencies[k / kCells][cell / kNumProtocols][cell % kNumProtocols];
  }
  const int k = i - kCapBase, row = (k % kCapSize) / formats::kNumTuningScales, scale = k % formats::kNumTuningScales;
  switch (static_cast<CapArray>(k / kCapSize)) {
    case CapArray::LlMax:
      return c.llMaxBws[row][scale];
    case CapArray::RingLL128:
      return c.perChMaxRingLL128Bws[row][scale];
    case CapArray::TreeLL128:
      return c.perChMaxTreeLL128Bws[row][scale];
    case CapArray::Tree:
      return c.perChMaxTreeBws[row][scale];
    case CapArray::NvlsTree:
      break;
  }
  return c.perChMaxNVLSTreeBws[row][scale];
}

double constValue(const CostModelConstants& c, ConstId id) {
  return constRef(const_cast<CostModelConstants&>(c), id);
}

}  // namespace railtune::ncclmodel
