# railtune_net_pathlog: the net plugin's path log writer (issue 5); the records it writes and the
# handshake header are formats (formats/path_log.h, formats/handshake.h). It goes into the net plugin's
# .so, so it is PIC with hidden visibility.
find_package(Threads REQUIRED)
railtune_add_plugin_code(railtune_net_pathlog STATIC ${CMAKE_CURRENT_LIST_DIR}/writer.cc)
target_link_libraries(railtune_net_pathlog PUBLIC railtune_formats railtune_common Threads::Threads)
