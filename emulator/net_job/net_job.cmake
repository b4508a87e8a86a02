# railtune_emulator_net_job: the multi-process emulated job over the net plugin (`railtune emu
# net-job`, the demo's cross-rail part, tests/e2e/net_job_test.cc). CLI and test side only: it reads
# the embedded default cluster (YAML) and forks one process per rank.
find_package(nlohmann_json 3 REQUIRED)
add_library(railtune_emulator_net_job STATIC
  ${CMAKE_CURRENT_LIST_DIR}/job_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule.cc
  ${CMAKE_CURRENT_LIST_DIR}/pattern.cc
  ${CMAKE_CURRENT_LIST_DIR}/plugin_link.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvlink_link.cc
  ${CMAKE_CURRENT_LIST_DIR}/transfer.cc
  ${CMAKE_CURRENT_LIST_DIR}/collectives.cc
  ${CMAKE_CURRENT_LIST_DIR}/collectives_ring.cc
  ${CMAKE_CURRENT_LIST_DIR}/connect.cc
  ${CMAKE_CURRENT_LIST_DIR}/connect_nvlink.cc
  ${CMAKE_CURRENT_LIST_DIR}/result.cc
  ${CMAKE_CURRENT_LIST_DIR}/worker.cc
  ${CMAKE_CURRENT_LIST_DIR}/launcher.cc
  ${CMAKE_CURRENT_LIST_DIR}/launcher_fork.cc
  ${CMAKE_CURRENT_LIST_DIR}/verbs_job.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_report.cc
  ${CMAKE_CURRENT_LIST_DIR}/plugin_warnings.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_steps.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_collective.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_summary.cc)
target_link_libraries(railtune_emulator_net_job
  PUBLIC railtune_emulator railtune_formats
  PRIVATE railtune_topo_xml railtune_fabric_yaml railtune_verbs_sim_fabric nlohmann_json::nlohmann_json)
