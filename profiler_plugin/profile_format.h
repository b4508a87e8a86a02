// The profiler plugin writes the profile log formats (formats/profile_record.h, formats/profile_logs.h):
// its capture, watchdog and writers name the format's records, kinds and renderers unqualified, as
// the vocabulary of the whole plugin.
#pragma once

#include "formats/json_append.h"
#include "formats/profile_logs.h"
#include "formats/profile_record.h"

namespace railtune::profiler {

using namespace formats::profile;  // NOLINT(google-build-using-namespace): the plugin's own vocabulary
using formats::appendHex16;
using formats::appendJsonDouble;
using formats::appendJsonInt;
using formats::appendJsonString;
using formats::appendJsonUint;
using formats::InlineText;
using formats::JsonAppender;

}  // namespace railtune::profiler
