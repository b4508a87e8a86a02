# railtune_net_socket: the TCP transport of the net engine (net_plugin/transports/socket/), glibc sockets only: its
# data path over the streams the TCP setup (transports/tcp_setup/) connects.
railtune_add_plugin_code(railtune_net_socket STATIC
  ${CMAKE_CURRENT_LIST_DIR}/socket_engine.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_engine_data.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_recv.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_send.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_setup.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_streams.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_tcp_info.cc
  ${CMAKE_CURRENT_LIST_DIR}/socket_wire.cc)
target_link_libraries(railtune_net_socket PUBLIC railtune_common railtune_net_tcp_setup railtune_net_pathlog)
# <linux/tcp.h> (for tcpi_snd_wnd, which glibc's <netinet/tcp.h> lacks) redefines what <netinet/tcp.h>
# declares: this file stays its own translation unit in a unity build.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/socket_tcp_info.cc PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
