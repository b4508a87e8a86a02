// Renderers of the hang report (hangs_render.h).
#include "cli/profile/hangs_render.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/profile/stragglers_render.h"

namespace railtune::cli::profile {
namespace {

using nlohmann::json;

json orNull(int value) {
  return value >= 0 ? json(value) : json(nullptr);
}

json orNull(const std::string& value) {
  return value.empty() ? json(nullptr) : json(value);
}

json flowJson(const StuckFlow& f) {
  return json{{"channel", f.channel},         {"peer", f.peer},       {"direction", f.send ? "send" : "recv"},
              {"outstanding", f.outstanding}, {"hca", orNull(f.hca)}, {"rail", orNull(f.rail)}};
}

json stuckJson(const StuckRank& s) {
  json flows = json::array();
  for (const StuckFlow& f : s.flows) flows.push_back(flowJson(f));
  return json{{"rank", s.rank},
              {"host", orNull(s.host)},
              {"source", s.watchdog ? "watchdog" : "missing_completion"},
              {"last_completed_seq", s.lastCompletedSeq >= 0 ? json(s.lastCompletedSeq) : json(nullptr)},
              {"stuck_for_us", std::round(s.stuckForUs * 1000.0) / 1000.0},
              {"flows", flows}};
}

json endJson(const LinkEnd& e) {
  return json{{"rank", e.rank},
              {"host", orNull(e.host)},
              {"gpu", orNull(e.gpu)},
              {"hca", orNull(e.hca)},
              {"rail", orNull(e.rail)}};
}

json hungJson(const HungCollective& h) {
  json stuck = json::array();
  for (const StuckRank& s : h.stuck) stuck.push_back(stuckJson(s));
  json suspect = nullptr;
  if (h.suspect)
    suspect = {{"from", endJson(h.suspect->from)},
               {"to", endJson(h.suspect->to)},
               {"send_flows", h.suspect->sendFlows},
               {"recv_flows", h.suspect->recvFlows},
               {"flows_considered", h.suspect->flowsConsidered}};
  return json{{"comm", h.hasComm ? json(commName(true, h.comm)) : json(nullptr)},
              {"seq", h.seq},
              {"op", orNull(h.op)},
              {"nranks", h.nRanks},
              {"stuck", stuck},
              {"completed", h.completed},
              {"silent", h.silent},
              {"suspect_link", suspect}};
}

std::string endText(const LinkEnd& e) {
  std::string out = "rank " + std::to_string(e.rank) + " on " + (e.host.empty() ? "?" : e.host);
  if (e.gpu >= 0) out += " GPU " + std::to_string(e.gpu);
  if (!e.hca.empty()) out += " " + e.hca;
  if (e.rail >= 0) out += " rail " + std::to_string(e.rail);
  return out;
}

std::string flowsText(const StuckRank& s) {
  if (s.flows.empty())
    return s.watchdog ? "no outstanding flows"
                      : "no hang record; completions stop at seq " +
                            (s.lastCompletedSeq >= 0 ? std::to_string(s.lastCompletedSeq) : "(none)");
  std::string out;
  for (const StuckFlow& f : s.flows)
    out += (out.empty() ? "" : ", ") + std::string(f.send ? "send to " : "recv from ") + std::to_string(f.peer) +
           " ch " + std::to_string(f.channel) + " (" + std::to_string(f.outstanding) + " steps" +
           (f.hca.empty() ? "" : ", " + f.hca) + ")";
  return out;
}

void hungText(const HungCollective& h, std::ostringstream& out) {
  out << "  comm " << commName(h.hasComm, h.comm) << " seq " << h.seq << " " << (h.op.empty() ? "?" : h.op) << ": "
      << h.stuck.size() << " stuck, " << h.completed.size() << " completed, " << h.silent.size() << " silent"
      << (h.nRanks > 0 ? " (of " + std::to_string(h.nRanks) + " ranks)" : "") << "\n";
  if (!h.completed.empty()) out << "    completed: ranks " << rankRanges(h.completed, 16) << "\n";
  if (!h.silent.empty()) out << "    silent (no record of it): ranks " << rankRanges(h.silent, 16) << "\n";
  for (const StuckRank& s : h.stuck)
    out << "    stuck rank " << s.rank << " on " << (s.host.empty() ? "?" : s.host) << ": " << flowsText(s) << "\n";
  if (h.suspect)
    out << "    suspect link: " << endText(h.suspect->from) << " -> " << endText(h.suspect->to) << " ("
        << h.suspect->sendFlows << " send and " << h.suspect->recvFlows << " recv flows of "
        << h.suspect->flowsConsidered << " outstanding point at it)\n";
  else
    out << "    suspect link: unknown (no outstanding flows recorded)\n";
}

}  // namespace

std::string renderHangsJson(const HangReport& report) {
  json jobs = json::array();
  for (const JobHangs& job : report.jobs) {
    json hung = json::array();
    for (const HungCollective& h : job.hung) hung.push_back(hungJson(h));
    jobs.push_back({{"job", job.job}, {"hung", hung}});
  }
  return json{{"schema", "railtune.profile_hangs.v1"}, {"jobs", jobs}}.dump(-1, ' ', false,
                                                                            json::error_handler_t::replace) +
         "\n";
}

std::string renderHangsTable(const HangReport& report) {
  std::ostringstream out;
  for (const JobHangs& job : report.jobs) {
    out << "job " << job.job << ": ";
    if (job.hung.empty()) {
      out << "no hung collectives\n";
      continue;
    }
    out << job.hung.size() << " hung collective" << (job.hung.size() == 1 ? "" : "s") << "\n";
    for (const HungCollective& h : job.hung) hungText(h, out);
  }
  return out.str();
}

}  // namespace railtune::cli::profile
