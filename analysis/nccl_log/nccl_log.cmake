# railtune_nccl_log: NCCL's own INFO logs read and rebuilt into path-log records (`railtune paths import`,
# and `paths check` / `paths render` on a folder of NCCL logs).
add_library(railtune_nccl_log STATIC
  ${CMAKE_CURRENT_LIST_DIR}/log_line.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_list.cc
  ${CMAKE_CURRENT_LIST_DIR}/log_set.cc
  ${CMAKE_CURRENT_LIST_DIR}/log_settle.cc
  ${CMAKE_CURRENT_LIST_DIR}/log_read.cc
  ${CMAKE_CURRENT_LIST_DIR}/import.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_join.cc
  ${CMAKE_CURRENT_LIST_DIR}/import_folder.cc
  ${CMAKE_CURRENT_LIST_DIR}/import_summary.cc)
target_link_libraries(railtune_nccl_log PUBLIC railtune_ingest railtune_formats Threads::Threads
                                        PRIVATE railtune_common_tools)
