# railtune_tuner_decisions: the report of `railtune tuner decisions` (what NCCL picks for a communicator with and
# without a tuner plugin, emulated or from NCCL's TUNING log), the communicator it describes and its three output
# formats. The computation that loads the plugin stays in cli/tuner/compute.cc, the one place allowed the
# tuner's own code. Static, CLI and test side.
find_package(nlohmann_json 3 REQUIRED)
add_library(railtune_tuner_decisions STATIC
  tuner_decisions/communicator.cc
  tuner_decisions/report.cc
  tuner_decisions/render.cc
  tuner_decisions/bypass_rows.cc)
target_link_libraries(railtune_tuner_decisions PUBLIC railtune_nccl_model railtune_formats railtune_fabric
                      PRIVATE nlohmann_json::nlohmann_json)
