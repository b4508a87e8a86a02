// Small pieces the scheduler-facing emitters (labels, HyperNodes, Kueue, Slurm, launcher env) share:
// look-ups over the fabric model that fail with a message naming what is missing, and quoting for
// the YAML and shell text they write by hand (deterministic output, no YAML library in the writer).
#pragma once

#include <string>

#include "common/shell_quote.h"
#include "fabric/model.h"

namespace railtune::topo {

// The label keys railtune writes on Kubernetes nodes (our own namespace; see docs/scheduling.md).
inline constexpr const char* kLabelNvlinkDomain = "railtune.io/nvlink-domain";
inline constexpr const char* kLabelRack = "railtune.io/rack";
inline constexpr const char* kLabelTray = "railtune.io/tray";
inline constexpr const char* kLabelRailGroup = "railtune.io/rail-group";
inline constexpr const char* kLabelSpine = "railtune.io/spine";
inline constexpr const char* kLabelClique = "railtune.io/clique";
inline constexpr const char* kLabelHostname = "kubernetes.io/hostname";

// Look-ups by name; each throws std::invalid_argument naming the missing thing and who refers to it.
const fabric::Host& hostNamed(const fabric::Fabric& fabric, const std::string& name);
const fabric::NvlDomain& domainOf(const fabric::Fabric& fabric, const fabric::Host& host);
// nullptr when the domain declares no rail group (a single-rack cluster may have none).
const fabric::RailGroup* railGroupOf(const fabric::Fabric& fabric, const fabric::NvlDomain& domain);

// A YAML double-quoted scalar: always quoted, so "on", "1e3" or "null" stay strings.
std::string yamlQuote(const std::string& text);

// How the scripts written for schedulers quote a shell word (common/shell_quote.h): '%' and a leading '='
// are quoted too ("export X==a" is valid shell but reads as a typo).
inline constexpr ShellQuoteRules kSchedulerShellQuoting{.percentBare = false, .quoteLeadingEquals = true};

// Throws std::invalid_argument unless `name` is a valid Kubernetes object name (RFC 1123 subdomain:
// lowercase alphanumerics, '-' and '.', starting and ending alphanumeric, at most 253 characters).
void requireObjectName(const std::string& name, const std::string& what);

}  // namespace railtune::topo
