# railtune_net_ib: the verbs transport of the net engine (net_plugin/transports/ib/; issue 19): libibverbs opened
# with dlopen into one function table, the HCA ports, RC QPs, connection setup over the TCP setup stream
# (transports/tcp_setup/), and the RDMA data path. Nothing links libibverbs.
railtune_add_plugin_code(railtune_net_ib STATIC
  ${CMAKE_CURRENT_LIST_DIR}/verbs_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_async.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_comm.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_devices.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_engine.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_engine_data.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_mr_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_port.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_qp.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_recv.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_send.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_setup.cc
  ${CMAKE_CURRENT_LIST_DIR}/ib_wire.cc)
target_link_libraries(railtune_net_ib PUBLIC railtune_common railtune_net_tcp_setup railtune_net_devices ${CMAKE_DL_LIBS})
