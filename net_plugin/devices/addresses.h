// Each interface's IPv4 address, which the socket transport binds to: from getifaddrs on a live host
// (interfaces that are running, as NCCL requires), or from an address file in tests, because a fake sysfs
// tree cannot carry addresses. The address file (docs/net.md, "Devices") has one interface per line:
//     <interface> <IPv4 address>
// blank lines and lines starting with '#' are ignored; the first address of an interface wins, as the
// first IPv4 entry of getifaddrs does.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace railtune::net {

using AddressTable = std::map<std::string, std::string>;  // interface -> dotted IPv4

class AddressFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws AddressFileError naming `source`:line:column and what is wrong.
AddressTable parseAddressFile(const std::string& text, const std::string& source);
AddressTable readAddressFile(const std::string& path);
AddressTable readLiveAddresses();  // never throws; empty when getifaddrs fails

}  // namespace railtune::net
