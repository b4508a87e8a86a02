// The RAILTUNE_* registry: one row per variable, the parsers every reader goes through, and the
// Markdown rendering that docs/config.md is generated from.
#include "common/params.h"
#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace railtune {
namespace {

// Keep in sync with the fault sites of common/fault.cc (a unit test compares the two lists).
constexpr const char* kFaultSites =
    "tuner.init|tuner.getCollInfo|tuner.getChunkSize|tuner.finalize|"
    "net.init|net.devices|net.getProperties|net.listen|net.connect|net.accept|net.regMr|net.deregMr|"
    "net.isend|net.irecv|net.iflush|net.test|net.close|net.finalize|net.setNetAttr|"
    "profiler.init|profiler.startEvent|profiler.stopEvent|profiler.recordEventState|profiler.finalize|"
    "env.init|env.getEnv";

// The ranges of the integer variables. Each reader takes its value as the table gives it; the
// comments say where a bound comes from.
constexpr int64_t kMaxHangTimeoutSeconds = 86400;  // a day: far from overflowing nanoseconds
constexpr int64_t kMinSlots = 16;                  // at least one operation's worth of events
constexpr int64_t kMaxSlots = 1 << 20;             // 32-bit slot indices, bounded memory per communicator
constexpr int64_t kMaxNetStreams = 16;             // the socket transport's kMaxStreams (net_plugin/transports/socket/)
constexpr int64_t kMaxQpsPerConnection = 128;      // NCCL_IB_MAX_QPS (common/qp_policy.h)

// Keep in sync with profiler_plugin/capture/mask.cc (a unit test there parses every one).
constexpr const char* kProfileMaskNames =
    "coll|p2p|proxyop|proxystep|kernelch|kernelphase|cecoll|netplugin|all|default|none";

constexpr ParamSpec kParams[] = {
    {"RAILTUNE_STRICT", ParamType::Bool, "0", "all",
     "Turns railtune's safety nets into hard errors. With `0` (the default) a tuner whose initialisation fails "
     "still succeeds and leaves every decision to NCCL, and a configuration-digest mismatch between two ranks is "
     "a warning. With `1` a failed tuner initialisation is returned to NCCL as an error (NCCL then fails the "
     "communicator) and a digest mismatch fails the connection. Use `1` in CI and acceptance runs, `0` in "
     "production.",
     "", 0, 0},
    {"RAILTUNE_HOST", ParamType::String, "", "all",
     "The host name written into every record (`host`). When unset, railtune uses `NCCL_HOSTID`, then the "
     "machine's hostname. Set it when pods share a hostname or when records must match a scheduler's node names.",
     "", 0, 0},
    {"RAILTUNE_JOB_ID", ParamType::String, "", "all",
     "The job id written into every record (`job`). When unset, railtune uses `SLURM_JOB_ID`, then "
     "`RAILTUNE_K8S_JOB`, then `unknown`.",
     "", 0, 0},
    {"RAILTUNE_K8S_JOB", ParamType::String, "", "all",
     "The Kubernetes job name, meant to be set from the pod's downward API in the job template. Used as the "
     "record's `job` when neither `RAILTUNE_JOB_ID` nor `SLURM_JOB_ID` is set.",
     "", 0, 0},
    {"RAILTUNE_INJECT_FAULT", ParamType::List, "", "testing",
     "**Testing only; never set it in production.** A comma-separated list of entry points at which the "
     "plugins raise an internal failure on purpose, so that tests can check that each one is contained "
     "(see the failure table in the architecture document). It is read when a plugin initialises.",
     kFaultSites, 0, 0},
    {"RAILTUNE_RAIL_MAP", ParamType::String, "", "all",
     "Path of the rail map (`railtune topo rail-map`, format [`railtune.rail_map.v1`](formats.md)): per host, "
     "which NIC, rail and plane serve each GPU. The plugins read this file and never the fabric YAML; a map "
     "that does not parse is reported with the field and host at fault. Only a regular file of at most 64 MiB is "
     "read: a directory, a FIFO, a device or a socket is reported as unusable, never waited on. Unset: no rail "
     "map.",
     "", 0, 0},
    {"RAILTUNE_ENV_TOPO_FILE", ParamType::String, "", "env",
     "The env plugin's answer for `NCCL_TOPO_FILE` (`NCCL_ENV_PLUGIN=railtune`, "
     "[training-image.md](training-image.md)): "
     "the path of this host's NCCL topology file, `{host}` replaced by the host name, as `railtune topo env "
     "--topo-file` writes it. Unset: the plugin does not answer `NCCL_TOPO_FILE`.",
     "", 0, 0},
    {"RAILTUNE_ENV_PLUGINS", ParamType::List, "", "env",
     "Which of railtune's other plugins the env plugin names to NCCL: a comma-separated list of `net`, `tuner` and "
     "`profiler`, answered as `NCCL_NET_PLUGIN`, `NCCL_TUNER_PLUGIN` and `NCCL_PROFILER_PLUGIN` with the absolute path "
     "of `libnccl-<kind>-railtune.so` in the env plugin's own folder (as `railtune topo env --plugin-dir` writes "
     "them). "
     "Unset: none.",
     "net|tuner|profiler", 0, 0},
    {"RAILTUNE_TUNER_CONFIG", ParamType::String, "", "tuner",
     "Path of the tuner's rules: railtune's JSON rules (`railtune.tuner-rules/1`) or NCCL's example-tuner CSV, "
     "told apart by content ([tuning.md](tuning.md)). Unset: `NCCL_TUNER_CONFIG_FILE`, NCCL's own variable for the "
     "same CSV, is read instead. Only a regular file of at most 64 MiB is read (a directory, a FIFO, a device or a "
     "socket is a file that cannot be read). A file that cannot be read or parsed is reported with file and line, "
     "at WARN once per process; the tuner then leaves every decision to NCCL (an init error under "
     "`RAILTUNE_STRICT=1`).",
     "", 0, 0},
    {"RAILTUNE_TUNER_MODEL_FILE", ParamType::String, "", "tuner",
     "Path of a fitted model (`railtune sweep fit`, format [`railtune.tuner-model/1`](formats.md)): NCCL's own cost "
     "model fitted to sweeps, per GPU model and fabric. A communicator whose GPU and fabric (from the rail map, "
     "`RAILTUNE_RAIL_MAP`; without one no fit applies) a fit covers, at a scale the fit marks usable (with the "
     "communicator's nRanks within the rank range measured there) or usable at its measured shapes only (and the "
     "communicator's nRanks and nNodes are one of them), gets the fitted "
     "constants written into NCCL's (tuner v5..v7; v7 at the rows v6 has, row 4 left to NCCL) and the fit's "
     "corrections of NCCL's cost table (v3..v7; a "
     "correction keyed by a shape only at that nRanks and nNodes); rules still win, and `RAILTUNE_TUNER_MODEL` only "
     "advises ([tuning.md](tuning.md#fitted-model)). Otherwise nothing "
     "changes, said once per process at WARN. Only a regular file of at most 4 MiB is read; a file that cannot be "
     "read or parsed is reported with file and line at WARN once per process and the tuner leaves every decision "
     "to NCCL (an init error under `RAILTUNE_STRICT=1`). Its bytes join the configuration digest. Unset: no fit.",
     "", 0, 0},
    {"RAILTUNE_TUNER_MODEL", ParamType::Enum, "advise", "tuner",
     "What the tuner does with its cost model's pick when no rule applies. `off`: nothing. `advise` (the default): "
     "the pick is logged (NCCL_DEBUG_SUBSYS=TUNING) and shown by `railtune tuner decisions`, and NCCL's own "
     "choice stands. `on`: the pick is applied, within what NCCL enabled.",
     "off|advise|on", 0, 0},
    {"RAILTUNE_PATH_LOG_DIR", ParamType::String, "", "net",
     "Directory of the net plugin's path log (format [`railtune.path_log.v1`](formats.md)): one JSONL file per "
     "process, `<job>-<host>-<pid>.<start>.jsonl` (`<start>`: the process's start time in hex, "
     "[formats.md](formats.md#file-names-of-the-plugins-records)), with a record per connection (which GPU, NIC, "
     "rail and plane talked to which), periodic traffic snapshots and a record at close. Written by a background "
     "thread about once a second; the data path never waits on it. The directory is created with every missing "
     "parent (mode 0755); one that cannot be made is one WARN and no path log. Unset: no path log.",
     "", 0, 0},
    {"RAILTUNE_PROFILE_DIR", ParamType::String, "", "profiler",
     "Directory of the profiler's outputs ([profiler.md](profiler.md#outputs)), three files per process named "
     "`<job>-<host>-<pid>.<start>.<kind>` (`<start>`: the process's start time in hex, "
     "[formats.md](formats.md#file-names-of-the-plugins-records)): the collective log (`collectives.jsonl`, format "
     "[`railtune.profile.collectives.v1`](formats.md)), the network summary (`net.jsonl`, "
     "`railtune.profile.net.v1`) and a Chrome trace (`trace.json`, for Perfetto). Written by a background thread "
     "and flushed about once a second, so a killed job leaves every record up to the last flush. The directory is "
     "created with every missing parent (mode 0755); one that cannot be made is one WARN and no files. Unset: no "
     "files.",
     "", 0, 0},
    {"RAILTUNE_PROFILE_PROMETHEUS", ParamType::String, "", "profiler",
     "Path of a Prometheus textfile (node-exporter's textfile collector) the profiler rewrites atomically at each "
     "flush: operations, bytes, time and histograms of duration and bus bandwidth by operation and size bucket. "
     "`%p` in the path is replaced by the process id, so that the ranks of one host write one file each "
     "(`/var/lib/node_exporter/textfile/railtune-%p.prom`). Works with or without `RAILTUNE_PROFILE_DIR`. "
     "Unset: no textfile.",
     "", 0, 0},
    {"RAILTUNE_HANG_TIMEOUT", ParamType::Int, "300", "profiler",
     "Seconds after which the profiler's hang watchdog reports a collective or P2p operation that is still "
     "incomplete: one WARN naming the communicator, sequence number, operation, and the channels, peers and NICs "
     "with network steps outstanding, and a hang record written and flushed to the profiler's outputs. The job is "
     "never touched. The default, 300, is half of PyTorch's default collective timeout (600 s), so the record is on "
     "disk well before the framework aborts the process, and far above what a healthy collective takes; if you "
     "lower the framework's timeout, set this below it. `0` turns the hang check off (the watchdog's thread still "
     "closes operations by age and writes loss notices once a second); values outside 0..86400 are rejected with "
     "a WARN and the default is used. Checked once a second.",
     "", 0, kMaxHangTimeoutSeconds},
    {"RAILTUNE_PROFILE_MASK", ParamType::List, "default", "profiler",
     "Which NCCL profiler events the profiler asks for, as a comma-separated list of names (case-insensitive): "
     "`coll`, `p2p`, `proxyop`, `proxystep`, `kernelch`, `kernelphase`, `cecoll`, `netplugin`, `all` (the "
     "eight), `default`, `none`. The default, `coll,p2p,proxyop,kernelch,kernelphase,cecoll`, is what completion "
     "and the hang watchdog need, plus the kernel's barrier phases (profiler v7, NCCL 2.31+: whether a rank "
     "waited for its peers or computed slowly) and copy-engine collectives (profiler v6+, path `copy_engine`), "
     "each asked for only where the ABI has it, and is cheap enough for production: a few "
     "events per operation and channel. `proxystep` adds bytes, steps and wait time per "
     "channel and peer (one event per network step), `netplugin` the NIC of each flow (one event per transfer). "
     "NCCL also generates each requested event's parents. An unknown name is a WARN and the default is used "
     "([profiler.md](profiler.md#capture)).",
     kProfileMaskNames, 0, 0},
    {"RAILTUNE_PROFILE_OPERATIONS", ParamType::Int, "256", "profiler",
     "Collectives and P2p operations each communicator can track at once (from enqueue to completion), 16 to "
     "1048576, allocated when the communicator is created (about 0.2 KiB each). When all are in use, a new "
     "operation is not recorded and is counted in the next record's `events_dropped`; the job is never held up.",
     "", kMinSlots, kMaxSlots},
    {"RAILTUNE_PROFILE_EVENTS", ParamType::Int, "4096", "profiler",
     "ProxyOp, ProxyStep and KernelCh events each communicator can hold at once, 16 to 1048576, allocated when the "
     "communicator is created (about 0.2 KiB each). A ProxyOp's slot is kept until its operation's record is "
     "built. When all are in use, an event is dropped (NCCL is told so and carries on) and counted in the next "
     "record's `events_dropped`.",
     "", kMinSlots, kMaxSlots},
    {"RAILTUNE_NET_TRANSPORT", ParamType::Enum, "auto", "net",
     "Whether and how the net plugin carries the job's traffic. `auto` (the default): over TCP sockets only on a "
     "host without an ACTIVE RDMA port; where one is active the plugin steps aside (one WARN) so that NCCL uses its "
     "own IB transport. `ib`: over RDMA through libibverbs (railtune's verbs transport: QPs per connection from "
     "the QP policy, each GPU on its rail's HCA, every connection's HCA, GID and QPs in the path log); it has run "
     "on railtune's strict verbs simulator, not yet on real HCAs, which is why `auto` does not choose it "
     "([net-ib.md](net-ib.md)). `socket`: over TCP sockets even where RDMA is active. `none`: always step aside. "
     "A value outside these also steps aside, with a WARN naming it ([net.md](net.md)).",
     "auto|socket|ib|none", 0, 0},
    {"RAILTUNE_NET_STREAMS", ParamType::Int, "2", "net",
     "TCP streams per connection of the socket transport (1 to 16), the socket analogue of QPs per connection. A "
     "message is cut into 512 KiB chunks dealt round-robin over the streams, so a message of one chunk or less "
     "travels whole on the first stream and only large messages spread over all of them. A value outside 1..16 is "
     "a WARN and the default is used.",
     "", 1, kMaxNetStreams},
    {"RAILTUNE_NET_QPS", ParamType::Int, "0", "net",
     "RDMA queue pairs per connection (and per port of a connection) of the net plugin's verbs transport, 1 to "
     "128, as `NCCL_IB_QPS_PER_CONNECTION` is for NCCL's own IB transport. `0` (the default): the QP policy "
     "chooses from the fabric: 1 on InfiniBand (NCCL's default), 4 on RoCE, with data split over them where the "
     "switches route adaptively ([qp-policy.md](qp-policy.md)); `railtune topo env` exports the same choice for "
     "NCCL's transport. An `NCCL_IB_QPS_PER_CONNECTION` set in the environment wins over this variable. A value "
     "outside 0..128 is a WARN (`RAILTUNE_NET_QPS='200': outside 0..128; railtune uses the QP policy's choice, as "
     "if unset`) and the policy's value is used.",
     "", 0, kMaxQpsPerConnection},
    {"RAILTUNE_NET_TIMEOUT", ParamType::Int, "20", "net",
     "Seconds after which a peer that stopped answering fails its connection (TCP keepalive and "
     "`TCP_USER_TIMEOUT`, armed only while data is pending, so a slow but healthy peer is never cut). A peer that "
     "closes or resets fails the connection at once. A value below 1 or above 3600 is a WARN and the default is "
     "used.",
     "", 1, 3600},
    {"RAILTUNE_NET_SYSFS_ROOT", ParamType::String, "", "testing",
     "**Testing only.** A directory used instead of `/` when the net plugin reads `/sys/class/infiniband` and "
     "`/sys/class/net` (whether an RDMA port is active, which devices exist), so that tests can run the plugin "
     "on a fake sysfs tree.",
     "", 0, 0},
    {"RAILTUNE_NET_ADDRESS_FILE", ParamType::String, "", "testing",
     "**Testing only.** An address file (`<interface> <IPv4 address>` per line, [net.md](net.md)) the net plugin "
     "reads instead of asking the kernel for interface addresses, so that emulated hosts can give each NIC of the "
     "rail map its own loopback address.",
     "", 0, 0},
    {"RAILTUNE_NET_FAULT_MISBIND", ParamType::String, "", "testing",
     "**Testing and demonstration only.** `FROM:TO`, two device names of this host: connections NCCL asks for on "
     "device FROM leave through device TO, as if the NIC were miswired. The path log then shows TO's rail as the "
     "actual rail and `rail_match: false`, and the plugin WARNs about each such connection.",
     "", 0, 0},
    {"RAILTUNE_HWLOC_LIBRARY", ParamType::String, "", "cli",
     "Path of the hwloc library to load instead of libhwloc.so.15 (`railtune topo discover` reads the live "
     "topology through it; it must be hwloc 2.x). Unset: libhwloc.so.15, then libhwloc.so.",
     "", 0, 0},
    {"RAILTUNE_NVML_LIBRARY", ParamType::String, "", "cli",
     "Path of the NVML library to load instead of libnvidia-ml.so.1 (`railtune topo discover` reads GPU "
     "fabric info, NVLink and C2C state through it; the tests point it at a fake). Unset: libnvidia-ml.so.1.",
     "", 0, 0},
};

bool equalsIgnoreCase(const std::string& a, const char* b) {
  const size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Splits an allowed-values string "a|b|c".
std::vector<std::string> allowedValues(const char* allowed) {
  std::vector<std::string> out;
  std::string item;
  for (const char* p = allowed; p && *p; ++p) {
    if (*p == '|') {
      out.push_back(item);
      item.clear();
    } else {
      item += *p;
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

bool isAllowed(const ParamSpec& spec, const std::string& value) {
  if (spec.allowed == nullptr || spec.allowed[0] == '\0') return true;
  const auto values = allowedValues(spec.allowed);
  return std::find(values.begin(), values.end(), value) != values.end();
}

// A List item as the table spells it, matched without regard to case; nullopt when not allowed.
std::optional<std::string> allowedItem(const ParamSpec& spec, const std::string& item) {
  if (spec.allowed == nullptr || spec.allowed[0] == '\0') return item;
  for (const std::string& value : allowedValues(spec.allowed)) {
    if (equalsIgnoreCase(item, value.c_str())) return value;
  }
  return std::nullopt;
}

std::string rejection(const char* name, const std::string& raw, const std::string& why) {
  return std::string(name) + "='" + raw + "': " + why;
}

// Common prologue of every reader: the spec must exist and be of the expected type, and the raw
// value (if any) comes from the environment. Returns false with an error when the caller misused it.
template <typename T>
bool lookup(const char* name, ParamType expected, EnvLookup env, ParamValue<T>* out, const ParamSpec** spec,
            std::optional<std::string>* raw) {
  *spec = findParam(name ? name : "");
  if (*spec == nullptr) {
    out->error = std::string("unknown parameter ") + (name ? name : "(null)");
    return false;
  }
  const bool typeMatches =
      (*spec)->type == expected || (expected == ParamType::String && (*spec)->type == ParamType::Enum);
  if (!typeMatches) {
    out->error = std::string(name) + " is not read as this type";
    return false;
  }
  *raw = env ? env(name) : std::nullopt;
  // A variable set to nothing (`VAR=`, common in templated pod specs) means "not set", as for the
  // identity variables: the default applies instead of a rejection.
  if (*raw && (*raw)->find_first_not_of(" \t") == std::string::npos) raw->reset();
  return true;
}

}  // namespace

std::span<const ParamSpec> allParams() {
  return kParams;
}

const ParamSpec* findParam(const std::string& name) {
  for (const ParamSpec& spec : kParams) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

std::optional<std::string> processEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool parseBoolText(const std::string& text, bool* out) {
  const std::string t(trimmed(text));
  for (const char* yes : {"1", "true", "yes", "on"}) {
    if (equalsIgnoreCase(t, yes)) {
      *out = true;
      return true;
    }
  }
  for (const char* no : {"0", "false", "no", "off"}) {
    if (equalsIgnoreCase(t, no)) {
      *out = false;
      return true;
    }
  }
  return false;
}

bool parseIntText(const std::string& text, int64_t* out) {
  const std::string t(trimmed(text));
  if (t.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 0);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = static_cast<int64_t>(v);
  return true;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = std::string(trimmed(item));
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

ParamValue<bool> readBool(const char* name, EnvLookup env) {
  ParamValue<bool> v;
  const ParamSpec* spec = nullptr;
  std::optional<std::string> raw;
  if (!lookup(name, ParamType::Bool, env, &v, &spec, &raw)) return v;
  parseBoolText(spec->defaultValue, &v.value);
  if (!raw) return v;
  bool parsed = false;
  if (!parseBoolText(*raw, &parsed)) {
    v.error = rejection(name, *raw, "expected 0/1/true/false/yes/no/on/off");
    return v;
  }
  v.value = parsed;
  v.fromDefault = false;
  return v;
}

ParamValue<int64_t> readInt(const char* name, EnvLookup env) {
  ParamValue<int64_t> v;
  const ParamSpec* spec = nullptr;
  std::optional<std::string> raw;
  if (!lookup(name, ParamType::Int, env, &v, &spec, &raw)) return v;
  parseIntText(spec->defaultValue, &v.value);
  if (!raw) return v;
  int64_t parsed = 0;
  if (!parseIntText(*raw, &parsed)) {
    v.error = rejection(name, *raw,
                        "expected an integer from " + std::to_string(spec->low) + " to " + std::to_string(spec->high));
    return v;
  }
  if (parsed < spec->low || parsed > spec->high) {
    v.error = rejection(name, *raw, "outside " + std::to_string(spec->low) + ".." + std::to_string(spec->high));
    return v;
  }
  v.value = parsed;
  v.fromDefault = false;
  return v;
}

ParamValue<std::string> readString(const char* name, EnvLookup env) {
  ParamValue<std::string> v;
  const ParamSpec* spec = nullptr;
  std::optional<std::string> raw;
  if (!lookup(name, ParamType::String, env, &v, &spec, &raw)) return v;
  v.value = spec->defaultValue;
  if (!raw) return v;
  if (spec->type == ParamType::Enum && !isAllowed(*spec, *raw)) {
    v.error = rejection(name, *raw, std::string("expected one of ") + spec->allowed);
    return v;
  }
  v.value = *raw;
  v.fromDefault = false;
  return v;
}

ParamValue<std::vector<std::string>> readList(const char* name, EnvLookup env) {
  ParamValue<std::vector<std::string>> v;
  const ParamSpec* spec = nullptr;
  std::optional<std::string> raw;
  if (!lookup(name, ParamType::List, env, &v, &spec, &raw)) return v;
  v.value = splitList(spec->defaultValue);
  if (!raw) return v;
  std::vector<std::string> items = splitList(*raw);
  for (std::string& item : items) {
    std::optional<std::string> known = allowedItem(*spec, item);
    if (!known) {
      v.error = rejection(name, *raw, "unknown item '" + item + "'; allowed: " + spec->allowed);
      return v;
    }
    item = std::move(*known);
  }
  v.value = std::move(items);
  v.fromDefault = false;
  return v;
}

}  // namespace railtune
