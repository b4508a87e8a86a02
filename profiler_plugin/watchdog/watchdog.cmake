# The profiler's hang watchdog (RAILTUNE_HANG_TIMEOUT): one thread per process asking each
# communicator's capture for operations stuck too long; linked into the profiler plugin.
railtune_add_plugin_code(railtune_profiler_watchdog STATIC
  ${CMAKE_CURRENT_LIST_DIR}/hang_settings.cc
  ${CMAKE_CURRENT_LIST_DIR}/hang_report.cc
  ${CMAKE_CURRENT_LIST_DIR}/watchdog.cc)
target_link_libraries(railtune_profiler_watchdog PUBLIC railtune_common)
