# railtune_add_plugin(<target> OUTPUT <libnccl-kind-name> MAP <version script> SOURCES ...)
# Builds one NCCL plugin shared object the way rule 5 of the architecture asks:
#  - exports only the symbols the linker version script lists (everything else local);
#  - libstdc++ linked statically, libgcc's unwinder from libgcc_s.so.1 (every image has it), so NEEDED
#    lists glibc and libgcc_s only and no symbol is newer than the glibc floor (docs/design.md);
#  - -fno-gnu-unique so that dlclose really unmaps the object (STB_GNU_UNIQUE pins it).
# Code that ends up inside a plugin (common/ too) must not emit STB_GNU_UNIQUE symbols.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
endif()

function(railtune_add_plugin target)
  cmake_parse_arguments(P "" "OUTPUT;MAP" "SOURCES;LIBS" ${ARGN})
  add_library(${target} SHARED ${P_SOURCES} $<TARGET_OBJECTS:railtune_static_runtime>)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${P_OUTPUT} PREFIX "" SUFFIX ".so"
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
                        LINK_DEPENDS ${P_MAP})
  target_link_libraries(${target} PRIVATE ${P_LIBS})
  target_link_options(${target} PRIVATE -Wl,--version-script=${P_MAP} -Wl,-z,now -Wl,--as-needed)
  if(NOT RAILTUNE_SANITIZED)
    # Not -static-libgcc: gcc 12's static unwinder calls _dl_find_object (GLIBC_2.35); the image's own
    # libgcc_s.so.1 is built for the image's glibc.
    target_link_options(${target} PRIVATE -static-libstdc++ -shared-libgcc -Wl,--no-undefined -Wl,-z,defs)
  endif()
  # Under sanitizers a shared object's references to the sanitizer runtime are resolved by the
  # executable that loads it (clang does not link the runtime into shared objects), so -z defs
  # would fail the link there.
endfunction()

# Code that goes into a plugin .so: position-independent, with hidden visibility so that only the
# version script's NCCL symbols leave the .so. KIND is STATIC or OBJECT; the rest are sources.
function(railtune_add_plugin_code target kind)
  add_library(${target} ${kind} ${ARGN})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
endfunction()
