# railtune_discover: joins the sources into the fabric model (pure; the CLI does the reading). It uses
# the probes' text helpers (GUIDs, the clique label rule), not their readers.
add_library(railtune_discover STATIC ${CMAKE_CURRENT_SOURCE_DIR}/assemble.cc ${CMAKE_CURRENT_SOURCE_DIR}/assemble_gpus.cc
                                     ${CMAKE_CURRENT_SOURCE_DIR}/assemble_nics.cc
                                     ${CMAKE_CURRENT_SOURCE_DIR}/assemble_health.cc)
target_link_libraries(railtune_discover PUBLIC railtune_fabric PRIVATE railtune_discover_probes)
