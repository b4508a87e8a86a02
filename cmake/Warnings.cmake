# Warnings are errors on every compiler we support (g++ 12, clang 14).
add_compile_options(-Wall -Wextra -Werror -Wshadow -Wcast-align -Wunused -Wnull-dereference -Wdouble-promotion
                    -Wformat=2 -Wimplicit-fallthrough)
# C++-only flags; C sources (the ABI headers compiled as C, test plugins) would warn about them.
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor> $<$<COMPILE_LANGUAGE:CXX>:-Wold-style-cast>
                    $<$<COMPILE_LANGUAGE:CXX>:-Woverloaded-virtual>)
# g++ 12 at -O3 reports a false -Wrestrict on `"literal" + std::string` inside libstdc++ (GCC bug
# 105329); clang keeps the check.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
# In a unity build a test's fixture in an anonymous namespace sits in an included file, and g++ warns
# that the test class TEST_F derives from it has internal linkage (-Wsubobject-linkage): harmless, as
# every such class is local to its one translation unit anyway.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND RAILTUNE_UNITY_BUILD)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
endif()
