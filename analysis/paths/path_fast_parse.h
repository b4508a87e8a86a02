// A fast reader for the path log lines a healthy writer produces (simdjson ondemand). It accepts only
// lines it is sure the strict reader (formats/path_log.h, parseRecord) accepts, and fills the
// same record; anything unusual (escapes, non-ASCII bytes, repeated keys, "-0", a field out of range) is
// left to the strict reader, so error messages are always the strict reader's. The fuzz target
// fuzz_paths_load holds the two to that promise.
#pragma once

#include <cstddef>

#include "formats/path_log.h"

namespace railtune::analysis::paths::detail {

// `line` (without its newline) must be followed by readable bytes up to `capacity` >= size + 64.
// True: *out holds the record exactly as parseRecord would give it. False: ask parseRecord.
bool fastParseRecord(const char* line, size_t size, size_t capacity, formats::path_log::ParsedRecord* out);

// Whether two parsed records say the same thing, field by field (PathRecord has no operator==): what the
// tests and the fuzz target compare the two readers with.
bool sameRecord(const formats::path_log::ParsedRecord& a, const formats::path_log::ParsedRecord& b);

}  // namespace railtune::analysis::paths::detail
