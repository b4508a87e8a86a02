// Taking NCCL INFO lines apart (log_line.h). Every format here is the one NCCL's source prints; the
// file:line of each, per version, is in docs/nccl-logs.md. The device lists are device_list.cc's.
#include "analysis/nccl_log/log_line.h"

#include <algorithm>
#include <cstdio>

#include "analysis/nccl_log/line_scan.h"

namespace railtune::analysis::nccl_log {
namespace {

using line_scan::isDigit;
using line_scan::kMaxId;
using line_scan::kMaxRank;
using line_scan::skipSpaces;
using line_scan::take;
using line_scan::takeHex;
using line_scan::takeInt;
using line_scan::takeWord;
using std::string_view;

// "1[c7000]" or "8[0]": a rank and the bracket's contents.
bool takeRankTag(string_view& text, int* rank, string_view* tag) {
  if (!takeInt(text, rank, kMaxRank) || !take(text, "[")) return false;
  const size_t close = text.find(']');
  if (close == string_view::npos || close == 0) return false;
  *tag = text.substr(0, close);
  text.remove_prefix(close + 1);
  return true;
}

ChannelVia viaKind(string_view via) {
  if (via.starts_with("NET/")) return ChannelVia::Net;
  if (via.starts_with("P2P")) return ChannelVia::P2p;
  if (via.starts_with("SHM") || via.starts_with("direct shared memory")) return ChannelVia::Shm;
  if (via.starts_with("CollNet") || via.starts_with("COLLNET")) return ChannelVia::CollNet;
  if (via.starts_with("NVLS")) return ChannelVia::Nvls;
  return ChannelVia::Other;
}

// 2.31's receive side with GDR ends "/flush=<how>" (net.cc's ncclTopoFlushTypeStr: None, Always, C2c, Unknown):
// taken off `rest` into out->flush. False (with *why) for a "/flush=" of another word.
bool takeFlush(string_view via, string_view& rest, ChannelLine* out, std::string* why) {
  const size_t at = rest.rfind("/flush=");
  if (at == string_view::npos) return true;
  const string_view how = rest.substr(at + 7);
  if (how != "None" && how != "Always" && how != "C2c" && how != "Unknown") {
    *why = "unreadable flush in '" + std::string(via) + "' (expected None, Always, C2c or Unknown)";
    return false;
  }
  out->flush = how;
  rest = rest.substr(0, at);
  return true;
}

// "NET/<name>/<dev>[(<proxy>)][/GDRDMA[(PCI)]][/Shared][/flush=<how>]" (net.cc). The name may hold spaces and
// slashes ("AWS Libfabric"), so the device is found from the right: the last "/<digits>" that only flags follow.
bool parseNetVia(string_view via, ChannelLine* out, std::string* why) {
  string_view rest = via.substr(4);
  while (rest.ends_with(' ') || rest.ends_with('\r')) rest.remove_suffix(1);
  if (!takeFlush(via, rest, out, why)) return false;
  for (;;) {
    if (rest.ends_with("/Shared")) {
      out->shared = true;
      rest.remove_suffix(7);
    } else if (rest.ends_with("/GDRDMA(PCI)")) {
      out->gdr = true;
      rest.remove_suffix(12);
    } else if (rest.ends_with("/GDRDMA")) {
      out->gdr = true;
      rest.remove_suffix(7);
    } else {
      break;
    }
  }
  if (rest.ends_with(')')) {  // PXN: "/5(2)"
    const size_t open = rest.rfind('(');
    string_view proxy = open == string_view::npos ? string_view() : rest.substr(open + 1, rest.size() - open - 2);
    if (!takeInt(proxy, &out->proxyRank, kMaxRank) || !proxy.empty()) {
      *why = "unreadable PXN proxy rank in '" + std::string(via) + "'";
      return false;
    }
    rest = rest.substr(0, open);
  }
  const size_t slash = rest.rfind('/');
  if (slash == string_view::npos || slash == 0) {
    *why = "no network device in '" + std::string(via) + "' (expected NET/<name>/<device>)";
    return false;
  }
  string_view device = rest.substr(slash + 1);
  if (!takeInt(device, &out->netDevice) || !device.empty()) {
    *why = "no network device in '" + std::string(via) + "' (expected NET/<name>/<device>)";
    return false;
  }
  out->net = rest.substr(0, slash);
  return true;
}

}  // namespace

std::optional<LineHeader> splitHeader(string_view line) {
  static constexpr string_view kMarker = "] NCCL ";
  const size_t marker = line.find(kMarker);
  if (marker == string_view::npos) return std::nullopt;
  LineHeader header;
  string_view after = line.substr(marker + kMarker.size());
  header.level = takeWord(after);
  if (header.level.empty()) return std::nullopt;
  skipSpaces(after);
  header.message = after;
  // Back from the marker: "HOST:PID:TID [DEV"
  string_view before = line.substr(0, marker);
  const size_t open = before.rfind(" [");
  if (open == string_view::npos) return std::nullopt;
  string_view device = before.substr(open + 2);
  if (!takeInt(device, &header.device) || !device.empty()) return std::nullopt;
  before = before.substr(0, open);
  const size_t tidColon = before.rfind(':');
  if (tidColon == string_view::npos) return std::nullopt;
  string_view tid = before.substr(tidColon + 1);
  if (!takeInt(tid, &header.tid, kMaxId) || !tid.empty()) return std::nullopt;
  before = before.substr(0, tidColon);
  const size_t pidColon = before.rfind(':');
  if (pidColon == string_view::npos) return std::nullopt;
  string_view pid = before.substr(pidColon + 1);
  if (!takeInt(pid, &header.pid, kMaxId) || !pid.empty() || header.pid <= 0) return std::nullopt;
  before = before.substr(0, pidColon);
  const size_t start = before.find_last_of(" \t:>]");
  header.host = start == string_view::npos ? before : before.substr(start + 1);
  if (header.host.empty()) return std::nullopt;
  return header;
}

std::optional<string_view> versionOf(string_view line) {
  static constexpr string_view kWords = "NCCL version ";
  const size_t at = line.find(kWords);
  if (at == string_view::npos) return std::nullopt;
  string_view rest = line.substr(at + kWords.size());
  const string_view version = takeWord(rest);
  if (version.empty() || !isDigit(version.front())) return std::nullopt;
  return version;
}

const char* channelViaName(ChannelVia via) {
  switch (via) {
    case ChannelVia::Net:
      return "net";
    case ChannelVia::P2p:
      return "p2p";
    case ChannelVia::Shm:
      return "shm";
    case ChannelVia::CollNet:
      return "collnet";
    case ChannelVia::Nvls:
      return "nvls";
    case ChannelVia::Other:
      break;
  }
  return "other";
}

namespace {

// A "Channel NN..." message without " -> ": a ring listing, which NCCL prints with at least one rank after the
// colon ("Channel %02d/%02d :" then " %3d" per rank: rings.cc:9-16,31 at NCCL commit 1cb208d), or a connection line cut
// before its arrow. Returns what is missing when it is a cut connection line ("Channel 05/0 :", "Channel 05/0 : 3[3]"),
// else nullptr (a listing, or a form that is not ours).
const char* cutBeforeArrow(string_view text) {
  int number = 0;
  if (!takeInt(text, &number)) return nullptr;
  if (take(text, "/") && !takeInt(text, &number)) return "nothing after the '/'";
  skipSpaces(text);
  if (text.empty()) return "nothing after the channel number";
  if (!take(text, ":")) return nullptr;
  skipSpaces(text);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  if (text.empty()) return "nothing after the ' : ' (a connection line cut short)";
  int rank = 0;
  if (takeInt(text, &rank, kMaxRank) && take(text, "[")) return "'RANK[DEV]' with no ' -> ' after it (cut short)";
  return nullptr;
}

}  // namespace

ChannelParse parseChannel(string_view message, ChannelLine* out, std::string* why) {
  string_view text = message;
  if (!take(text, "Channel ") || text.empty() || !isDigit(text.front())) return ChannelParse::NotChannel;
  // A connection line has " -> " (ring and tree listings do not); one without it is a listing, or a connection
  // line cut before its arrow, which is counted, never passed over.
  if (message.find(" -> ") == string_view::npos) {
    if (const char* missing = cutBeforeArrow(text)) {
      *why = std::string(missing) + " in '" + std::string(message.substr(0, 160)) + "'";
      return ChannelParse::Bad;
    }
    return ChannelParse::NotChannel;
  }
  *out = ChannelLine{};
  const auto bad = [&](const char* what) {
    *why = std::string(what) + " in '" + std::string(message.substr(0, 160)) + "'";
    return ChannelParse::Bad;
  };
  if (!takeInt(text, &out->channel) || out->channel < 0) return bad("no channel number");
  if (take(text, "/") && (!takeInt(text, &out->connIndex) || out->connIndex < 0))
    return bad("no sub-channel after '/'");
  if (!take(text, " : ")) return bad("no ' : ' after the channel");
  if (!takeRankTag(text, &out->fromRank, &out->fromTag)) return bad("no 'RANK[DEV]' before '->'");
  if (!take(text, " -> ")) return bad("no ' -> '");
  if (!takeRankTag(text, &out->toRank, &out->toTag)) return bad("no 'RANK[DEV]' after '->'");
  skipSpaces(text);
  if (take(text, "[send] ")) {
    out->side = ChannelLine::Side::Send;
  } else if (take(text, "[receive] ")) {
    out->side = ChannelLine::Side::Receive;
  }
  if (!take(text, "via ")) return bad("no 'via'");
  out->viaText = text;
  out->via = viaKind(text);
  if (out->via != ChannelVia::Net) return ChannelParse::Ok;
  if (out->side == ChannelLine::Side::Unknown) return bad("a network connection without [send] or [receive]");
  if (!parseNetVia(text, out, why)) return ChannelParse::Bad;
  return ChannelParse::Ok;
}

std::optional<CommLine> parseCommLine(string_view message) {
  string_view text = message;
  if (take(text, "[Rank ")) {  // 2.29+: "[Rank 8] ncclCommInitRank ..."
    int ignored = 0;
    if (!takeInt(text, &ignored, kMaxRank) || !take(text, "] ")) return std::nullopt;
  }
  // The Init START line names the function; older Init COMPLETE lines start at "comm".
  if (!take(text, "comm ")) {
    const string_view name = takeWord(text);
    if (!name.starts_with("ncclComm") || !take(text, " comm ")) return std::nullopt;  // InitRank, Split, ...
  }
  CommLine comm;
  comm.pointer = takeWord(text);
  if (!comm.pointer.starts_with("0x")) return std::nullopt;
  bool sawRanks = false;
  for (;;) {
    skipSpaces(text);
    if (text.empty() || text.starts_with("- ")) break;
    const string_view key = takeWord(text);
    skipSpaces(text);
    if (key == "rank") {
      if (!takeInt(text, &comm.rank, kMaxRank)) return std::nullopt;
    } else if (key == "nranks" || key == "nRanks") {
      if (!takeInt(text, &comm.nRanks, kMaxRank)) return std::nullopt;
      sawRanks = true;
    } else if (key == "cudaDev") {
      if (!takeInt(text, &comm.cudaDev)) return std::nullopt;
    } else if (key == "nvmlDev") {
      if (!takeInt(text, &comm.nvmlDev)) return std::nullopt;
    } else if (key == "busId") {
      uint64_t bus = 0;
      if (!takeHex(text, &bus)) return std::nullopt;
      comm.busId = static_cast<int64_t>(bus);
    } else if (key == "commId") {
      uint64_t id = 0;
      if (!takeHex(text, &id)) return std::nullopt;
      comm.commId = id;
    } else {
      takeWord(text);  // a field this reader does not use ("nNodes 2", "localRanks 8", "MNNVL 0")
    }
  }
  if (comm.rank < 0 || !sawRanks) return std::nullopt;
  // 2.30.7's ncclCommSplit lines end "key %d- Init START" (v2.30.7 init.cc:1886), 2.31's "key %d - Init START".
  string_view whole = message;
  while (whole.ends_with(' ') || whole.ends_with('\r')) whole.remove_suffix(1);
  comm.start = text.starts_with("- Init START") || whole.ends_with("- Init START");
  return comm;
}

std::optional<string_view> networkOf(string_view message) {
  string_view text = message;
  if (!take(text, "Using network ")) return std::nullopt;
  while (text.ends_with(' ') || text.ends_with('\r')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  return text;
}

std::string printable(string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  return out;
}

std::string busIdText(int64_t busId) {
  char text[32];
  const auto id = static_cast<unsigned long long>(busId);
  std::snprintf(text, sizeof text, "%04llx:%02llx:%02llx.%01llx", id >> 20, (id & 0xff000) >> 12, (id & 0xff0) >> 4,
                id & 0xf);
  return text;
}

}  // namespace railtune::analysis::nccl_log
