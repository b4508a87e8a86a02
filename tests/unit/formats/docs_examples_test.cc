// Every example under docs/formats/ passes its own reader (tests/unit/formats/docs_examples.cmake).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "formats/net_env.h"
#include "formats/path_log.h"
#include "formats/profile_logs.h"
#include "formats/rail_map.h"
#include "formats/tuner_model/tuner_model.h"
#include "formats/tuner_rules/rules_file.h"
#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/running_record.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune {
namespace {

const std::string kFormats = RAILTUNE_DOCS_FORMATS;

std::string exampleText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the reader says about the file: "" = accepted.
using Reader = std::function<std::string(const std::string& path)>;

std::string fabricProblems(const std::string& path) {
  fabric::Diagnostics d;
  try {
    const fabric::Fabric model = fabric::loadFabricFile(path, d);
    fabric::validate(model, d);
    topo::checkNcclXmlLimits(model, d);
  } catch (const fabric::FabricError& e) {
    return e.what();
  }
  std::string out;
  for (const fabric::Diagnostic& diagnostic : d.all()) out += diagnostic.str() + "\n";  // warnings too
  return out;
}

std::string railMapProblems(const std::string& path) {
  try {
    formats::readRailMapFile(path);
  } catch (const formats::RailMapError& e) {
    return e.what();
  }
  return "";
}

std::string sweepDatasetProblems(const std::string& path) {
  std::vector<sweep::DatasetDiagnostic> diagnostics;
  size_t rows = 0;
  sweep::readDatasetFile(
      path, [&](const sweep::DatasetRow&) { ++rows; }, diagnostics);
  if (!diagnostics.empty())
    return diagnostics.front().source + ":" + std::to_string(diagnostics.front().line) + ": " +
           diagnostics.front().message;
  return rows > 0 ? "" : "no rows";
}

std::string sweepManifestProblems(const std::string& path) {
  const sweep::Manifest manifest = sweep::readManifestText(exampleText(path));
  if (!manifest.diagnostics.empty())
    return path + ":" + std::to_string(manifest.diagnostics.front().line) + ": " + manifest.diagnostics.front().message;
  return manifest.entries.empty() ? "no entries" : "";
}

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> kReaders = {
      {"fabric.example.yaml", fabricProblems},
      {"rail-map.example.json", railMapProblems},
      {"tuner-model.example.json",
       [](const std::string& path) {
         try {
           formats::tuner_model::readTunerModelFile(path);
         } catch (const formats::tuner_model::TunerModelError& e) {
           return std::string(e.what());
         }
         return std::string();
       }},
      {"net-env.example.json",
       [](const std::string& path) {
         try {
           return formats::readNetEnvFile(path).entries.empty() ? std::string("no entries") : std::string();
         } catch (const formats::NetEnvError& e) {
           return std::string(e.what());
         }
       }},
      {"tuner-rules.example.json",
       [](const std::string& path) { return formats::tuner_rules::readRulesFile(path).describeErrors(); }},
      {"path-log.example.jsonl",
       [](const std::string& path) { return formats::path_log::parseRecords(exampleText(path), path).error; }},
      {"profile-collectives.example.jsonl",
       [](const std::string& path) { return formats::profile::parseCollectiveRecords(exampleText(path), path).error; }},
      {"profile-net.example.jsonl",
       [](const std::string& path) { return formats::profile::parseNetRecords(exampleText(path), path).error; }},
      {"sweep-dataset.example.jsonl", sweepDatasetProblems},
      {"sweep-manifest.example.jsonl", sweepManifestProblems},
      {"sweep-manifest-env.example.jsonl", sweepManifestProblems},
      {"sweep-running.example.json",
       [](const std::string& path) {
         std::string problem;
         return sweep::readRunningRecord(path, problem) ? "" : path + ": " + problem;
       }},
  };
  return kReaders;
}

// Formats railtune writes for people and other programs but never reads back (their schemas check them).
const std::set<std::string> kWrittenOnly = {"bindings.example.jsonl",
                                            "paths-check.example.json",
                                            "profile-hangs.example.json",
                                            "profile-stragglers.example.json",
                                            "synth-truth.example.json",
                                            "tuner-decisions.example.json",
                                            "tuner-decisions-fitted.example.json"};

TEST(DocsExamples, EveryExamplePassesItsOwnReader) {
  size_t read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFormats)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".example.") == std::string::npos) continue;
    const auto reader = readers().find(name);
    if (reader == readers().end()) {
      EXPECT_TRUE(kWrittenOnly.count(name)) << name << ": an example without a reader; add it to readers()";
      continue;
    }
    EXPECT_EQ(reader->second(entry.path().string()), "") << name;
    ++read;
  }
  EXPECT_EQ(read, readers().size()) << "an example listed in readers() is missing from docs/formats";
}

}  // namespace
}  // namespace railtune
