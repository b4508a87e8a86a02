#include "emulator/net_job/result.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace railtune::emu::netjob {

using nlohmann::json;

std::string renderResult(const RankResult& r) {
  json collectives = json::array();
  for (const CollectiveResult& c : r.collectives)
    collectives.push_back({{"collective", c.collective},
                           {"bytes", c.bytes},
                           {"iterations", c.iterations},
                           {"seconds", c.seconds},
                           {"verified_bytes", c.verifiedBytes},
                           {"warmup", c.warmup}});
  const json out = {{"rank", r.rank},
                    {"pid", r.pid},
                    {"start_tag", r.startTag},
                    {"host", r.host},
                    {"gpu", r.gpu},
                    {"hca", r.hca},
                    {"device", r.device},
                    {"plugin_sends", r.pluginSends},
                    {"plugin_recvs", r.pluginRecvs},
                    {"nvlink_sends", r.nvlinkSends},
                    {"nvlink_recvs", r.nvlinkRecvs},
                    {"collectives", collectives},
                    {"error", r.error},
                    {"failed_at_us", r.failedAtUs},
                    {"plugin_warnings", r.pluginWarnings}};
  return out.dump();
}

RankResult readResultFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("no result file " + path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    const json j = json::parse(text.str());
    RankResult r;
    r.rank = j.at("rank").get<int>();
    r.pid = j.at("pid").get<int>();
    r.startTag = j.at("start_tag").get<std::string>();
    r.host = j.at("host").get<std::string>();
    r.gpu = j.at("gpu").get<int>();
    r.hca = j.at("hca").get<std::string>();
    r.device = j.at("device").get<int>();
    r.pluginSends = j.at("plugin_sends").get<int>();
    r.pluginRecvs = j.at("plugin_recvs").get<int>();
    r.nvlinkSends = j.at("nvlink_sends").get<int>();
    r.nvlinkRecvs = j.at("nvlink_recvs").get<int>();
    for (const json& c : j.at("collectives"))
      r.collectives.push_back({c.at("collective").get<std::string>(), c.at("bytes").get<size_t>(),
                               c.at("iterations").get<int>(), c.at("seconds").get<double>(),
                               c.at("verified_bytes").get<size_t>(), c.at("warmup").get<int>()});
    r.error = j.at("error").get<std::string>();
    r.failedAtUs = j.at("failed_at_us").get<int64_t>();
    r.pluginWarnings = j.at("plugin_warnings").get<std::vector<std::string>>();
    return r;
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": malformed rank result: " + e.what());
  }
}

void writeResultFile(const std::string& path, const RankResult& result) {
  std::ofstream out(path, std::ios::trunc);
  out << renderResult(result) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace railtune::emu::netjob
