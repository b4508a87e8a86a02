// The rail map's JSON pass (rail_map.cc): the document built in one pass that rejects a duplicated key at its
// position, and a problem's JSON pointer turned into "source:line:column" by a second pass over the text, run
// only when there is something to report. Not part of the interface.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::formats::rail_map_json {

// One problem: a JSON pointer to the value (or, `atKey`, to the member's key) and the message.
struct Problem {
  std::string pointer;
  bool atKey = false;
  std::string message;
};

// The document `text` holds; throws RailMapError ("source:line:column: not JSON: ..." or "...: duplicate key
// ...") when it is not JSON or repeats a key within an object.
nlohmann::json readDocument(const std::string& text, const std::string& source);

// Each problem as "source:line:column: message"; where its value (or key) is missing, the position of the
// enclosing object, else the source alone.
std::vector<std::string> locate(const std::vector<Problem>& problems, std::string_view text, const std::string& source);

}  // namespace railtune::formats::rail_map_json
