// The names bypass.h reads and writes: releases, registration modes, CTA policies, datatypes, reductions,
// paths, and NCCL's variables.
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "emulator/nccl_model/bypass.h"

namespace railtune::ncclmodel {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct DataTypeName {
  const char* name;
  DataType type;
  uint64_t size;
};
// nccl-tests' names first (src/common.cu test_typenames), then NCCL's long names.
constexpr DataTypeName kDataTypes[] = {
    {"int8", DataType::Int8, 1},         {"uint8", DataType::Uint8, 1},    {"int32", DataType::Int32, 4},
    {"uint32", DataType::Uint32, 4},     {"int64", DataType::Int64, 8},    {"uint64", DataType::Uint64, 8},
    {"half", DataType::Half, 2},         {"float", DataType::Float, 4},    {"double", DataType::Double, 8},
    {"bfloat16", DataType::Bfloat16, 2}, {"f8e4m3", DataType::F8e4m3, 1},  {"f8e5m2", DataType::F8e5m2, 1},
    {"float16", DataType::Half, 2},      {"float32", DataType::Float, 4},  {"float64", DataType::Double, 8},
    {"fp8e4m3", DataType::F8e4m3, 1},    {"fp8e5m2", DataType::F8e5m2, 1},
};

// NCCL's param reader takes a decimal (or 0x) integer; anything else is a bad value here.
std::optional<int64_t> integerOf(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 0);
  if (errno != 0 || end == text || *end != '\0') throw std::invalid_argument(text);
  return v;
}

std::optional<int64_t> variable(const std::function<const char*(const char*)>& get, const char* name) {
  try {
    return integerOf(get(name));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(std::string(name) + "='" + get(name) + "' is not an integer");
  }
}

}  // namespace

std::optional<BypassRelease> parseBypassRelease(const std::string& version) {
  if (version == "2.28") return BypassRelease::V2_28;
  if (version == "2.30") return BypassRelease::V2_30;
  if (version == "2.31") return BypassRelease::V2_31;
  return std::nullopt;
}

const char* bypassReleaseName(BypassRelease r) {
  switch (r) {
    case BypassRelease::V2_28:
      return "2.28";
    case BypassRelease::V2_30:
      return "2.30";
    case BypassRelease::V2_31:
      break;
  }
  return "2.31";
}

std::optional<Registration> parseRegistration(const std::string& text) {
  const std::string t = lower(text);
  if (t == "none" || t == "0") return Registration::None;
  if (t == "local" || t == "1") return Registration::Local;
  if (t == "symmetric" || t == "2") return Registration::Symmetric;
  return std::nullopt;
}

const char* registrationName(Registration r) {
  switch (r) {
    case Registration::None:
      return "none";
    case Registration::Local:
      return "local";
    case Registration::Symmetric:
      break;
  }
  return "symmetric";
}

std::optional<CtaPolicy> parseCtaPolicy(const std::string& text) {
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    if (text == "0") return CtaPolicy{};
    if (text == "1") return CtaPolicy{true, false};
    if (text == "2") return CtaPolicy{false, true};
    return std::nullopt;
  }
  std::optional<CtaPolicy> policy;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t bar = text.find('|', start);
    const std::string token = lower(text.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (token == "default" || token == "efficiency" || token == "zero") {
      if (!policy) policy = CtaPolicy{};
      policy->efficiency |= token == "efficiency";
      policy->zero |= token == "zero";
    }
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return policy;
}

std::string ctaPolicyName(CtaPolicy p) {
  if (p.efficiency && p.zero) return "efficiency|zero";
  if (p.zero) return "zero";
  return p.efficiency ? "efficiency" : "default";
}

std::optional<DataType> parseDataType(const std::string& name) {
  const std::string n = lower(name);
  for (const DataTypeName& d : kDataTypes)
    if (n == d.name) return d.type;
  return std::nullopt;
}

const char* dataTypeName(DataType t) {
  for (const DataTypeName& d : kDataTypes)
    if (d.type == t) return d.name;
  return "?";
}

uint64_t dataTypeSize(DataType t) {
  for (const DataTypeName& d : kDataTypes)
    if (d.type == t) return d.size;
  return 1;
}

std::optional<RedOp> parseRedOp(const std::string& name) {
  const std::string n = lower(name);
  if (n == "sum") return RedOp::Sum;
  if (n == "prod") return RedOp::Prod;
  if (n == "max") return RedOp::Max;
  if (n == "min") return RedOp::Min;
  if (n == "avg") return RedOp::Avg;
  return std::nullopt;
}

const char* redOpName(RedOp op) {
  static constexpr const char* kNames[] = {"sum", "prod", "max", "min", "avg"};
  return kNames[static_cast<int>(op)];
}

const char* bypassPathName(BypassPath p) {
  switch (p) {
    case BypassPath::Tuned:
      return "tuned";
    case BypassPath::Symmetric:
      return "symmetric";
    case BypassPath::CopyEngine:
      break;
  }
  return "copy_engine";
}

BypassEnv readBypassEnv(const std::function<const char*(const char*)>& get) {
  BypassEnv env;
  env.symCeThreshold = variable(get, "NCCL_SYM_CE_THRESHOLD");
  env.winEnable = variable(get, "NCCL_WIN_ENABLE").value_or(1) != 0;
  env.cuMemEnable = variable(get, "NCCL_CUMEM_ENABLE").value_or(1) != 0;
  env.symNoWinEnable = variable(get, "NCCL_SYM_NOWIN_ENABLE").value_or(0) != 0;
  if (const std::optional<int64_t> tma = variable(get, "NCCL_SYM_TMA_ENABLE")) env.symTmaEnable = *tma != 0;
  const char* kernel = get("NCCL_SYM_KERNEL");
  env.symKernel = kernel ? kernel : "";
  return env;
}

}  // namespace railtune::ncclmodel
