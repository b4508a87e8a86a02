// libFuzzer target for the fitted-model reader (formats/tuner_model), which the tuner runs on the file
// RAILTUNE_TUNER_MODEL_FILE names. Besides crashes and sanitizer reports it checks the reader's promises: a
// refusal names the source and a position ("fuzz.json:LINE:COLUMN: "), and an accepted model, written back,
// reads back and writes the same bytes again (the writer never writes what the reader refuses).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/tuner_model/tuner_model.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railtune::formats::tuner_model;
  const std::string text(reinterpret_cast<const char*>(data), size);
  TunerModel model;
  try {
    model = parseTunerModel(text, "fuzz.json");
  } catch (const TunerModelError& e) {
    const std::string what = e.what();
    require(what.rfind("fuzz.json:", 0) == 0 && what.find(": ", 10) != std::string::npos);
    return 0;
  }
  const std::string written = writeTunerModel(model);  // throws, and the fuzzer reports it, if the reader refuses
  require(writeTunerModel(parseTunerModel(written, "written.json")) == written);
  return 0;
}
