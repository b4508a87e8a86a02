#include "doctor/context.h"

namespace railtune::doctor {

std::string ncclVersionText(int code) {
  if (code <= 0) return "unknown (" + std::to_string(code) + ")";
  const bool modern = code >= 10000;  // NCCL_VERSION_CODE from 2.9 on
  const int major = modern ? code / 10000 : code / 1000;
  const int minor = modern ? (code / 100) % 100 : (code / 100) % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string underRoot(const std::string& root, const std::string& absolute) {
  if (root.empty() || root == "/") return absolute;
  return (root.back() == '/' ? root.substr(0, root.size() - 1) : root) + absolute;
}

}  // namespace railtune::doctor
