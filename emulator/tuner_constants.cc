// NCCL's ncclTunerConstantsDefaults for 2.28.9 and 2.30.7 in NCCL's v5 and v7 structs (the values are in
// formats/nccl_defaults.cc), and NCCL's pick from the cost table (topoGetAlgoInfo).
#include "emulator/tuner_driver.h"

#include <cstring>
#include <type_traits>

#include "formats/nccl_defaults.h"

namespace railtune::emu {

ncclTunerConstants_v5_t defaultTunerConstants(NcclBehaviour b) {
  const formats::CostModelConstants ours = formats::ncclDefaultConstants(
      b == NcclBehaviour::V2_28 ? formats::NcclRelease::V2_28 : formats::NcclRelease::V2_30);
  static_assert(
      sizeof(ncclTunerConstants_v5_t) == sizeof(ours) && std::is_trivially_copyable_v<ncclTunerConstants_v5_t>,
      "formats/nccl_enums.h mirrors NCCL's tuner constants");
  ncclTunerConstants_v5_t c;
  std::memcpy(&c, &ours, sizeof c);
  return c;
}

ncclTunerConstants_v7_t defaultTunerConstantsV7(NcclBehaviour b) {
  const ncclTunerConstants_v5_t rows = defaultTunerConstants(b);
  ncclTunerConstants_v7_t c;
  std::memset(&c, 0, sizeof c);
  tunerConstantsV5ToV7(&c, &rows);
  for (int s = 0; s < NCCL_NUM_TUNING_SCALES_V5; ++s) {  // row 4 as row 3: see tuner_driver.h
    c.llMaxBws[NCCL_RUBIN_COMPCAP_IDX][s] = c.llMaxBws[NCCL_BLACKWELL_COMPCAP_IDX][s];
    c.perChMaxRingLL128Bws[NCCL_RUBIN_COMPCAP_IDX][s] = c.perChMaxRingLL128Bws[NCCL_BLACKWELL_COMPCAP_IDX][s];
    c.perChMaxTreeLL128Bws[NCCL_RUBIN_COMPCAP_IDX][s] = c.perChMaxTreeLL128Bws[NCCL_BLACKWELL_COMPCAP_IDX][s];
    c.perChMaxTreeBws[NCCL_RUBIN_COMPCAP_IDX][s] = c.perChMaxTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][s];
    c.perChMaxNVLSTreeBws[NCCL_RUBIN_COMPCAP_IDX][s] = c.perChMaxNVLSTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][s];
  }
  return c;
}

bool pickFromCostTable(const CostTable& table, int* algorithm, int* protocol) {
  float best = -1.0f;
  *algorithm = NCCL_ALGO_UNDEF;
  *protocol = NCCL_PROTO_UNDEF;
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++) {
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; p++) {
      const float t = table[a][p];
      if (t < 0.0f) continue;
      if (best < 0.0f || t < best) {  // strictly smaller: ties keep the lowest algorithm, then protocol
        best = t;
        *algorithm = a;
        *protocol = p;
      }
    }
  }
  return best >= 0.0f;
}

}  // namespace railtune::emu
