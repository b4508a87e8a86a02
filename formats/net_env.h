// The measured network settings file, `railtune.net-env/1` (docs/formats.md#net-env, schema
// docs/formats/net-env.schema.json): per communicator shape (with its GPU model and fabric) and collective, the
// NCCL network variables that won a sweep's environment matrix, with the evidence; and the shapes nothing was
// decided for, with why. `railtune topo env --measured` and `railtune topo rail-map --measured` read it
// (net_env_pick.h chooses the entry). The reader is strict, as the rail map's: an unknown schema, a missing,
// mistyped or unknown field, a duplicated key or entry, a value out of range is an error naming the field and its
// "file:line:column".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/measured_env.h"
#include "formats/schemas.h"

namespace railtune::formats {

inline constexpr size_t kMaxNetEnvBytes = size_t{16} << 20;  // far above any sweep's winners

// The network between the nodes, in the sweep dataset's words: transport as NCCL names its network ("IB",
// "Socket", a plugin's name, "unknown"), link layer as NCCL's NET/IB line does ("IB", "RoCE", "unknown"), the
// slowest NIC port in Gb/s (0 unknown).
struct NetEnvFabric {
  std::string transport, linkLayer;
  int nicGbps = 0;
  bool operator==(const NetEnvFabric&) const = default;
};

// The communicator as the sweep dataset counts it; gpu is the device lines' name ("NVIDIA GB300"; "" unknown).
struct NetEnvShape {
  int ranks = 0, nodes = 0, nvlDomains = 0, ranksPerDomain = 0;  // ranksPerDomain 0: domains of unequal size
  std::string gpu;
  NetEnvFabric fabric;
  bool operator==(const NetEnvShape&) const = default;
  std::string label() const;  // "144 ranks on 2 nodes"
};

// Gains are fractions of the baseline's median bus bandwidth (0.68 = +68 %), at `sizes` (bytes, ascending: the
// sizes the winner was judged at). runs / baselineRuns: runs per size of the winner and of the baseline.
// maxSpread: the largest run-to-run spread ((max - min) / median) of either at those sizes. worstRegression: the
// largest fall at any measured size, as a fraction >= 0 (0: none fell).
struct NetEnvEvidence {
  std::vector<uint64_t> sizes;
  double minGain = 0, medianGain = 0, maxGain = 0;
  int runs = 0, baselineRuns = 0;
  double maxSpread = 0, worstRegression = 0;
  bool operator==(const NetEnvEvidence&) const = default;
};

struct NetEnvEntry {
  NetEnvShape shape;  // nodes >= 2: a one-node communicator never touches the network
  std::string collective;
  MeasuredEnv env;  // at least one variable, names unique
  NetEnvEvidence evidence;
  std::string description;
  bool operator==(const NetEnvEntry&) const = default;
};

struct NetEnvUndecided {
  NetEnvShape shape;
  std::string collective;
  std::string why;
  bool operator==(const NetEnvUndecided&) const = default;
};

struct NetEnvFile {
  std::string generatedBy;            // "railtune sweep rules 0.9.0"
  std::vector<std::string> datasets;  // the datasets the winners come from, as given
  std::vector<NetEnvEntry> entries;
  std::vector<NetEnvUndecided> notDecided;
  bool operator==(const NetEnvFile&) const = default;
};

// A net-env file that cannot be used; what() lists every problem found, "source:line:column: message" each,
// one per line (the first only, with a count, when there are many).
class NetEnvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

NetEnvFile parseNetEnv(const std::string& text, const std::string& source);  // throws NetEnvError
NetEnvFile readNetEnvFile(const std::string& path);  // a regular file of at most kMaxNetEnvBytes; throws NetEnvError

// The file as `parseNetEnv` reads it back: 2-space indented JSON, keys in the documented order.
std::string writeNetEnv(const NetEnvFile& file);

}  // namespace railtune::formats
