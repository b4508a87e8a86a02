// The fast collective reader held against the strict one (for the fuzzer and the tests; not part of
// the railtune binary): whenever the fast reader accepts a line, the strict reader must accept it
// and read the same fields; and whatever the strict reader accepts, written back by the profiler's
// renderer, the fast reader must accept (it may leave odd spellings to the strict reader, never a
// line as the profiler writes it).
#pragma once

#include <string>
#include <string_view>

namespace railtune::testing {

// "" when the two readers agree on `line`, else what differs.
std::string disagreement(std::string_view line);

}  // namespace railtune::testing
