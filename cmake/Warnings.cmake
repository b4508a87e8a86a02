# Warnings are errors on every compiler we support (g++ 12, clang 14).
add_compile_options(-Wall -Wextra -Werror -Wshadow -Wcast-align -Wunused -Wnull-dereference -Wdouble-promotion
                    -Wformat=2 -Wimplicit-fallthrough)
# C++-only flags; C sources (the ABI headers compiled as C, test plugins) would warn about them.
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor> $<$<COMPILE_LANGUAGE:CXX>:-Wold-style-cast>
                    $<$<COMPILE_LANGUAGE:CXX>:-Woverloaded-virtual>)
