# railtune_profiler_capture: the profiler's event capture (CaptureEngine), one per communicator: fixed
# slot pools, lock-free on NCCL's hot paths, records pushed into a RecordSink. Goes into
# libnccl-profiler-railtune.so, so it is PIC with hidden visibility and depends on railtune_common only.
railtune_add_plugin_code(railtune_profiler_capture STATIC
  ${CMAKE_CURRENT_LIST_DIR}/mask.cc
  ${CMAKE_CURRENT_LIST_DIR}/message_size.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_decode.cc
  ${CMAKE_CURRENT_LIST_DIR}/capture_engine.cc
  ${CMAKE_CURRENT_LIST_DIR}/capture_stop.cc
  ${CMAKE_CURRENT_LIST_DIR}/capture_complete.cc
  ${CMAKE_CURRENT_LIST_DIR}/capture_phase.cc
  ${CMAKE_CURRENT_LIST_DIR}/make_capture.cc)
target_link_libraries(railtune_profiler_capture PUBLIC railtune_common)
