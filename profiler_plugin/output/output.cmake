# railtune_profiler_output: the profiler's writers (collective log, network summary, Chrome trace,
# Prometheus textfile). The records and their strict readers are formats (formats/profile_logs.h). It
# goes into the profiler plugin's .so, so it is PIC with hidden visibility.
find_package(Threads REQUIRED)
railtune_add_plugin_code(railtune_profiler_output STATIC
  ${CMAKE_CURRENT_LIST_DIR}/trace.cc
  ${CMAKE_CURRENT_LIST_DIR}/prometheus.cc
  ${CMAKE_CURRENT_LIST_DIR}/writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/writer_files.cc)
target_link_libraries(railtune_profiler_output PUBLIC railtune_formats railtune_common Threads::Threads)
