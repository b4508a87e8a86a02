// The fitted-model reader's refusals, each on the writer's own output with one thing broken: the message names the
// file, the line and column of the offending key or value, and the field's path.
#include <gtest/gtest.h>

#include <string>

#include "formats/tuner_model/tuner_model.h"
#include "formats/tuner_rules/json_positions.h"
#include "tests/unit/formats/tuner_model_sample.h"

namespace railtune::formats::tuner_model {
namespace {

const std::string kGood = writeTunerModel(testing::sampleModel());

using testing::errorOf;

// kGood with the first `from` (which must be there) replaced by `to`.
std::string with(const std::string& from, const std::string& to, const std::string& base = kGood) {
  return testing::replacedIn(base, from, to);
}

// "model.json:LINE:COLUMN: " of the first `needle` in `text`, plus `skip` bytes.
std::string at(const std::string& text, const std::string& needle, size_t skip = 0) {
  const tuner_rules::LineColumn lc = tuner_rules::lineColumnAt(text, text.find(needle) + skip);
  return "model.json:" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": ";
}

TEST(TunerModelErrors, TheWritersOutputIsAccepted) {
  EXPECT_EQ(errorOf(kGood), "");
}

TEST(TunerModelErrors, AnUnknownKeyIsNamedAtTheKey) {
  const std::string root = with("\"notes\"", "\"extra\": 1, \"notes\"");
  EXPECT_EQ(errorOf(root), at(root, "\"extra\"") + "field 'extra': unknown field");
  const std::string nested = with("\"nccl\": 14.0, \"value\"", "\"nccl\": 14.0, \"valu\": 1, \"value\"");
  EXPECT_EQ(errorOf(nested),
            at(nested, "\"valu\"") + "field 'fits[0].constants.base_latency_us.ring/ll128.valu': unknown field");
}

TEST(TunerModelErrors, AMissingKeyIsNamedAtItsObject) {
  const std::string text = with("\"generation\": \"blackwell\",\n", "");
  EXPECT_EQ(errorOf(text), at(text, "\"applies_to\": {", 14) + "field 'fits[0].applies_to.generation': missing");
  const std::string why = with(", \"why\": \"Ring/Simple", ", \"whence\": \"Ring/Simple");
  EXPECT_NE(errorOf(why).find("field 'fits[0].corrections[0].why': missing"), std::string::npos) << errorOf(why);
}

TEST(TunerModelErrors, AWrongTypeIsNamedAtTheValue) {
  const std::string rows = with("\"rows\": 96000", "\"rows\": \"96000\"");
  EXPECT_EQ(errorOf(rows), at(rows, "\"96000\"") +
                               "field 'fits[0].data.datasets[0].rows': expected an integer from 0 to "
                               "18446744073709551615");
  const std::string scale = with("\"time_scale\": 0.93", "\"time_scale\": \"0.93\"");
  EXPECT_EQ(errorOf(scale), at(scale, "\"0.93\"") +
                                "field 'fits[0].corrections[0].time_scale': expected a number, "
                                "not a string");
  const std::string fits = with("\"fits\": [", "\"fits\": 3, \"x\": [");
  EXPECT_EQ(errorOf(fits), at(fits, "3, ") + "field 'fits': expected an array, not an integer");
  const std::string usable = with("\"usable\": true", "\"usable\": 1");
  EXPECT_EQ(errorOf(usable), at(usable, "\"usable\": 1", 10) +
                                 "field 'fits[0].usable.1node.usable': expected true or false, not an "
                                 "integer");
}

TEST(TunerModelErrors, NotANumberIsNotJson) {
  const std::string nan = with("\"value\": 9.5", "\"value\": NaN");
  EXPECT_EQ(errorOf(nan).rfind(at(nan, "NaN") + "not JSON: syntax error", 0), 0u) << errorOf(nan);
  const std::string huge = with("\"value\": 9.5", "\"value\": 1e999");
  EXPECT_NE(errorOf(huge).find("not JSON"), std::string::npos) << errorOf(huge);
  const std::string null = with("\"value\": 9.5", "\"value\": null");
  EXPECT_NE(errorOf(null).find("'fits[0].constants.base_latency_us.ring/ll128.value': expected a number, not null"),
            std::string::npos);
}

TEST(TunerModelErrors, NegativeValuesWhereNoneMakeSense) {
  const std::string latency = with("\"value\": 9.5", "\"value\": -9.5");
  EXPECT_EQ(errorOf(latency),
            at(latency, "-9.5") + "field 'fits[0].constants.base_latency_us.ring/ll128.value': expected a number >= 0");
  EXPECT_NE(errorOf(with("\"value\": 28", "\"value\": 0")).find("ring_ll128.1node.value': expected a number > 0"),
            std::string::npos)
      << "a fitted cap of 0 would disable the cell";
  EXPECT_NE(errorOf(with("\"time_scale\": 0.93", "\"time_scale\": -0.93")).find("expected a number > 0"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"nic_gbps\": 800", "\"nic_gbps\": -800")).find("'fits[0].applies_to.fabric.nic_gbps'"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"worst\": 0.031", "\"worst\": -0.031")).find("in_sample.worst': expected a number >= 0"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"ranks\": 4", "\"ranks\": -4")).find("shapes[0].ranks': expected an integer from 1"),
            std::string::npos);
  EXPECT_EQ(errorOf(with("\"time_add_us\": -1.5", "\"time_add_us\": -2.5")), "") << "an affine offset may be negative";
}

TEST(TunerModelErrors, NcclsDefaultMustBeNcclsAtTheFitsRow) {
  const std::string text = with("{\"nccl\": 40.0, \"value\": 28.0", "{\"nccl\": 41.0, \"value\": 28.0");
  EXPECT_EQ(errorOf(text), at(text, "41.0") +
                               "field 'fits[0].constants.per_channel_max_gbps.ring_ll128.1node.nccl': NCCL 2.30's "
                               "default here is 40.0, not 41.0");
  // 2.28's Blackwell Ring/LL128 cap at one node is 73.4, not 2.30's 40.
  const std::string older = with("\"basis\": {\"nccl\": \"2.30\"", "\"basis\": {\"nccl\": \"2.28\"");
  EXPECT_NE(errorOf(older).find("NCCL 2.28's default here is 73.4, not 40.0"), std::string::npos) << errorOf(older);
  const std::string hopper = with("\"generation\": \"blackwell\"", "\"generation\": \"hopper\"");
  EXPECT_NE(errorOf(hopper).find("ll_max_bw_gbps.1node.nccl': NCCL 2.30's default here is 141.0"), std::string::npos)
      << errorOf(hopper);
}

TEST(TunerModelErrors, UnknownNames) {
  EXPECT_NE(errorOf(with("\"blackwell\"", "\"3\"")).find("generation': unknown name \"3\""), std::string::npos);
  EXPECT_NE(errorOf(with("\"ring/ll128\": {\"nccl\": 14.0", "\"ring-ll128\": {\"nccl\": 14.0"))
                .find("base_latency_us.ring-ll128': not ALGORITHM/PROTOCOL"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"nvlink\": {", "\"nvl\": {")).find("hw_latency_us.nvl': unknown link"), std::string::npos);
  EXPECT_NE(errorOf(with("\"2nodes\": {\"cpu\"", "\"3nodes\": {\"cpu\"")).find("unknown scale"), std::string::npos);
  EXPECT_NE(errorOf(with("\"ring_ll128\": {", "\"ring_ll\": {")).find("unknown cap"), std::string::npos);
  EXPECT_NE(errorOf(with("\"collective\": \"*\"", "\"collective\": \"all\"")).find("expected \"*\" or one of"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"graphs\": \"emulated\"", "\"graphs\": \"real\"")).find("basis.graphs': unknown name"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"InfiniBand\"", "\"IB\"")).find("expected \"InfiniBand\" or \"Ethernet\""),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"2.28\", \"2.30\"", "\"2.28\", \"2.30.7\"")).find("not an NCCL release as MAJOR.MINOR"),
            std::string::npos);
  EXPECT_NE(errorOf(with("fnv1a64:8c3f1d2e5a6b7c90", "8c3f1d2e5a6b7c90")).find("expected ALGORITHM:HEX"),
            std::string::npos);
  EXPECT_NE(errorOf(with("2026-12-06T16:00:00Z", "2026-12-06 16:00")).find("created': expected UTC"),
            std::string::npos);
  EXPECT_NE(errorOf(with("railtune.tuner-model/1", "railtune.tuner-model/2")).find("is not \"railtune.tuner-model/1\""),
            std::string::npos);
}

TEST(TunerModelErrors, TheLlRowAcrossNodesIsTheCpus) {
  EXPECT_NE(errorOf(with("{\"cpu\": \"not_amd\", ", "{")).find("ll_max_bw_gbps.2nodes.cpu': missing"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"1node\": {\"nccl\": 282", "\"1node\": {\"cpu\": \"not_amd\", \"nccl\": 282"))
                .find("on one node the row is the GPU generation's"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"cpu\": \"not_amd\"", "\"cpu\": \"amd_or_mixed\"")).find("default here is 22.5, not 39.0"),
            std::string::npos)
      << "llMaxBws[1][1], the AMD row (tuning.cc:269-271@v2.30.7)";
}

TEST(TunerModelErrors, InconsistentFits) {
  EXPECT_NE(errorOf(with("\"status\": \"complete\"", "\"status\": \"truncated\""))
                .find("usable.1node.usable': true with validation truncated"),
            std::string::npos);
  EXPECT_NE(errorOf(with("{\"points\": 312, \"worst\": 0.031", "{\"points\": 0, \"worst\": 0.031"))
                .find("worst, mean and worst_at need points > 0"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"mean\": 0.004", "\"mean\": 0.5")).find("in_sample.mean': above worst"), std::string::npos);
  EXPECT_NE(errorOf(with("\"nccl\": \"2.30\", \"profile\"", "\"nccl\": \"2.31\", \"profile\"")).find("unknown name"),
            std::string::npos)
      << "a basis railtune does not emulate";
  EXPECT_NE(errorOf(with("[\"2.28\", \"2.30\"]", "[\"2.28\"]")).find("release 2.30 is not in applies_to.nccl"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"min_bytes\": 8,", "\"min_bytes\": 17179869185,")).find("max_bytes': below min_bytes"),
            std::string::npos);
  const std::string twice =
      with("\"collective\": \"allreduce\", \"algorithm\": \"nvls\"", "\"collective\": \"*\", \"algorithm\": \"ring\"");
  EXPECT_NE(errorOf(twice).find("corrections[1]': the same collective, cell, scale and shape as entry 0"),
            std::string::npos)
      << errorOf(twice);
}

TEST(TunerModelErrors, TwoFitsForOneFabricAndRelease) {
  TunerModel model = testing::sampleModel();
  model.fits.push_back(model.fits[0]);
  model.fits[1].appliesTo.nccl = {"2.30"};
  EXPECT_THROW(writeTunerModel(model), TunerModelError);
  model.fits[1].appliesTo.fabric.nicGbps = 400;  // another fabric: both apply, each to its own
  const TunerModel read = parseTunerModel(writeTunerModel(model), "model.json");
  EXPECT_EQ(read.fits.size(), 2u);
}

TEST(TunerModelErrors, TruncatedOrEmptyOrDuplicated) {
  for (const size_t keep : {size_t{0}, size_t{1}, kGood.size() / 2, kGood.size() - 2}) {
    const std::string message = errorOf(kGood.substr(0, keep));
    EXPECT_EQ(message.rfind("model.json:", 0), 0u) << keep;
    EXPECT_NE(message.find("not JSON"), std::string::npos) << keep << ": " << message;
  }
  const std::string twice = with("\"notes\"", "\"created\": \"2026-12-06T16:00:00Z\", \"notes\"");
  const size_t second = twice.find("\"created\"", twice.find("\"created\"") + 1);
  const tuner_rules::LineColumn lc = tuner_rules::lineColumnAt(twice, second);
  EXPECT_EQ(errorOf(twice), "model.json:" + std::to_string(lc.line) + ":" + std::to_string(lc.column) +
                                ": not JSON: duplicate key \"created\"");
  EXPECT_NE(errorOf("[]").find("the document: expected an object, not an array"), std::string::npos);
}

}  // namespace
}  // namespace railtune::formats::tuner_model
