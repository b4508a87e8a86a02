// What every plugin writer that takes its folder from a variable (RAILTUNE_PATH_LOG_DIR,
// RAILTUNE_PROFILE_DIR) must do with that folder, checked the same way for each: missing parents are
// made with mode 0755 (umask 022), and a file where a folder belongs is one WARN naming both and the
// writer's fallback, and no writer. `make(log, env)` is the writer's fromEnvironment.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/log.h"
#include "tests/support/fake_env.h"
#include "tests/support/log_capture.h"

namespace railtune::testing {

// Sets `variable` to dir/var/log/railtune/<leaf>; `writeOne(log, env)` makes the writer, writes one
// record, shuts it down and checks it was written.
inline void expectMissingParentsMade(const std::filesystem::path& dir, const char* variable, const char* leaf,
                                     const std::function<void(const Log&, EnvLookup)>& writeOne) {
  const mode_t mask = umask(022);
  fakeEnvVars()[variable] = (dir / "var/log/railtune" / leaf).string();
  writeOne(Log("writer"), fakeEnv);
  umask(mask);
  const std::string deepest = std::string("var/log/railtune/") + leaf;
  for (const std::string& folder :
       {std::string("var"), std::string("var/log"), std::string("var/log/railtune"), deepest}) {
    EXPECT_EQ(std::filesystem::status(dir / folder).permissions(), std::filesystem::perms(0755)) << folder;
  }
}

// Sets `variable` to dir/file/<leaf> with dir/file a regular file; `make(log, env)` must give no
// writer and exactly one WARN that names the folder, the file in the way and `fallback`.
inline void expectFileInTheWayIsOneWarn(const std::filesystem::path& dir, const char* variable, const char* leaf,
                                        const char* fallback, const std::function<bool(const Log&, EnvLookup)>& make) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "file") << "in the way";
  const std::string folder = (dir / "file" / leaf).string();
  fakeEnvVars()[variable] = folder;
  LogCapture::instance().clear();
  const Log log("writer", captureLogger);
  EXPECT_FALSE(make(log, fakeEnv)) << "a writer was made below a file";
  const auto warnings = LogCapture::instance().warnings();
  ASSERT_EQ(warnings.size(), 1u) << LogCapture::instance().dump();
  EXPECT_NE(warnings[0].text.find("cannot create folder " + folder + ": " + (dir / "file").string() + ": "),
            std::string::npos)
      << warnings[0].text;
  EXPECT_NE(warnings[0].text.find(fallback), std::string::npos) << warnings[0].text;
}

}  // namespace railtune::testing
