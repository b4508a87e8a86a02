// NCCL topology XML reader: round trips through the writer, the real dumps, and every rejection NCCL's
// parser would make, each reported as source:line:column.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/topo_gen/nccl_xml_fixtures.h"
#include "tests/topo_gen/nccl_xml_golden.h"
#include "topo_gen/nccl_xml.h"

namespace railtune::topo {
namespace {

using testing::sourcePath;

// Real NCCL topology dumps of others, read in place from the shared data folder beside the checkout.
std::string sharedTopoPath(const std::string& name) {
  return std::string(RAILTUNE_SHARED_TOPO) + "/" + name;
}

// What the XML carries of a host (netdev, tray, domain, GPU model and source locations do not travel).
void expectSameHost(const fabric::Host& want, const fabric::Host& got) {
  EXPECT_EQ(got.name, want.name);
  ASSERT_EQ(got.cpus.size(), want.cpus.size());
  for (size_t i = 0; i < want.cpus.size(); ++i) {
    const fabric::Cpu &a = want.cpus[i], &b = got.cpus[i];
    EXPECT_EQ(std::tie(a.numa, a.arch, a.vendor, a.affinity, a.familyId, a.modelId),
              std::tie(b.numa, b.arch, b.vendor, b.affinity, b.familyId, b.modelId));
  }
  ASSERT_EQ(got.gpus.size(), want.gpus.size());
  for (size_t i = 0; i < want.gpus.size(); ++i) {
    const fabric::Gpu &a = want.gpus[i], &b = got.gpus[i];
    EXPECT_EQ(std::tie(a.index, a.busId, a.sm, a.numa, a.nvlinks, a.c2cLinks, a.c2cBwMBps),
              std::tie(b.index, b.busId, b.sm, b.numa, b.nvlinks, b.c2cLinks, b.c2cBwMBps));
  }
  ASSERT_EQ(got.nics.size(), want.nics.size());
  for (size_t i = 0; i < want.nics.size(); ++i) {
    const fabric::Nic &a = want.nics[i], &b = got.nics[i];
    EXPECT_EQ(
        std::tie(a.hca, a.busId, a.port, a.speedMbps, a.guid, a.rail, a.plane, a.numa, a.nearestGpu, a.linkLayer),
        std::tie(b.hca, b.busId, b.port, b.speedMbps, b.guid, b.rail, b.plane, b.numa, b.nearestGpu, b.linkLayer));
  }
}

TEST(NcclXmlReader, RoundTripsEveryGb300AndDgxHost) {
  for (const fabric::Fabric& f : {testing::gb300TwoRacks(), testing::dgxH100()})
    for (const fabric::Host& host : f.hosts) {
      SCOPED_TRACE(host.name);
      expectSameHost(host, readNcclXml(writeNcclXml(host), host.name + ".xml"));
    }
}

TEST(NcclXmlReader, RoundTripsTwoPlaneEthernetNics) {
  fabric::Host host = testing::gb300TwoRacks().hosts.front();
  for (fabric::Nic& n : host.nics) {
    n.linkLayer = "Ethernet";
    n.plane = n.rail % 2;
  }
  expectSameHost(host, readNcclXml(writeNcclXml(host), "planes.xml"));
}

TEST(NcclXmlReader, ReadsTheRealIbmH100Dump) {
  const std::string path = sharedTopoPath("ibm-gx3d-h100-8gpu-8nic-dump.xml");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  const fabric::Host h = readNcclXmlFile(path);
  ASSERT_EQ(h.cpus.size(), 2u);
  EXPECT_EQ(h.cpus[1].vendor, "GenuineIntel");
  EXPECT_EQ(h.cpus[1].modelId, 143);
  ASSERT_EQ(h.gpus.size(), 8u);
  for (const fabric::Gpu& g : h.gpus) {
    EXPECT_EQ(g.sm, 90);
    EXPECT_EQ(g.nvlinks, 18) << "5+5+4+4 links to four NVSwitches";
  }
  EXPECT_EQ(h.gpus[0].busId, "0000:a4:00.0");
  EXPECT_EQ(h.gpus[7].numa, 1);
  ASSERT_EQ(h.nics.size(), 8u);
  EXPECT_EQ(h.nics[0].hca, "mlx5_7");
  EXPECT_EQ(h.nics[0].busId, "0000:a3:00.0");
  EXPECT_EQ(h.nics[0].nearestGpu, 0);
  EXPECT_EQ(h.nics[0].speedMbps, 200000);
  EXPECT_EQ(h.nics[0].guid, 0x34f4e30003e1a258ULL);
  EXPECT_EQ(h.nics[0].linkLayer, "Ethernet");
  EXPECT_EQ(h.nics[0].rail, -1) << "pre-2.30 dumps have no rail";
  EXPECT_EQ(h.nics[7].hca, "mlx5_0");
  EXPECT_EQ(h.nics[7].nearestGpu, 7);
}

TEST(NcclXmlReader, ReadsTheAzurePartialFileAsFarAsItGoes) {
  const std::string path = sharedTopoPath("azure-ndv5-h100-partial-input.xml");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  const fabric::Host h = readNcclXmlFile(path);
  ASSERT_EQ(h.gpus.size(), 8u);
  ASSERT_EQ(h.nics.size(), 8u);
  EXPECT_EQ(h.gpus[3].busId, "0008:00:00.0");
  EXPECT_EQ(h.gpus[3].index, 3) << "file order when there is no <gpu dev>";
  EXPECT_EQ(h.gpus[3].sm, 0);
  EXPECT_EQ(h.nics[3].busId, "0104:00:00.0");
  EXPECT_EQ(h.nics[3].hca, "");
  EXPECT_EQ(h.nics[3].nearestGpu, 3);
  EXPECT_EQ(h.nics[3].linkLayer, "InfiniBand");
  EXPECT_EQ(h.nics[5].numa, 1);
}

std::string rejection(const std::string& text) {
  try {
    readNcclXml(text, "t.xml");
  } catch (const NcclXmlError& e) {
    return e.what();
  }
  return "accepted";
}

const char* kMinimal = "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"arm64\"/>\n</system>\n";

TEST(NcclXmlReader, AcceptsAMinimalFileWithComments) {
  EXPECT_EQ(rejection(std::string("<!-- made by hand -->\n") + kMinimal), "accepted");
}

TEST(NcclXmlReader, RejectsWhatNcclRejects) {
  EXPECT_EQ(rejection(std::string("<?xml version=\"1.0\"?>\n") + kMinimal),
            "t.xml:1:1: XML prolog: NCCL's parser does not accept one");
  EXPECT_EQ(rejection("<system version=\"1\">\n\t<cpu numaid=\"0\" arch=\"arm64\"/>\n</system>\n"),
            "t.xml:2:1: tab character: NCCL's parser accepts only spaces and newlines between tokens");
  EXPECT_EQ(rejection("<system version=\"2\"/>"), "t.xml:1:1: <system>: version must be 1 (NCCL_TOPO_XML_VERSION)");
  EXPECT_EQ(rejection("<system/>"), "t.xml:1:1: <system>: missing required attribute 'version'");
  EXPECT_EQ(rejection("<topology version=\"1\"/>"), "t.xml:1:1: the top element must be <system version=\"1\">");
  EXPECT_EQ(rejection("<system version=\"1\">\n  <cpu numaid=\"x\" arch=\"arm64\"/>\n</system>"),
            "t.xml:2:3: <cpu>: attribute 'numaid' is 'x', not an integer");
  EXPECT_EQ(rejection("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\"/>\n</system>"),
            "t.xml:2:3: <cpu>: missing required attribute 'vendor'");
  EXPECT_EQ(rejection("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"\"/>\n</system>"),
            "t.xml:2:3: <cpu>: attribute 'vendor' is empty on x86_64");
  EXPECT_EQ(rejection("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\" "
                      "familyid=\"-6\" modelid=\"143\"/>\n</system>"),
            "t.xml:2:3: <cpu>: familyid and modelid must be CPU family and model numbers (>= 0) for GenuineIntel");
  EXPECT_EQ(rejection("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"arm64\">\n    <pci busid=\"0000:0A:00.0\" "
                      "class=\"0x030200\" link_speed=\"x\" link_width=\"16\"/>\n  </cpu>\n</system>"),
            "t.xml:3:5: <pci>: busid '0000:0A:00.0' is not a lowercase dddd:bb:dd.f PCI address");
  EXPECT_EQ(rejection("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"arm64\">\n</system>"),
            "t.xml:3:3: malformed XML: Start-end tags mismatch");
  EXPECT_EQ(rejection("<system version=\"1\">hello</system>"), "t.xml:1:21: text between elements: NCCL expects '<'");
}

TEST(NcclXmlReader, RejectsWhatNcclWouldTruncate) {
  std::string wide = "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"arm64\"";
  for (int i = 0; i < 15; ++i) wide += " a" + std::to_string(i) + "=\"1\"";
  EXPECT_EQ(rejection(wide + "/>\n</system>"), "t.xml:2:3: <cpu>: 17 attributes; NCCL keeps only the first 16");
  std::string many = "<system version=\"1\">\n";
  for (int i = 0; i < 256; ++i) many += "<x/>\n";
  EXPECT_EQ(rejection(many + "</system>"), "t.xml:257:1: <x>: element 257: NCCL loads at most 256");
  EXPECT_EQ(rejection("<system version=\"1\" name=\"" + std::string(254, 'n') + "\"/>"),
            "t.xml:1:1: <system>: attribute 'name' is longer than NCCL's 253-character limit");
}

TEST(NcclXmlReader, NamesAMissingFile) {
  EXPECT_THROW(readNcclXmlFile(sourcePath("tests/data/topo/no-such-file.xml")), NcclXmlError);
}

}  // namespace
}  // namespace railtune::topo
