# railtune_net_pathlog: the handshake header and the path log (issue 5). It goes into the net
# plugin's .so, so it is PIC with hidden visibility and depends on railtune_common and header-only
# nlohmann-json only.
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)
railtune_add_plugin_code(railtune_net_pathlog STATIC
  ${CMAKE_CURRENT_LIST_DIR}/handshake.cc
  ${CMAKE_CURRENT_LIST_DIR}/records_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/records_parse.cc
  ${CMAKE_CURRENT_LIST_DIR}/records_peer.cc
  ${CMAKE_CURRENT_LIST_DIR}/writer.cc)
target_link_libraries(railtune_net_pathlog PUBLIC railtune_common Threads::Threads PRIVATE nlohmann_json::nlohmann_json)
