// The model's corrections to NCCL's own cost model for NVLink5 (GB200/GB300 NVL72). Each one is a
// published measurement divided by what NCCL's formula predicts for the measured system; each cites
// its data file under tests/data/tuner/model/, and tests/unit/tuner_plugin/model/tuner_model_corrections_test.cc
// re-derives it from that file. Where no measurement exists, the model keeps NCCL's formula unchanged.
#pragma once

namespace railtune::tuner::model {

// NVLS efficiency on an NVLink domain that spans hosts (multi-node NVLink: trays of an NVL72 rack under
// MNNVL; domainSpansHosts in model_inputs.h). NCCL uses nvlsEfficiency 0.74 for every Blackwell system; on
// one GB200 NVL72 rack (72 ranks, NCCL 2.26.2) AllReduce reaches 839 GB/s bus bandwidth at 4-8 GiB, where
// NCCL's formula predicts 917.6. 0.74 x 839.0 / 917.6 = 0.677. Data:
// gb200-nvl72-1rack-72gpu-allreduce-coreweave.txt. It applies to such domains only, since it was measured
// on one; a domain inside one host keeps NCCL's.
inline constexpr double kNvlsEfficiencyMultiNodeNvlink = 0.677;

// Ring/Simple efficiency on NVLink5: one GB200 tray (4 ranks, NCCL 2.25.1) reaches 679.6 GB/s bus
// bandwidth at 8 GiB where NCCL's formula predicts 720 (16 channels x 45 GB/s). 679.6 / 720 = 0.944.
// Applied when the ring is NVLink-bound (not network-bound). Data: azure-nd-gb200-v6-1tray-ring-allreduce.txt.
inline constexpr double kRingSimpleNvlinkEfficiency = 0.944;

}  // namespace railtune::tuner::model
