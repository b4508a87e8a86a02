// The rows of one network setting for the algorithm rules (`sweep rules --net-env-rows`, docs/sweep.md "Rules from
// a dataset"): a tuner's rule cannot tell which NCCL_IB_* setting a job runs with, so the rules are made from one
// setting's measurements, by default those made under none.
#pragma once

#include <cstddef>
#include <string_view>

#include "nccl-tests-integration/dataset/net_env.h"
#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// "NAME=V,NAME=V" -> the setting ("" -> none). Throws std::invalid_argument naming --net-env-rows: an item without
// '=', a name given twice, a name that cannot be a setting (whyNotANetSetting).
NetEnv parseNetEnvRows(std::string_view text);

// Drops the groups of every other setting and their rows from rowsUsed; returns how many rows were left out.
// Throws std::runtime_error when no row of the setting was used, naming the settings the datasets hold.
size_t keepNetEnvRows(Aggregate& aggregate, const NetEnv& setting);

}  // namespace railtune::sweep
