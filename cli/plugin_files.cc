#include "cli/plugin_files.h"

#include <stdexcept>

namespace railtune::cli {

namespace fs = std::filesystem;

fs::path defaultPluginDir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fs::path("lib");
  return (self.parent_path().parent_path() / "lib").lexically_normal();
}

PluginFiles findPluginFiles(const fs::path& dir) {
  const fs::path base = fs::absolute(dir).lexically_normal();
  PluginFiles files{base / "libnccl-net-railtune.so", base / "libnccl-tuner-railtune.so",
                    base / "libnccl-profiler-railtune.so"};
  std::string missing;
  for (const fs::path* p : {&files.net, &files.tuner, &files.profiler}) {
    std::error_code ec;
    if (!fs::is_regular_file(*p, ec)) missing += (missing.empty() ? "" : ", ") + p->filename().string();
  }
  if (!missing.empty())
    throw std::runtime_error("plugin libraries not found in " + base.string() + ": " + missing +
                             " (build them, or point --plugin-dir at the folder that holds them)");
  return files;
}

fs::path findVerbsSimulator(const fs::path& pluginDir) {
  const fs::path base = fs::absolute(pluginDir).lexically_normal();
  const fs::path installed = base / "railtune" / "verbs_sim" / "libibverbs.so.1";
  const fs::path built = (base.parent_path() / "verbs_sim" / "libibverbs.so.1").lexically_normal();
  for (const fs::path& candidate : {installed, built}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  throw std::runtime_error("the verbs simulator (libibverbs.so.1) is neither in " + installed.parent_path().string() +
                           " nor in " + built.parent_path().string() +
                           " (build railtune_verbs_sim, or name it with --verbs-lib)");
}

}  // namespace railtune::cli
