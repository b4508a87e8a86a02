// The doctor library's checks called directly, without the CLI (doctor/fabric_checks.h, doctor/env_checks.h):
// a rail map against the RDMA devices of a sysfs fixture, and NCCL_IB_HCA against the map's rails. (Checks that
// load a library run it in a probe child, the running binary started again: the CLI's tests cover those.)
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "doctor/check.h"
#include "doctor/context.h"
#include "doctor/env_checks.h"
#include "doctor/fabric_checks.h"

namespace railtune::doctor {
namespace {

const std::string kData = RAILTUNE_DOCTOR_DATA;
const std::string kRailMap = kData + "/net/gb300-tray.rail-map.json";
const std::string kSysfs = kData + "/discover/sysfs";

DoctorOptions withMap(const std::string& root) {
  DoctorOptions options;
  options.railMap = kRailMap;
  options.host = "gb300-r00-t00";
  options.root = root;
  return options;
}

const Check& only(const Report& report, const std::string& id) {
  for (const Check& c : report.checks())
    if (c.id == id) return c;
  throw std::runtime_error("no line " + id);
}

// A variable set for one test, unset after it (the checks read the process environment).
struct ScopedEnv {
  ScopedEnv(const char* variable, const char* value) : name(variable) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name); }
  const char* name;
};

TEST(DoctorChecks, RailMapHostAndItsNicsPresent) {
  const DoctorOptions options = withMap(kSysfs + "/gb300-1plane");
  Report report;
  const RailMapState state = checkRailMap(options, options.host, report);
  ASSERT_NE(state.host(), nullptr);
  checkNics(options, state, report);
  EXPECT_EQ(only(report, "fabric.rail_map").status, Status::Ok);
  EXPECT_NE(only(report, "fabric.rail_map").message.find("4 rail(s); host gb300-r00-t00: 4 GPU(s), 4 NIC(s)"),
            std::string::npos);
  // Every rail HCA is there and ACTIVE; the fixture's fifth HCA, on no rail, is worth a warning only.
  const Check& nics = only(report, "fabric.nics");
  EXPECT_EQ(nics.status, Status::Warn) << nics.message;
  EXPECT_EQ(nics.message, "all 4 rail HCA(s) present and ACTIVE; on no rail: mlx5_4");
  EXPECT_EQ(report.exitStatus(), 0);
}

TEST(DoctorChecks, NicsOfAnotherMachineFail) {
  const DoctorOptions options = withMap(kSysfs + "/roce-h100");
  Report report;
  checkNics(options, checkRailMap(options, options.host, report), report);
  const Check& nics = only(report, "fabric.nics");
  EXPECT_EQ(nics.status, Status::Fail);
  EXPECT_NE(nics.message.find("missing here: mlx5_1 (rail 1), mlx5_2 (rail 2)"), std::string::npos) << nics.message;
  EXPECT_NE(nics.fix, "");
  EXPECT_EQ(report.exitStatus(), 1);
}

TEST(DoctorChecks, UnreadableRailMapIsAFailLineNotAnException) {
  DoctorOptions options = withMap("/");
  options.railMap = kData + "/no-such-rail-map.json";
  Report report;
  const RailMapState state = checkRailMap(options, options.host, report);
  EXPECT_FALSE(state.map.has_value());
  EXPECT_EQ(only(report, "fabric.rail_map").status, Status::Fail);
  EXPECT_NE(only(report, "fabric.rail_map").message.find("no-such-rail-map.json"), std::string::npos);
}

TEST(DoctorChecks, IbHcaThatDropsARailFails) {
  const DoctorOptions options = withMap("/");
  Report report;
  const RailMapState state = checkRailMap(options, options.host, report);
  ASSERT_NE(state.host(), nullptr);
  {
    const ScopedEnv hca("NCCL_IB_HCA", "mlx5_0,mlx5_1,mlx5_9");
    checkNcclVariables(options, &*state.map, state.host(), report);
  }
  const Check& line = only(report, "env.NCCL_IB_HCA");
  EXPECT_EQ(line.status, Status::Fail);
  EXPECT_NE(line.message.find("excludes rail HCA(s) mlx5_2:1, mlx5_3:1"), std::string::npos) << line.message;

  Report accepted;
  {
    const ScopedEnv hca("NCCL_IB_HCA", "^mlx5_4");
    checkNcclVariables(options, &*state.map, state.host(), accepted);
  }
  EXPECT_EQ(only(accepted, "env.NCCL_IB_HCA").status, Status::Ok) << only(accepted, "env.NCCL_IB_HCA").message;
}

TEST(DoctorChecks, TextReportCountsEachStatus) {
  Report report;
  report.add("a.one", Status::Ok, "fine");
  report.add("a.two", Status::Fail, "broken\nacross lines", "mend it");
  report.add("a.three", Status::Skip, "absent");
  EXPECT_EQ(renderText(report),
            "ok   a.one    fine\n"
            "fail a.two    broken across lines -- fix: mend it\n"
            "skip a.three  absent\n"
            "railtune doctor: 1 ok, 0 warn, 1 fail, 1 skip\n");
  EXPECT_EQ(report.exitStatus(), 1);
}

}  // namespace
}  // namespace railtune::doctor
