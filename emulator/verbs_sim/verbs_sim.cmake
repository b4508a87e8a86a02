# The strict verbs simulator (README.md): a libibverbs.so.1 the verbs transport loads unchanged, in one process
# or across processes; the emulator's RDMA stand-in (`railtune emu net-job --transport ib`, the demo, the
# tests). Built in every configuration (the aarch64 one too) and installed beside the plugins, in
# lib/railtune/verbs_sim/ (cmake/Package.cmake), where an installed railtune finds it. Its unit tests and
# their peer program are tests/emulator/verbs_sim/.
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)
set(_vsim ${CMAKE_CURRENT_LIST_DIR})

# The description and the fake sysfs tree: plain code the tool, the job launcher and the tests link directly.
add_library(railtune_verbs_sim_fabric STATIC ${_vsim}/sim_fabric.cc ${_vsim}/sim_sysfs.cc)
target_link_libraries(railtune_verbs_sim_fabric PUBLIC railtune_source_root PRIVATE nlohmann_json::nlohmann_json)

# The simulator itself, position-independent and hidden, for the shared library (and in-process use).
add_library(railtune_verbs_sim_core STATIC
  ${_vsim}/sim_state.cc ${_vsim}/sim_devices.cc ${_vsim}/sim_memory.cc ${_vsim}/sim_cq.cc
  ${_vsim}/sim_qp.cc ${_vsim}/sim_qp_modify.cc ${_vsim}/sim_qp_post.cc
  ${_vsim}/sim_agent.cc ${_vsim}/sim_wire.cc ${_vsim}/sim_memory_access.cc ${_vsim}/sim_requester.cc
  ${_vsim}/sim_responder.cc
  ${_vsim}/sim_control.cc)
set_target_properties(railtune_verbs_sim_core PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                                         VISIBILITY_INLINES_HIDDEN ON)
target_link_libraries(railtune_verbs_sim_core PUBLIC railtune_verbs_sim_fabric Threads::Threads)
set_target_properties(railtune_verbs_sim_fabric PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                                           VISIBILITY_INLINES_HIDDEN ON)

# libibverbs.so.1 (+ the libibverbs.so name link) alone in build/verbs_sim/, so that directory can go first on
# LD_LIBRARY_PATH. rdma-core's version nodes (libibverbs.map); -z nodelete because the agent thread must
# outlive a dlclose; -Bsymbolic so the library's own calls never bind to another libibverbs in the process.
add_library(railtune_verbs_sim SHARED ${_vsim}/sim_exports.cc)
target_link_libraries(railtune_verbs_sim PRIVATE railtune_verbs_sim_core)
set_target_properties(railtune_verbs_sim PROPERTIES OUTPUT_NAME ibverbs SOVERSION 1 CXX_VISIBILITY_PRESET hidden
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/verbs_sim LINK_DEPENDS ${_vsim}/libibverbs.map)
target_link_options(railtune_verbs_sim PRIVATE -Wl,--version-script=${_vsim}/libibverbs.map -Wl,-z,nodelete
                    -Wl,-Bsymbolic)

add_executable(railtune_verbs_sim_tool ${_vsim}/sim_tool.cc)
target_link_libraries(railtune_verbs_sim_tool PRIVATE railtune_verbs_sim_fabric)
