// Tests that drive the real plugins through the emulator, the host-side stand-in for NCCL 2.28
// 2.30 and 2.31: its loader binds the symbols NCCL would, its drivers call them as NCCL's call sites
// and adapters do, and its poison guards catch writes past any struct it hands over.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "emulator/loader.h"
#include "emulator/logger.h"
#include "tests/e2e/plugin_fixture.h"

namespace railtune::testing {

inline std::string pluginPath(const char* kind) {
  return std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-" + kind + "-railtune.so";
}

inline std::string behaviourTag(emu::NcclBehaviour b) {
  return b == emu::NcclBehaviour::V2_28 ? "nccl2_28" : b == emu::NcclBehaviour::V2_30 ? "nccl2_30" : "nccl2_31";
}

class EmulatedTest : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    emu::takePluginLog();  // drop what earlier tests left in the emulator's logger
  }
  // The plugin's WARN lines the emulator's logger (NCCL's ncclDebugLog stand-in) received.
  std::vector<std::string> pluginWarnings() {
    for (std::string& line : emu::takePluginLog()) seen_.push_back(std::move(line));
    std::vector<std::string> warnings;
    for (const std::string& line : seen_) {
      if (line.rfind("WARN ", 0) == 0) warnings.push_back(line);
    }
    return warnings;
  }
  std::string pluginLogText() {
    pluginWarnings();
    std::string out;
    for (const std::string& line : seen_) out += line + "\n";
    return out;
  }

 private:
  std::vector<std::string> seen_;
};

}  // namespace railtune::testing
