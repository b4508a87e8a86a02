// Measured network settings: names, values and the QP policy's view (measured_env.h). NCCL lines are v2.30.7's.
#include "formats/measured_env.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace railtune::formats {
namespace {

struct Range {
  std::string_view name;
  int64_t min, max;
  std::string_view why;  // what the range is, for the message
};

// The variables the QP policy and `topo env` read, with NCCL's ranges (docs/config.md, "NCCL's IB variables").
constexpr std::array<Range, 6> kRanges{{
    {"NCCL_IB_QPS_PER_CONNECTION", 1, 128, "QPs per connection; NCCL holds at most 128 (common.h:172)"},
    {"NCCL_IB_SPLIT_DATA_ON_QPS", 0, 1, "0 or 1; NCCL splits for 1 only (common.h:382)"},
    {"NCCL_IB_ADAPTIVE_ROUTING", 0, 1, "0 (off) or 1 (on)"},
    {"NCCL_IB_AR_THRESHOLD", 0, INT64_MAX, "bytes"},
    {"NCCL_NCHANNELS_PER_NET_PEER", 1, 64, "1 to MAXCHANNELS (device.h:91); NCCL ignores 0 or less (init.cc:2040)"},
    {"NCCL_CROSS_NIC", 0, 2, "0, 1 or 2 (search.cc:16)"},
}};

constexpr std::array<std::string_view, 4> kForcedBySweep{"NCCL_ALGO", "NCCL_PROTO", "NCCL_MIN_NCHANNELS",
                                                         "NCCL_MAX_NCHANNELS"};
constexpr std::array<std::string_view, 3> kFabricFacts{"NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_SL"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& names, const std::string& name) {
  for (std::string_view n : names)
    if (n == name) return true;
  return false;
}

// Plain decimal, optionally negative, without leading zeros' ambiguity (NCCL would read "010" as octal).
bool decimal(const std::string& text, int64_t& out) {
  const size_t digits = text.size() - (text.rfind('-', 0) == 0 ? 1 : 0);
  if (digits == 0 || digits > 19 || text.find_first_not_of("0123456789", text.size() - digits) != std::string::npos)
    return false;
  if (digits > 1 && text[text.size() - digits] == '0') return false;
  out = 0;
  for (size_t i = text.size() - digits; i < text.size(); ++i) {
    const int64_t digit = text[i] - '0';
    if (out > (INT64_MAX - digit) / 10) return false;
    out = out * 10 + digit;
  }
  if (digits != text.size()) out = -out;
  return true;
}

const Range* rangeOf(const std::string& name) {
  for (const Range& r : kRanges)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace

std::string measuredNameProblem(const std::string& name) {
  if (name.size() <= 5 || name.size() > 64 || name.rfind("NCCL_", 0) != 0 ||
      name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
    return "is not an NCCL variable (NCCL_ then capitals, digits and '_', at most 64 characters)";
  if (listed(kForcedBySweep, name)) return "is a choice the sweep forces, not a network setting";
  if (listed(kFabricFacts, name)) return "is a fact of the fabric description (docs/qp-policy.md), not measured";
  return "";
}

std::string measuredValueProblem(const std::string& name, const std::string& value) {
  if (const Range* range = rangeOf(name)) {
    int64_t number = 0;
    if (!decimal(value, number) || number < range->min || number > range->max)
      return "must be a decimal integer from " + std::to_string(range->min) +
             (range->max == INT64_MAX ? std::string(" up") : " to " + std::to_string(range->max)) + " (" +
             std::string(range->why) + ")";
    return "";
  }
  if (value.empty() || value.size() > 256) return "must be 1 to 256 characters";
  for (const char c : value)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "may hold no control character";
  return "";
}

qp::MeasuredNet measuredNetOf(const MeasuredEnv& env, const std::string& source) {
  qp::MeasuredNet net;
  net.source = source;
  for (const auto& [name, value] : env) {
    int64_t number = 0;
    const bool known = rangeOf(name) != nullptr;
    if (!measuredNameProblem(name).empty() || !measuredValueProblem(name, value).empty()) continue;
    if (known && !decimal(value, number)) continue;
    if (name == "NCCL_IB_QPS_PER_CONNECTION")
      net.qps = static_cast<int>(number);
    else if (name == "NCCL_IB_SPLIT_DATA_ON_QPS")
      net.split = number != 0;
    else if (name == "NCCL_IB_ADAPTIVE_ROUTING")
      net.ar = number != 0;
    else if (name == "NCCL_IB_AR_THRESHOLD")
      net.arThreshold = static_cast<size_t>(number);
    else if (name == "NCCL_NCHANNELS_PER_NET_PEER")
      net.channelsPerNetPeer = static_cast<int>(number);
    else if (name == "NCCL_CROSS_NIC")
      net.crossNic = static_cast<int>(number);
    else
      net.others.emplace_back(name, value);
  }
  return net;
}

}  // namespace railtune::formats
