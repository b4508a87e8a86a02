// What generating every topology output costs at the largest known scale, side by side in one run.
// Each benchmark takes the number of GB300 NVL72 racks as its argument: 2 (the built-in default
// cluster's shape, the baseline) and 114 (8,208 GPUs, 2,052 hosts), 4 rails, 8 racks per rail group.
//   BM_Expand            ClusterSpec -> fabric model (what every `railtune topo` call starts with)
//   BM_NcclXmlAllHosts   NCCL topology XML for every host
//   BM_RailMap           the rail map (JSON) of the whole cluster
//   BM_Labels            Kubernetes node labels (railtune.io and Topograph keys): JSON and kubectl script
//   BM_HyperNodes        Volcano HyperNodes (YAML)
//   BM_Kueue             Kueue Topology
//   BM_SlurmBlock/Tree   Slurm topology.conf for topology/block and topology/tree
//   BM_LauncherEnvAll    the launcher env of every host and local rank
//   BM_AllEmitters       expansion plus every emitter above: the "all emitters for all hosts"
// Counters: hosts, output_MiB (bytes produced per iteration) and peak_rss_MiB (getrusage ru_maxrss of
// the whole process so far: it only grows, so the 114-rack rows bound what that size needs).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <map>
#include <string>

#include "fabric/expand.h"
#include "fabric/rail_map_write.h"
#include "topo_gen/hypernodes.h"
#include "topo_gen/kueue.h"
#include "topo_gen/labels.h"
#include "topo_gen/launcher_env.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/slurm.h"

namespace {

using railtune::fabric::Fabric;
namespace topo = railtune::topo;

railtune::fabric::ClusterSpec gb300Spec(int racks) {
  railtune::fabric::ClusterSpec spec;
  spec.name = "gb300-" + std::to_string(racks) + "-racks";
  spec.profile = "gb300-nvl72";
  spec.domains = racks;
  spec.domainPattern = "rack{d:03}";
  spec.rails = 4;
  spec.racksPerRailGroup = 8;
  return spec;
}

// Expanded once per size and kept: the emitter benchmarks time the emitter alone.
const Fabric& fabricOf(int racks) {
  static std::map<int, Fabric> cache;
  auto it = cache.find(racks);
  if (it == cache.end()) it = cache.emplace(racks, railtune::fabric::expand(gb300Spec(racks))).first;
  return it->second;
}

double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void report(benchmark::State& state, const Fabric& fabric, size_t bytes) {
  state.counters["hosts"] = static_cast<double>(fabric.hosts.size());
  state.counters["output_MiB"] = static_cast<double>(bytes) / (1024.0 * 1024.0);
  state.counters["peak_rss_MiB"] = peakRssMiB();
}

size_t emitNcclXml(const Fabric& fabric) {
  size_t bytes = 0;
  for (const auto& host : fabric.hosts) bytes += topo::writeNcclXml(host).size();
  return bytes;
}

size_t emitLabels(const Fabric& fabric) {
  const auto nodes = topo::nodeLabels(fabric, {true});
  return topo::labelsJson(nodes).size() + topo::labelsKubectlScript(nodes).size();
}

size_t emitSlurm(const Fabric& fabric, topo::SlurmTopologyPlugin plugin) {
  return topo::slurmTopologyConf(fabric, plugin).size();
}

// Every host and every local rank, as a launcher on each host would ask for its ranks.
size_t emitLauncherEnv(const Fabric& fabric) {
  size_t bytes = 0;
  topo::LauncherEnvOptions options;
  options.topoFile = "/etc/railtune/nccl-topo/{host}.xml";
  options.railMap = "/etc/railtune/rail-map.json";
  options.pluginDir = "/opt/railtune/lib";
  for (const auto& host : fabric.hosts) {
    options.host = host.name;
    for (int rank = 0; rank < static_cast<int>(host.gpus.size()); ++rank) {
      options.localRank = rank;
      bytes += topo::exportLines(topo::launcherEnv(fabric, options)).size();
    }
  }
  return bytes;
}

size_t emitAll(const Fabric& fabric) {
  return emitNcclXml(fabric) + railtune::fabric::writeRailMap(fabric).size() + emitLabels(fabric) +
         topo::hyperNodesYaml(topo::hyperNodes(fabric)).size() + topo::kueueTopologyYaml(fabric).size() +
         emitSlurm(fabric, topo::SlurmTopologyPlugin::Block) + emitSlurm(fabric, topo::SlurmTopologyPlugin::Tree) +
         emitLauncherEnv(fabric);
}

// Times `emit` over the fabric of state.range(0) racks.
template <typename Emit>
void runEmitter(benchmark::State& state, Emit emit) {
  const Fabric& fabric = fabricOf(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = emit(fabric);
    benchmark::DoNotOptimize(bytes);
  }
  report(state, fabric, bytes);
}

void BM_Expand(benchmark::State& state) {
  const auto spec = gb300Spec(static_cast<int>(state.range(0)));
  size_t hosts = 0;
  for (auto _ : state) {
    const Fabric fabric = railtune::fabric::expand(spec);
    hosts = fabric.hosts.size();
    benchmark::DoNotOptimize(hosts);
  }
  report(state, fabricOf(static_cast<int>(state.range(0))), 0);
}

void BM_NcclXmlAllHosts(benchmark::State& state) {
  runEmitter(state, emitNcclXml);
}
void BM_RailMap(benchmark::State& state) {
  runEmitter(state, [](const Fabric& f) { return railtune::fabric::writeRailMap(f).size(); });
}
void BM_Labels(benchmark::State& state) {
  runEmitter(state, emitLabels);
}
void BM_HyperNodes(benchmark::State& state) {
  runEmitter(state, [](const Fabric& f) { return topo::hyperNodesYaml(topo::hyperNodes(f)).size(); });
}
void BM_Kueue(benchmark::State& state) {
  runEmitter(state, [](const Fabric& f) { return topo::kueueTopologyYaml(f).size(); });
}
void BM_SlurmBlock(benchmark::State& state) {
  runEmitter(state, [](const Fabric& f) { return emitSlurm(f, topo::SlurmTopologyPlugin::Block); });
}
void BM_SlurmTree(benchmark::State& state) {
  runEmitter(state, [](const Fabric& f) { return emitSlurm(f, topo::SlurmTopologyPlugin::Tree); });
}
void BM_LauncherEnvAll(benchmark::State& state) {
  runEmitter(state, emitLauncherEnv);
}

// The figure: from the compact description to every output of every host, in one go.
void BM_AllEmitters(benchmark::State& state) {
  const auto spec = gb300Spec(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = emitAll(railtune::fabric::expand(spec));
    benchmark::DoNotOptimize(bytes);
  }
  report(state, fabricOf(static_cast<int>(state.range(0))), bytes);
}

#define RAILTUNE_SCALE_BENCH(fn) BENCHMARK(fn)->Arg(2)->Arg(114)->ArgName("racks")->Unit(benchmark::kMillisecond)
RAILTUNE_SCALE_BENCH(BM_Expand);
RAILTUNE_SCALE_BENCH(BM_NcclXmlAllHosts);
RAILTUNE_SCALE_BENCH(BM_RailMap);
RAILTUNE_SCALE_BENCH(BM_Labels);
RAILTUNE_SCALE_BENCH(BM_HyperNodes);
RAILTUNE_SCALE_BENCH(BM_Kueue);
RAILTUNE_SCALE_BENCH(BM_SlurmBlock);
RAILTUNE_SCALE_BENCH(BM_SlurmTree);
RAILTUNE_SCALE_BENCH(BM_LauncherEnvAll);
RAILTUNE_SCALE_BENCH(BM_AllEmitters);

}  // namespace

BENCHMARK_MAIN();
