// A network's device list as NCCL prints it once per process (log_line.h, parseDeviceList): the IB forms of
// each era (a port per entry, 2.20.3-2.23.4's merged entries, 2.30's rail and plane) and the Socket form.
// The file:line of each, per version, is in docs/nccl-logs.md.
#include <algorithm>
#include <string>
#include <string_view>

#include "analysis/nccl_log/line_scan.h"
#include "analysis/nccl_log/log_line.h"

namespace railtune::analysis::nccl_log {
namespace {

using line_scan::skipSpaces;
using line_scan::take;
using line_scan::takeInt;
using line_scan::takeWord;
using std::string_view;

// "name:port[:rail][:plane]/LINK[/SHARP]" (2.30.7 prints rail and plane, an empty rail as "::plane").
bool parsePort(string_view entry, NetDevice* device) {
  const size_t slash = entry.find('/');
  if (slash == string_view::npos) return false;
  string_view link = entry.substr(slash + 1);
  if (link.ends_with("/SHARP")) {
    device->sharp = true;
    link.remove_suffix(6);
  }
  if (link.empty()) return false;
  device->link = printable(link);
  string_view head = entry.substr(0, slash);
  const size_t colon = head.find(':');
  if (colon == string_view::npos || colon == 0) return false;
  device->name = printable(head.substr(0, colon));
  head.remove_prefix(colon);
  if (!take(head, ":") || !takeInt(head, &device->port)) return false;
  if (head.empty()) return true;
  if (!take(head, ":")) return false;
  if (!head.empty() && head.front() != ':' && !takeInt(head, &device->rail)) return false;
  if (head.empty()) return true;
  return take(head, ":") && takeInt(head, &device->plane) && head.empty();
}

// 2.20.3-2.23.4's merged entry: "={[0] mlx5_0:1/RoCE, [1] mlx5_0:2/RoCE}" (net_ib.cc). The device is named
// after its parts ("mlx5_0" when they are ports of one HCA, else "mlx5_0+mlx5_1"); a port shared by all.
bool parseMerged(string_view entry, NetDevice* device) {
  if (!take(entry, "={") || !entry.ends_with('}')) return false;
  entry.remove_suffix(1);
  int port = -2;
  while (!entry.empty()) {
    const size_t comma = entry.find(", ");
    string_view part = entry.substr(0, comma);
    entry.remove_prefix(comma == string_view::npos ? entry.size() : comma + 2);
    int physical = -1;
    NetDevice member;
    if (!take(part, "[") || !takeInt(part, &physical) || !take(part, "] ") || !parsePort(part, &member)) return false;
    if (std::find(device->merged.begin(), device->merged.end(), member.name) == device->merged.end()) {
      device->name += (device->name.empty() ? "" : "+") + member.name;
    }
    device->merged.push_back(member.name);
    device->link = member.link;
    port = port == -2 || port == member.port ? member.port : -1;
  }
  device->port = port < 0 ? -1 : port;
  return !device->merged.empty();
}

// "eth0:10.0.0.1<0>" (net_socket.cc): the interface and its address.
bool parseSocketEntry(string_view entry, NetDevice* device) {
  const size_t colon = entry.find(':');
  if (colon == string_view::npos || colon == 0) return false;
  device->name = printable(entry.substr(0, colon));
  device->address = printable(entry.substr(colon + 1));
  return true;
}

// One entry after its "[N]", taken off `text` (its text in *entry): a merged entry runs to its closing brace
// (its parts hold spaces), any other entry ends at a space. False when the entry cannot be read.
bool takeEntry(string_view& text, bool ib, NetDevice* device, string_view* entry, bool* merged) {
  if (ib && text.starts_with("={")) {
    const size_t close = text.find('}');
    *entry = text.substr(0, close == string_view::npos ? text.size() : close + 1);
    text.remove_prefix(entry->size());
    *merged = true;
    return parseMerged(*entry, device);
  }
  *entry = takeWord(text);
  return ib ? parsePort(*entry, device) : parseSocketEntry(*entry, device);
}

}  // namespace

DeviceListParse parseDeviceList(string_view message, DeviceList* out, std::string* why) {
  string_view text = message;
  if (!take(text, "NET/")) return DeviceListParse::NotDeviceList;
  const size_t using_ = text.find(" : Using");
  if (using_ == string_view::npos || using_ == 0) return DeviceListParse::NotDeviceList;
  *out = DeviceList{};
  out->net = printable(text.substr(0, using_));
  text.remove_prefix(using_ + 8);
  // "; OOB ..." ends NET/IB's list.
  const size_t oob = text.find("; OOB");
  if (oob != string_view::npos) text = text.substr(0, oob);
  const bool ib = out->net != "Socket";
  bool merged = false;
  for (;;) {
    skipSpaces(text);
    if (text.empty()) break;
    if (take(text, "[RO]")) {
      out->relaxedOrdering = true;
      continue;
    }
    if (!take(text, "[")) break;
    NetDevice device;
    if (!takeInt(text, &device.index) || !take(text, "]")) {
      *why = "unreadable device index in '" + std::string(message.substr(0, 160)) + "'";
      return DeviceListParse::Bad;
    }
    string_view entry;
    const bool parsed = takeEntry(text, ib, &device, &entry, &merged);
    if (!parsed && text.find_first_not_of(' ') == string_view::npos && oob == string_view::npos &&
        !out->devices.empty()) {
      out->cut = true;  // NCCL before 2.29 cuts a line at 1023 characters: the entries before the cut stand
      break;
    }
    if (!parsed) {
      *why = "unreadable device [" + std::to_string(device.index) + "] '" + std::string(entry) + "'";
      return DeviceListParse::Bad;
    }
    out->devices.push_back(std::move(device));
  }
  // Where merged entries appear, an unmerged entry prints its physical index, not the network device
  // Channel lines name (net_ib.cc, 2.20.3-2.23.4): the list's order is the network devices' order.
  if (merged) {
    for (size_t i = 0; i < out->devices.size(); ++i) out->devices[i].index = static_cast<int>(i);
  }
  if (out->devices.empty()) {
    *why = "a device list without devices: '" + std::string(message.substr(0, 160)) + "'";
    return DeviceListParse::Bad;
  }
  return DeviceListParse::Ok;
}

}  // namespace railtune::analysis::nccl_log
