# railtune_net_devices: which devices the net plugin offers NCCL and whether it offers any (the
# step-aside rule). It goes into libnccl-net-railtune.so, so it is PIC with hidden visibility and
# depends only on railtune_common and the rail map reader (no yaml, no hwloc).
railtune_add_plugin_code(railtune_net_devices STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sysfs.cc
  ${CMAKE_CURRENT_LIST_DIR}/addresses.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_aside.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_list.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_discover.cc
  ${CMAKE_CURRENT_LIST_DIR}/vdevice.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_table.cc)
target_link_libraries(railtune_net_devices PUBLIC railtune_common railtune_formats)
