// A fitted model with every part of the format used once or more: docs/formats/tuner-model.example.json is its
// writer's output (tuner_model_test.cc holds them equal). The numbers are illustrative, not a fit's result; the
// `nccl` values are NCCL 2.30.7's defaults at the Blackwell row (tuning.cc:148-210@v2.30.7).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "formats/tuner_model/tuner_model.h"

namespace railtune::formats::tuner_model::testing {

inline Constant fitted(double nccl, double value, std::string why = "") {
  return {nccl, value, std::move(why)};
}
inline Constant kept(double nccl, std::string why) {
  return {nccl, std::nullopt, std::move(why)};
}

inline Constants sampleConstants() {
  constexpr int kRing = static_cast<int>(Algorithm::Ring), kNvls = static_cast<int>(Algorithm::Nvls);
  constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
  Constants c;
  c.baseLatencyUs[kRing][kLL128] = fitted(14.0, 9.5);
  c.baseLatencyUs[kRing][kSimple] = fitted(8.4, 6.2);
  c.baseLatencyUs[kRing][kLL] = kept(6.6, "one rank count only measured LL: base and per-hop latency not separable");
  c.hwLatencyUs[0][kRing][kLL] = fitted(0.6, 0.45);
  c.hwLatencyUs[0][kRing][kLL128] = fitted(1.9, 1.1);
  c.hwLatencyUs[0][kRing][kSimple] = fitted(3.4, 2.9);
  c.hwLatencyUs[0][kNvls][kSimple] = fitted(25, 17.5, "NVLS on one node: its only latency term (tuning.cc:424)");
  c.hwLatencyUs[2][kRing][kSimple] = kept(14.0, "no multi-node data");
  LlConstant oneNode;
  static_cast<Constant&>(oneNode) = fitted(282, 250);
  c.llMaxBwGbps[0] = oneNode;
  LlConstant twoNodes;
  static_cast<Constant&>(twoNodes) = kept(39.0, "no multi-node data");
  twoNodes.cpu = CpuRow::NotAmd;
  c.llMaxBwGbps[1] = twoNodes;
  c.perChannelMaxGbps[static_cast<int>(CapArray::RingLL128)][0] = fitted(40, 28, "measured below the graph term");
  c.perChannelMaxGbps[static_cast<int>(CapArray::NvlsTree)][1] = kept(96, "no data at 2 nodes");
  return c;
}

inline Validation sampleValidation() {
  Validation v;
  v.status = ValidationStatus::Complete;
  v.inSample = {312, 0.031, 0.004, std::nullopt, ""};
  v.leaveOneSizeOut = {240, 0.042, 0.006,
                       RegretAt{"8 ranks, 1 node, 1 NVLink domain of 8", Collective::AllReduce, 4194304}, ""};
  v.leaveOneShapeOut = {52, 0.083, 0.012,
                        RegretAt{"16 ranks, 1 node, 1 NVLink domain of 16", Collective::AllGather, 1048576},
                        "fit on 4 and 8 ranks, predicted 16"};
  v.heldOutShapes = {"16 ranks, 1 node, 1 NVLink domain of 16"};
  v.ncclDefault = {312, 0.43, 0.08, RegretAt{"4 ranks, 1 node, 1 NVLink domain of 4", Collective::AllReduce, 65536},
                   ""};
  return v;
}

inline Fit sampleFit() {
  Fit fit;
  fit.appliesTo = {"NVIDIA GB300", Generation::Blackwell, {"IB", "InfiniBand", 800.0}, {"2.28", "2.30"}};
  fit.basis = {NcclRelease::V2_30, "gb300-nvl72", Graphs::Emulated};
  fit.data.datasets = {{"sweep-4/dataset.jsonl", "fnv1a64:8c3f1d2e5a6b7c90", 96000},
                       {"sweep-8/dataset.jsonl", "fnv1a64:0f1e2d3c4b5a6978", 96000}};
  fit.data.shapes = {
      {4, 1, 1, 4, 8, 17179869184, 7}, {8, 1, 1, 8, 8, 17179869184, 7}, {16, 1, 1, 16, 8, 8589934592, 7}};
  fit.data.collectives = {Collective::AllGather, Collective::AllReduce};
  fit.constants = sampleConstants();
  Correction ring;
  static_cast<CellAffine&>(ring) = {std::nullopt, Algorithm::Ring, Protocol::Simple, Scale::OneNode, 0.93,
                                    0.0,          std::nullopt};
  ring.why = "Ring/Simple bandwidth has no constant (tuning.cc:324@v2.30.7)";
  Correction nvls;
  static_cast<CellAffine&>(nvls) = {
      Collective::AllReduce, Algorithm::Nvls, Protocol::Simple, Scale::OneNode, 1.08, -1.5, std::nullopt};
  nvls.why = "NVLS bandwidth has no constant (tuning.cc:307-322@v2.30.7)";
  // One measured shape's own correction: at 8 ranks on one node only (a rank count the scale's cannot serve).
  Correction ring8;
  static_cast<CellAffine&>(ring8) = {std::nullopt, Algorithm::Ring, Protocol::LL128, Scale::OneNode, 1.2,
                                     0.5,          CommShape{8, 1}};
  ring8.why = "8 ranks, 1 node ranks Ring/LL128 apart from the other measured shapes: no constant for it";
  fit.corrections = {ring, nvls, ring8};
  fit.tableTransform = {
      {std::nullopt, Algorithm::Ring, Protocol::LL128, Scale::OneNode, 0.71, 2.1, std::nullopt},
      {Collective::AllReduce, Algorithm::Ring, Protocol::Simple, Scale::OneNode, 0.93, -0.4, std::nullopt},
      {std::nullopt, Algorithm::Ring, Protocol::LL128, Scale::OneNode, 0.85, 2.6, CommShape{8, 1}}};
  fit.validation = sampleValidation();
  fit.usable[0] = {true,
                   "leave-one-size-out worst 4.2 % <= 5 %; leave-one-shape-out worst 8.3 % <= 10 %; applies from 4 to "
                   "16 ranks, the measured range",
                   false,
                   {},
                   4,
                   16};
  fit.usable[1] = {false, "no data at 2 nodes", false, {}, 0, 0};
  fit.usable[2] = {false, "no data at 4 or more nodes", false, {}, 0, 0};
  return fit;
}

inline TunerModel sampleModel() {
  TunerModel model;
  model.generatedBy = "railtune sweep fit 0.30.0";
  model.created = "2026-12-06T16:00:00Z";
  model.fits = {sampleFit()};
  model.notes = {
      "NVIDIA H100 80GB HBM3 / TCPXO, 16 ranks on 2 nodes: no graph data for that shape; fit skipped, "
      "NCCL decides"};
  return model;
}

// The reader's message for `text`, or "" when it accepts it.
inline std::string errorOf(const std::string& text) {
  try {
    parseTunerModel(text, "model.json");
  } catch (const TunerModelError& e) {
    return e.what();
  }
  return "";
}

// `base` with the first `from` (which must be there) replaced by `to`.
inline std::string replacedIn(const std::string& base, const std::string& from, const std::string& to) {
  const size_t at = base.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? base : base.substr(0, at) + to + base.substr(at + from.size());
}

}  // namespace railtune::formats::tuner_model::testing
