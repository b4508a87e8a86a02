// `railtune paths render`: one job's joined path logs drawn as racks → trays → GPUs → NICs → rail
// switches, connections coloured by rail, width by bytes, violations (from the check) red and dashed.
// Three outputs of the same picture: a self-contained HTML page (inline SVG, CSS and a few lines of JS,
// no network fetch), the SVG alone, and Graphviz DOT text. Large jobs (more hosts than
// RenderOptions::maxHosts) are aggregated by rack: one link per (rack, rail switch). docs/paths.md, "railtune paths
// render".
//
// The pipeline is split so each step can be tested alone: buildPathGraph() joins the job into drawable
// items (path_render_graph.cc), aggregateByRack() sums them per rack (path_render_aggregate.cc), the
// layout places them (path_render_layout.cc), and the writers print them (_svg, _html, _dot).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_model.h"
#include "formats/rail_map.h"

namespace railtune::analysis::paths {

enum class RenderFormat { Html, Svg, Dot };

// "html"/"svg"/"dot"; nullopt for anything else.
std::optional<RenderFormat> parseRenderFormat(const std::string& name);
// From the output file's extension (.html, .htm, .svg, .dot, .gv); nullopt when it names none.
std::optional<RenderFormat> renderFormatFromPath(const std::string& path);

struct RenderOptions {
  RenderFormat format = RenderFormat::Html;
  int maxHosts = 32;  // more hosts than this: aggregate by rack
};

// A rail switch: one per rail, and per plane when the fabric has more than one (plane -1 otherwise).
struct RailSwitch {
  int rail = -1;  // -1: connections whose rail is unknown
  int plane = -1;
};

struct RenderNic {
  std::string hca;
  int rail = -1, plane = -1;
};

struct RenderGpu {
  int index = 0;
  std::vector<int> intendedNics;  // indices into RenderHost::nics the rail map binds this GPU to
};

struct RenderHost {
  std::string name;
  bool logged = false;          // the host wrote a path log (else only its peers name it)
  std::vector<RenderGpu> gpus;  // index order
  std::vector<RenderNic> nics;  // rail, plane, HCA order
};

struct RenderRack {
  std::string name;  // the rail map's domain; "unknown rack" for hosts the map does not place
  bool unknown = false;
  std::vector<RenderHost> hosts;  // name order
};

// One end of a drawn connection.
struct LinkEnd {
  int rack = -1, host = -1;  // indices into PathGraph::racks and RenderRack::hosts
  int gpu = -1;              // index into RenderHost::gpus; -1: unknown
  int nic = -1;              // index into RenderHost::nics
  int rank = -1;
  int switchIndex = -1;  // the rail switch this end's NIC is cabled to (PathGraph::switches)
};

// One connection, drawn once even when both ends logged it: from the sender's record when there is one.
struct RenderLink {
  long connection = -1;       // index into JobPaths::connections of the record drawn
  LinkEnd from, to;           // from: the record's writer; to: its peer
  int rail = -1, plane = -1;  // the writer's NIC's actual rail and plane (the colour)
  uint64_t bytes = 0, messages = 0;
  bool crossRail = false, digestMismatch = false;  // the check's violations naming either end's record (crossRail:
                                                   // cross-rail or cross-plane)
  std::string ncclLine;  // "FILE:LINE" of NCCL's Channel line when the record was imported; "" from the net plugin
  // ib connections: "mlx5_3:1 RoCE, MTU 4096, GID fe80:...:b220 (index 3), 2 QPs 0x1a2->0x3b4 0x1a3->0x3b5, bytes per
  // QP 1.0 MiB / 1.0 MiB" (the drawn record's verbs facts); "" otherwise
  std::string verbs;
  bool violation() const { return crossRail || digestMismatch; }
};

// What the picture's heading and the command's line count: the check's own numbers (CheckReport), so that `paths
// import`, `check` and `render` print the same counts for the same logs (docs/paths.md, "What is counted").
struct RenderCounts {
  int hosts = 0;               // hosts that wrote a log; a peer named by others but silent is drawn, not counted
  int connections = 0;         // logical connections (each drawn once)
  int connectionEnds = 0;      // the records they were joined from
  int fromNcclLog = 0;         // connections rebuilt from NCCL's INFO logs
  int violations = 0;          // CheckReport::violations()
  std::string railsUnchecked;  // railsUncheckedText() when some connection's rails were unknown, else ""
};

RenderCounts renderCounts(const CheckReport& report);

// "job J: 4 hosts logged, 32 connections[ (32 from NCCL's logs)], 64 connection ends, 3 violations[; rails unknown:
// ...]"
std::string summaryLine(const std::string& job, const RenderCounts& counts);

struct PathGraph {
  std::string job;
  RenderCounts counts;
  std::vector<RenderRack> racks;     // name order, the unknown rack last
  std::vector<RailSwitch> switches;  // rail, then plane order
  std::vector<RenderLink> links;     // non-violations first, then violations (drawn on top), each by connection
  int violationFindings = 0;         // CheckReport::violations()
  int hostCount() const;
};

PathGraph buildPathGraph(const JobPaths& job, const CheckReport& report, const formats::RailMap* railMap);

// The large-job view: per rack, and per (rack, rail switch) the connections with an end there.
struct RackSummary {
  std::string name;
  int hosts = 0, gpus = 0;
  int connections = 0;  // connections with at least one end in the rack
  int violations = 0;   // of those, how many are violations
  uint64_t bytes = 0;
};

struct RackLink {
  int rack = -1, switchIndex = -1;
  uint64_t bytes = 0;
  int connections = 0, violations = 0;
  int rail = -1, plane = -1;
};

struct RackGraph {
  std::string job;
  RenderCounts counts;               // PathGraph's
  std::vector<RackSummary> racks;    // PathGraph's rack order
  std::vector<RailSwitch> switches;  // PathGraph's switches
  std::vector<RackLink> links;       // rack, then switch order; violations after the others
  int hosts = 0, connections = 0, violationLinks = 0, violationFindings = 0;
};

RackGraph aggregateByRack(const PathGraph& graph);

// The whole file in the chosen format.
std::string renderPaths(const PathGraph& graph, const CheckReport& report, const RenderOptions& options);

// Writers, one per format (the graph is aggregated by the caller when it is large).
std::string renderSvg(const PathGraph& graph);
std::string renderSvg(const RackGraph& graph);
// The page lists the report's findings under the picture.
std::string renderHtml(const PathGraph& graph, const CheckReport& report);
std::string renderHtml(const RackGraph& graph, const CheckReport& report);
std::string renderDot(const PathGraph& graph);
std::string renderDot(const RackGraph& graph);

}  // namespace railtune::analysis::paths
