// The three outputs of `railtune tuner decisions`: an aligned table for people, CSV (a header row, one row
// per collective and size) and one JSON document (schema railtune.tuner-decisions/1,
// docs/formats/tuner-decisions.schema.json).
#pragma once

#include <optional>
#include <string>

#include "emulator/tuner_decisions/report.h"
#include "formats/schemas.h"

namespace railtune::emu {

enum class DecisionsFormat { Table, Csv, Json };

std::optional<DecisionsFormat> parseDecisionsFormat(const std::string& name);  // "table", "csv", "json"
std::string formatDecisions(const DecisionsReport& report, DecisionsFormat format);

// "8", "4K", "16G": a power-of-two byte count with a binary suffix (other counts are written in full).
std::string shortBytes(uint64_t n);

}  // namespace railtune::emu
