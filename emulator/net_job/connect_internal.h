// Shared by connect.cc and connect_nvlink.cc; not a public interface.
#pragma once

#include <memory>

#include "emulator/net_job/connect.h"

namespace railtune::emu::netjob {

std::unique_ptr<Link> connectNvlink(const ConnectSpec& spec, int peer);
std::unique_ptr<Link> acceptNvlink(const ConnectSpec& spec, int& peer);

}  // namespace railtune::emu::netjob
