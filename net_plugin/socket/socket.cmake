# railtune_net_socket: the TCP transport of the net engine (net_plugin/socket/), glibc sockets only.
add_library(railtune_net_socket STATIC
  ${CMAKE_CURRENT_LIST_DIR}/socket_engine.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_engine_data.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_fd.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_recv.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_send.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_setup.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_streams.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_wire.cc)
target_link_libraries(railtune_net_socket PUBLIC railtune_common)
set_target_properties(railtune_net_socket PROPERTIES POSITION_INDEPENDENT_CODE ON
                      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
