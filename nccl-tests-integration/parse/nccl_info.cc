// NCCL's INFO lines about the communicator and the network (nccl_info.h).
#include "nccl-tests-integration/parse/nccl_info.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "nccl-tests-integration/parse/text_columns.h"

namespace railtune::sweep {
namespace {

using text_columns::string_view;

// "A" and "B" -> "A+B" (sorted, once each): the link layers of several devices or ranks.
std::string joinLayer(const std::string& have, string_view add) {
  if (add.empty() || have == add) return have;
  if (have.empty()) return std::string(add);
  std::vector<std::string> parts;
  for (size_t start = 0; start <= have.size();) {
    const size_t plus = std::min(have.find('+', start), have.size());
    parts.emplace_back(have.substr(start, plus - start));
    start = plus + 1;
  }
  for (const std::string& p : parts)
    if (p == add) return have;
  parts.emplace_back(add);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "+") + p;
  return out;
}

bool integer(string_view word, int& out) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

// "comm 0x55.. rank 1 nRanks 16 nNodes 2 localRanks 8 localRank 1 MNNVL 0": read by name, so that an era without
// MNNVL still gives its counts. nccl's other "comm %p rank %d nranks %d ..." lines (Init COMPLETE) say no nNodes.
bool commLine(string_view message, NcclFacts& facts) {
  if (!message.starts_with("comm ")) return false;
  const std::vector<string_view> words = text_columns::tokens(message);
  int nRanks = -1, nNodes = -1, mnnvl = -1;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    int value = 0;
    if (!integer(words[i + 1], value)) continue;
    if (words[i] == "nRanks") nRanks = value;
    if (words[i] == "nNodes") nNodes = value;
    if (words[i] == "MNNVL") mnnvl = value;
  }
  if (nRanks <= 0 || nNodes <= 0) return false;
  NcclFacts line;
  line.nRanks = nRanks;
  line.nNodes = nNodes;
  line.mnnvl = mnnvl;
  facts.merge(line);
  return true;
}

// " [0]mlx5_0:1/RoCE [1]mlx5_1:1:0/IB [RO]; OOB ib0:10.0.0.1<0>": the devices before the ';'.
bool ibLine(string_view list, NcclFacts& facts) {
  list = list.substr(0, std::min(list.find(';'), list.size()));
  std::string layer;
  int devices = 0;
  for (string_view word : text_columns::tokens(list)) {
    if (!word.starts_with('[') || word == "[RO]") continue;
    const size_t slash = word.rfind('/');
    if (slash == string_view::npos) continue;
    ++devices;
    const string_view ll = word.substr(slash + 1);
    if (ll == "IB" || ll == "RoCE") layer = joinLayer(layer, ll);
  }
  if (devices == 0) return false;
  facts.linkLayer = joinLayer(facts.linkLayer, layer);
  facts.netDevices = std::max(facts.netDevices, devices);
  return true;
}

int socketDevices(string_view list) {
  int devices = 0;
  for (string_view word : text_columns::tokens(list)) devices += word.starts_with('[') ? 1 : 0;
  return devices;
}

}  // namespace

void NcclFacts::merge(const NcclFacts& other) {
  if (other.nRanks > nRanks) {
    disagree = other.disagree;
    nRanks = other.nRanks;
    nNodes = other.nNodes;
    mnnvl = other.mnnvl;
  } else if (other.nRanks > 0 && other.nRanks == nRanks) {
    disagree |= other.disagree || other.nNodes != nNodes || other.mnnvl != mnnvl;
  }
  if (network.empty()) network = other.network;
  linkLayer = joinLayer(linkLayer, other.linkLayer);
  netDevices = std::max(netDevices, other.netDevices);
}

bool readNcclInfo(string_view message, NcclFacts& facts) {
  message = text_columns::trim(message);
  if (message.starts_with("comm ")) return commLine(message, facts);
  if (message.starts_with("Using network ")) {
    const string_view name = text_columns::trim(message.substr(14));
    if (name.empty()) return false;
    if (facts.network.empty()) facts.network = std::string(name);
    return true;
  }
  if (message.starts_with("NET/IB : Using")) return ibLine(message.substr(14), facts);
  if (message.starts_with("NET/Socket : Using")) {
    const int devices = socketDevices(message.substr(18));
    facts.netDevices = std::max(facts.netDevices, devices);
    return devices > 0;
  }
  return false;
}

}  // namespace railtune::sweep
