# railtune_net_tcp_setup: the TCP setup stream both transports connect with (net_plugin/transports/tcp_setup/):
# the listen handle, the hellos and preambles, non-blocking listen/accept/connect; glibc sockets only.
railtune_add_plugin_code(railtune_net_tcp_setup STATIC
  ${CMAKE_CURRENT_LIST_DIR}/setup_wire.cc
  ${CMAKE_CURRENT_LIST_DIR}/tcp_setup.cc
  ${CMAKE_CURRENT_LIST_DIR}/tcp_socket.cc)
target_link_libraries(railtune_net_tcp_setup PUBLIC railtune_common)
