# railtune_profiler_output: the profiler's writers (collective log, network summary, Chrome trace,
# Prometheus textfile) and the strict readers of the two JSONL formats. It goes into the profiler
# plugin's .so, so it is PIC with hidden visibility and depends on railtune_common and header-only
# nlohmann-json only.
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)
railtune_add_plugin_code(railtune_profiler_output STATIC
  ${CMAKE_CURRENT_LIST_DIR}/../record.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_append.cc
  ${CMAKE_CURRENT_LIST_DIR}/records_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/records_parse.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace.cc
  ${CMAKE_CURRENT_LIST_DIR}/prometheus.cc
  ${CMAKE_CURRENT_LIST_DIR}/writer.cc)
# nlohmann is public (header-only) for the tests and the fuzzer, which check the JSON they get.
target_link_libraries(railtune_profiler_output PUBLIC railtune_common Threads::Threads nlohmann_json::nlohmann_json)
