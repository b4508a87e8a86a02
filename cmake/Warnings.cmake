# Warnings are errors on every compiler we support (g++ 12, clang 14).
add_compile_options(-Wall -Wextra -Werror -Wshadow -Wnon-virtual-dtor -Wold-style-cast
                    -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference
                    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
# C sources (none in the plugins today) would reject the C++-only flags.
add_compile_options($<$<COMPILE_LANGUAGE:C>:-Wno-old-style-cast>)
