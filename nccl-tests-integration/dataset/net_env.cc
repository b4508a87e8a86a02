// The network setting of a run (net_env.h).
#include "nccl-tests-integration/dataset/net_env.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <utility>

namespace railtune::sweep {
namespace {

// The settings with a short name (issue: QPs per connection, split data on QPs, adaptive routing and its
// threshold, channels per network peer, cross-NIC rings). Where NCCL 2.30.7 reads each (NCCL_PARAM):
// net_ib/connect.cc:60, net_ib/common.cc:22, net_ib/init.cc:12, net_ib/p2p.cc:13, init.cc:1729, graph/search.cc:16.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kKnown{{
    {"NCCL_IB_QPS_PER_CONNECTION", "qps"},
    {"NCCL_IB_SPLIT_DATA_ON_QPS", "split"},
    {"NCCL_IB_ADAPTIVE_ROUTING", "ar"},
    {"NCCL_IB_AR_THRESHOLD", "arthr"},
    {"NCCL_NCHANNELS_PER_NET_PEER", "chpeer"},
    {"NCCL_CROSS_NIC", "xnic"},
}};

// What the sweep sets itself, or reads NCCL's words through, with why a matrix cannot set it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kForced{{
    {"NCCL_ALGO", "the sweep forces it per run (--algos)"},
    {"NCCL_PROTO", "the sweep forces it per run (--protos)"},
    {"NCCL_MIN_NCHANNELS", "the sweep forces the channel count per run (--channels)"},
    {"NCCL_MAX_NCHANNELS", "the sweep forces the channel count per run (--channels)"},
    // NCCL's older names of the same counts, still read (src/graph/connect.cc:328-329@v2.30.7).
    {"NCCL_MIN_NRINGS", "it sets the channel count the sweep forces (--channels; src/graph/connect.cc:328)"},
    {"NCCL_MAX_NRINGS", "it sets the channel count the sweep forces (--channels; src/graph/connect.cc:329)"},
    {"NCCL_TUNER_PLUGIN",
     "the sweep sets it for --chunk-sizes, and a tuner moves NCCL's own choice, which each default run measures"},
    {"NCCL_DEBUG", "the sweep sets it (WARN) to read why NCCL rejects a choice"},
    {"NCCL_DEBUG_SUBSYS", "the sweep sets it for NCCL's own lines in the first default run"},
    {"NCCL_DEBUG_FILE", "NCCL's lines would leave the output the sweep reads"},
}};

}  // namespace

bool isNcclVariableName(std::string_view name) {
  return name.size() > 5 && name.starts_with("NCCL_") &&
         name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string_view::npos;
}

std::string whyNotANetSetting(std::string_view name) {
  if (!isNcclVariableName(name)) return "not an NCCL variable (NCCL_ then capitals, digits and _)";
  for (const auto& [forced, why] : kForced)
    if (name == forced) return std::string(why);
  return "";
}

std::string netEnvTagName(std::string_view name) {
  for (const auto& [known, tag] : kKnown)
    if (name == known) return std::string(tag);
  std::string tag(name.starts_with("NCCL_") ? name.substr(5) : name);
  for (char& c : tag)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return tag;
}

bool isKnownNetSetting(std::string_view name) {
  for (const auto& entry : kKnown)
    if (name == entry.first) return true;
  return false;
}

std::string netEnvTagValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c >= 'A' && c <= 'Z')
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      out.push_back(c);
    else
      out.push_back('_');  // '.', '-', '/' and blanks would blur the id's parts or its file name
  }
  return out;
}

std::string netEnvTag(const NetEnv& env) {
  std::string tag;
  for (const auto& [name, value] : env) tag += (tag.empty() ? "" : "-") + netEnvTagName(name) + netEnvTagValue(value);
  return tag;
}

std::string netEnvLabel(const NetEnv& env) {
  std::string label;
  for (const auto& [name, value] : env) label += (label.empty() ? "" : " ") + name + "=" + value;
  return label;
}

std::string netEnvValue(std::string_view name, const std::string& value) {
  if (!isKnownNetSetting(name) || value.empty()) return value;
  // NCCL_PARAM's read: strtoll(str, nullptr, 0), the value kept unless errno is set (param.cc:94-100@v2.30.7).
  errno = 0;
  const long long number = std::strtoll(value.c_str(), nullptr, 0);
  return errno != 0 ? value : std::to_string(number);
}

NetEnv netEnvOfOption(const std::map<std::string, std::string>& env) {
  NetEnv out;
  for (const auto& [name, value] : env)
    if (whyNotANetSetting(name).empty()) out[name] = netEnvValue(name, value);
  return out;
}

NetEnv netEnvAsNcclReadsIt(const NetEnv& env) {
  NetEnv out;
  for (const auto& [name, value] : env) out[name] = netEnvValue(name, value);
  return out;
}

NetEnv netEnvOfNcclLog(const std::map<std::string, std::string>& setByEnvironment) {
  NetEnv out;
  for (const auto& [name, value] : setByEnvironment)
    if (isKnownNetSetting(name)) out[name] = value;
  return out;
}

}  // namespace railtune::sweep
