// Real samples of others (nccl-tests outputs, NCCL's example tuner configuration) are read in place from
// the shared data folder beside the checkout (RAILTUNE_SHARED_DATA, tests/CMakeLists.txt), never copied
// into the project. A test that needs one skips, naming the file, where the folder is absent.
#pragma once

#include <filesystem>
#include <string>

namespace railtune::testing {

inline std::string sharedDataPath(const std::string& relative) {
  return std::string(RAILTUNE_SHARED_DATA) + "/" + relative;
}

inline bool sharedDataPresent(const std::string& path) {
  return std::filesystem::exists(path);
}

}  // namespace railtune::testing
