# RAILTUNE_SANITIZE=address -> ASan + UBSan; thread -> TSan. Sanitizer builds keep the C++
# runtime dynamic (the static-runtime rule of the plugins is exempted there).
if(RAILTUNE_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(RAILTUNE_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT RAILTUNE_SANITIZE STREQUAL "" AND NOT RAILTUNE_SANITIZE STREQUAL "OFF")
  message(FATAL_ERROR "RAILTUNE_SANITIZE must be empty, 'address' or 'thread', not '${RAILTUNE_SANITIZE}'")
endif()
set(RAILTUNE_SANITIZED OFF)
if(RAILTUNE_SANITIZE STREQUAL "address" OR RAILTUNE_SANITIZE STREQUAL "thread")
  set(RAILTUNE_SANITIZED ON)
endif()

# Fuzz builds instrument every library for coverage: libFuzzer learns only from code compiled with
# -fsanitize=fuzzer-no-link, and the parsers it drives live in libraries, not in the targets' own files.
if(RAILTUNE_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
