# `railtune doctor` (cli/doctor/doctor.cc) and its checks (cli/doctor/). The pure parts (the ELF reader, the
# fit and ABI-binding rules, the report) are a library of their own so that the unit tests and the
# fuzzer link them without the CLI; the checks that probe the machine go straight into railtune.
find_package(nlohmann_json REQUIRED)
add_library(railtune_doctor_elf STATIC ${CMAKE_CURRENT_LIST_DIR}/elf_info.cc)
target_link_libraries(railtune_doctor_elf PUBLIC railtune_source_root)
add_library(railtune_doctor_rules STATIC
  ${CMAKE_CURRENT_LIST_DIR}/context.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
  ${CMAKE_CURRENT_LIST_DIR}/elf_fit.cc
  ${CMAKE_CURRENT_LIST_DIR}/abi_binding.cc)
target_link_libraries(railtune_doctor_rules PUBLIC railtune_doctor_elf railtune_emulator PRIVATE nlohmann_json::nlohmann_json)
target_sources(railtune PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/doctor.cc
  ${CMAKE_CURRENT_LIST_DIR}/probe_run.cc
  ${CMAKE_CURRENT_LIST_DIR}/probe_child.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml_probe.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/plugin_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/plugin_env.cc
  ${CMAKE_CURRENT_LIST_DIR}/env_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/fabric_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/gpu_checks.cc)
target_link_libraries(railtune PRIVATE railtune_doctor_rules railtune_formats nlohmann_json::nlohmann_json)
