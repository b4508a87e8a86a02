// libibverbs opened into the verbs table (net_plugin/transports/ib/verbs_table.h), against stand-in libraries
// (fake_ibverbs.c): every required symbol found in IBVERBS_1.1 and the optional ones in their nodes; a library
// missing one required symbol refused, naming it; a library without version nodes accepted (dlvsym answers
// unversioned symbols); names tried in order; nothing found said so.
#include <gtest/gtest.h>

#include <string>

#include "net_plugin/transports/ib/verbs_table.h"

namespace railtune::net::ib {
namespace {

TEST(NetIbVerbsTable, EveryRequiredSymbolIsLoadedAndTheOptionalOnesWhereExported) {
  LoadedVerbs verbs = loadVerbs({FAKE_IBVERBS_FULL});
  ASSERT_TRUE(verbs.ok()) << verbs.reason;
  EXPECT_EQ(verbs.library, FAKE_IBVERBS_FULL);
  EXPECT_NE(verbs.table.modifyQp, nullptr);
  EXPECT_NE(verbs.table.eventTypeStr, nullptr);
  EXPECT_NE(verbs.table.regDmabufMr, nullptr);     // exported in IBVERBS_1.12
  EXPECT_EQ(verbs.table.regMrIova2, nullptr);      // not exported: optional
  EXPECT_EQ(verbs.table.queryPortSpeed, nullptr);  // not exported: optional
  int n = 0;
  IbvDevice** list = verbs.table.getDeviceList(&n);
  ASSERT_EQ(n, 1);
  EXPECT_STREQ(verbs.table.getDeviceName(list[0]), "fake_0");
  EXPECT_STREQ(list[0]->name, "fake_0");  // the ABI's layout: name at byte 24
  unloadVerbs(verbs);
  EXPECT_FALSE(verbs.ok());
}

TEST(NetIbVerbsTable, ALibraryWithoutARequiredSymbolIsRefusedByName) {
  const LoadedVerbs verbs = loadVerbs({FAKE_IBVERBS_PARTIAL, FAKE_IBVERBS_FULL});
  EXPECT_FALSE(verbs.ok());
  EXPECT_NE(verbs.reason.find("has no ibv_modify_qp (IBVERBS_1.1)"), std::string::npos) << verbs.reason;
}

TEST(NetIbVerbsTable, ALibraryWithoutVersionNodesIsAccepted) {
  LoadedVerbs verbs = loadVerbs({FAKE_IBVERBS_UNVERSIONED});
  ASSERT_TRUE(verbs.ok()) << verbs.reason;
  EXPECT_NE(verbs.table.regDmabufMr, nullptr);
  unloadVerbs(verbs);
}

TEST(NetIbVerbsTable, NamesAreTriedInOrderAndNoneFoundIsSaid) {
  LoadedVerbs verbs = loadVerbs({"/nonexistent/libibverbs.so", FAKE_IBVERBS_FULL});
  ASSERT_TRUE(verbs.ok()) << verbs.reason;
  EXPECT_EQ(verbs.library, FAKE_IBVERBS_FULL);
  unloadVerbs(verbs);
  const LoadedVerbs none = loadVerbs({"/nonexistent/libibverbs.so", "/nonexistent/libibverbs.so.1"});
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.reason.find("libibverbs not found"), std::string::npos) << none.reason;
  EXPECT_NE(none.reason.find("/nonexistent/libibverbs.so.1"), std::string::npos) << none.reason;
  EXPECT_EQ(defaultVerbsLibraries(), (std::vector<std::string>{"libibverbs.so", "libibverbs.so.1"}));
}

}  // namespace
}  // namespace railtune::net::ib
