# railtune_net_ib: the verbs transport of the net engine (net_plugin/transports/ib/; issue 19, in progress). So
# far: the verbs ABI it uses (verbs_abi.h) and libibverbs opened with dlopen into one function table.
railtune_add_plugin_code(railtune_net_ib STATIC ${CMAKE_CURRENT_LIST_DIR}/verbs_table.cc)
target_link_libraries(railtune_net_ib PUBLIC railtune_common ${CMAKE_DL_LIBS})
