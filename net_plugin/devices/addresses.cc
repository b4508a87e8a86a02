// Interface addresses from getifaddrs or from an address file (see addresses.h).
#include "net_plugin/devices/addresses.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cstring>
#include <sstream>

#include "common/regular_file.h"

namespace railtune::net {
namespace {

[[noreturn]] void fail(const std::string& source, size_t line, size_t column, const std::string& what) {
  throw AddressFileError(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
}

size_t skipBlanks(const std::string& text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r')) ++at;
  return at;
}

size_t wordEnd(const std::string& text, size_t at) {
  while (at < text.size() && text[at] != ' ' && text[at] != '\t' && text[at] != '\r') ++at;
  return at;
}

void parseLine(const std::string& text, const std::string& source, size_t lineNo, AddressTable* table) {
  const size_t nameAt = skipBlanks(text, 0);
  if (nameAt == text.size() || text[nameAt] == '#') return;
  const size_t nameEnd = wordEnd(text, nameAt);
  const size_t addressAt = skipBlanks(text, nameEnd);
  const size_t addressEnd = wordEnd(text, addressAt);
  if (addressAt == text.size()) fail(source, lineNo, addressAt + 1, "expected '<interface> <IPv4 address>'");
  if (skipBlanks(text, addressEnd) != text.size()) {
    fail(source, lineNo, skipBlanks(text, addressEnd) + 1, "unexpected text after the address");
  }
  const std::string name = text.substr(nameAt, nameEnd - nameAt);
  const std::string address = text.substr(addressAt, addressEnd - addressAt);
  if (name.size() >= IF_NAMESIZE) fail(source, lineNo, nameAt + 1, "interface name '" + name + "' is too long");
  in_addr parsed{};
  if (inet_pton(AF_INET, address.c_str(), &parsed) != 1) {
    fail(source, lineNo, addressAt + 1, "'" + address + "' is not a dotted IPv4 address");
  }
  table->emplace(name, address);
}

}  // namespace

AddressTable parseAddressFile(const std::string& text, const std::string& source) {
  AddressTable table;
  std::istringstream lines(text);
  std::string line;
  for (size_t lineNo = 1; std::getline(lines, line); ++lineNo) parseLine(line, source, lineNo, &table);
  return table;
}

// Only a regular file of at most 1 MiB is read (common/regular_file.h): a FIFO would block the net
// plugin's init forever.
AddressTable readAddressFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxAddressFileBytes);
  if (!file.ok()) throw AddressFileError(path + ": cannot use the address file: " + file.reason);
  return parseAddressFile(file.bytes, path);
}

AddressTable readLiveAddresses() {
  AddressTable table;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return table;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    if ((entry->ifa_flags & IFF_RUNNING) == 0) continue;  // NCCL: up and physically attached only
    sockaddr_in address{};
    std::memcpy(&address, entry->ifa_addr, sizeof(address));
    char text[INET_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET, &address.sin_addr, text, sizeof(text)) != nullptr) table.emplace(entry->ifa_name, text);
  }
  freeifaddrs(list);
  return table;
}

}  // namespace railtune::net
