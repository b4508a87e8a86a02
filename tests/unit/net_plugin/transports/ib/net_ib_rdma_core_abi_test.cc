// verbs_abi.h against rdma-core's own <infiniband/verbs.h>, in one translation unit: every size, offset and enum
// value the verbs transport relies on is rdma-core's, so that the .so (which never includes rdma-core's headers and
// opens libibverbs with dlopen) hands a real libibverbs and its providers the layouts they read. Built only where
// the header is installed (Debian's libibverbs-dev; net_ib.cmake says when it is skipped). The differences that
// verbs_abi.h documents are asserted as what they are: our ibv_send_wr and ibv_qp_attr are rdma-core's up to where
// NCCL's copy stops (src/include/ibvcore.h), and our ibv_port_attr is rdma-core 49's, one field longer than 44's.
#include <infiniband/verbs.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <utility>

#include "net_plugin/transports/ib/verbs_abi.h"

namespace railtune::net::ib {
namespace {

// One field: the same offset and the same size in both declarations (the name says which rdma-core field).
#define EXPECT_SAME_FIELD(Ours, ours, Theirs, theirs)                                              \
  do {                                                                                             \
    EXPECT_EQ(offsetof(Ours, ours), offsetof(Theirs, theirs)) << "offset of " #Theirs "." #theirs; \
    EXPECT_EQ(sizeof(std::declval<Ours&>().ours), sizeof(std::declval<Theirs&>().theirs))          \
        << "size of " #Theirs "." #theirs;                                                         \
  } while (false)

#define EXPECT_SAME_SIZE(Ours, Theirs) EXPECT_EQ(sizeof(Ours), sizeof(Theirs)) << "size of " #Theirs

// rdma-core 49 added ibv_port_attr.active_speed_ex; Debian 12 has 44.
template <typename T>
constexpr bool kHasActiveSpeedEx = requires(T t) {
  t.active_speed_ex;
};

TEST(NetIbRdmaCoreAbi, GidDeviceAndProtectionDomainAreRdmaCores) {
  EXPECT_SAME_SIZE(IbvGid, ibv_gid);
  EXPECT_SAME_FIELD(IbvGid, raw, ibv_gid, raw);
  EXPECT_SAME_FIELD(IbvGid, global.subnetPrefix, ibv_gid, global.subnet_prefix);
  EXPECT_SAME_FIELD(IbvGid, global.interfaceId, ibv_gid, global.interface_id);

  EXPECT_SAME_SIZE(IbvDevice, ibv_device);
  EXPECT_SAME_FIELD(IbvDevice, obsoleteOps, ibv_device, _ops);
  EXPECT_SAME_FIELD(IbvDevice, nodeType, ibv_device, node_type);
  EXPECT_SAME_FIELD(IbvDevice, transportType, ibv_device, transport_type);
  EXPECT_SAME_FIELD(IbvDevice, name, ibv_device, name);
  EXPECT_SAME_FIELD(IbvDevice, devName, ibv_device, dev_name);
  EXPECT_SAME_FIELD(IbvDevice, devPath, ibv_device, dev_path);
  EXPECT_SAME_FIELD(IbvDevice, ibdevPath, ibv_device, ibdev_path);

  EXPECT_SAME_SIZE(IbvPd, ibv_pd);
  EXPECT_SAME_FIELD(IbvPd, context, ibv_pd, context);
  EXPECT_SAME_FIELD(IbvPd, handle, ibv_pd, handle);
}

TEST(NetIbRdmaCoreAbi, MemoryRegionAndCompletionQueueAreRdmaCores) {
  EXPECT_SAME_SIZE(IbvMr, ibv_mr);
  EXPECT_SAME_FIELD(IbvMr, context, ibv_mr, context);
  EXPECT_SAME_FIELD(IbvMr, pd, ibv_mr, pd);
  EXPECT_SAME_FIELD(IbvMr, addr, ibv_mr, addr);
  EXPECT_SAME_FIELD(IbvMr, length, ibv_mr, length);
  EXPECT_SAME_FIELD(IbvMr, handle, ibv_mr, handle);
  EXPECT_SAME_FIELD(IbvMr, lkey, ibv_mr, lkey);
  EXPECT_SAME_FIELD(IbvMr, rkey, ibv_mr, rkey);

  EXPECT_SAME_SIZE(IbvCompChannel, ibv_comp_channel);
  EXPECT_SAME_FIELD(IbvCompChannel, context, ibv_comp_channel, context);
  EXPECT_SAME_FIELD(IbvCompChannel, fd, ibv_comp_channel, fd);
  EXPECT_SAME_FIELD(IbvCompChannel, refcnt, ibv_comp_channel, refcnt);

  EXPECT_SAME_SIZE(IbvCq, ibv_cq);
  EXPECT_SAME_FIELD(IbvCq, context, ibv_cq, context);
  EXPECT_SAME_FIELD(IbvCq, channel, ibv_cq, channel);
  EXPECT_SAME_FIELD(IbvCq, cqContext, ibv_cq, cq_context);
  EXPECT_SAME_FIELD(IbvCq, handle, ibv_cq, handle);
  EXPECT_SAME_FIELD(IbvCq, cqe, ibv_cq, cqe);
  EXPECT_SAME_FIELD(IbvCq, mutex, ibv_cq, mutex);
  EXPECT_SAME_FIELD(IbvCq, cond, ibv_cq, cond);
  EXPECT_SAME_FIELD(IbvCq, compEventsCompleted, ibv_cq, comp_events_completed);
  EXPECT_SAME_FIELD(IbvCq, asyncEventsCompleted, ibv_cq, async_events_completed);
}

TEST(NetIbRdmaCoreAbi, QueuePairAndItsCreationAttributesAreRdmaCores) {
  EXPECT_SAME_SIZE(IbvQp, ibv_qp);
  EXPECT_SAME_FIELD(IbvQp, context, ibv_qp, context);
  EXPECT_SAME_FIELD(IbvQp, qpContext, ibv_qp, qp_context);
  EXPECT_SAME_FIELD(IbvQp, pd, ibv_qp, pd);
  EXPECT_SAME_FIELD(IbvQp, sendCq, ibv_qp, send_cq);
  EXPECT_SAME_FIELD(IbvQp, recvCq, ibv_qp, recv_cq);
  EXPECT_SAME_FIELD(IbvQp, srq, ibv_qp, srq);
  EXPECT_SAME_FIELD(IbvQp, handle, ibv_qp, handle);
  EXPECT_SAME_FIELD(IbvQp, qpNum, ibv_qp, qp_num);
  EXPECT_SAME_FIELD(IbvQp, state, ibv_qp, state);
  EXPECT_SAME_FIELD(IbvQp, qpType, ibv_qp, qp_type);
  EXPECT_SAME_FIELD(IbvQp, mutex, ibv_qp, mutex);
  EXPECT_SAME_FIELD(IbvQp, cond, ibv_qp, cond);
  EXPECT_SAME_FIELD(IbvQp, eventsCompleted, ibv_qp, events_completed);

  EXPECT_SAME_SIZE(IbvQpCap, ibv_qp_cap);
  EXPECT_SAME_FIELD(IbvQpCap, maxSendWr, ibv_qp_cap, max_send_wr);
  EXPECT_SAME_FIELD(IbvQpCap, maxRecvWr, ibv_qp_cap, max_recv_wr);
  EXPECT_SAME_FIELD(IbvQpCap, maxSendSge, ibv_qp_cap, max_send_sge);
  EXPECT_SAME_FIELD(IbvQpCap, maxRecvSge, ibv_qp_cap, max_recv_sge);
  EXPECT_SAME_FIELD(IbvQpCap, maxInlineData, ibv_qp_cap, max_inline_data);

  EXPECT_SAME_SIZE(IbvQpInitAttr, ibv_qp_init_attr);
  EXPECT_SAME_FIELD(IbvQpInitAttr, qpContext, ibv_qp_init_attr, qp_context);
  EXPECT_SAME_FIELD(IbvQpInitAttr, sendCq, ibv_qp_init_attr, send_cq);
  EXPECT_SAME_FIELD(IbvQpInitAttr, recvCq, ibv_qp_init_attr, recv_cq);
  EXPECT_SAME_FIELD(IbvQpInitAttr, srq, ibv_qp_init_attr, srq);
  EXPECT_SAME_FIELD(IbvQpInitAttr, cap, ibv_qp_init_attr, cap);
  EXPECT_SAME_FIELD(IbvQpInitAttr, qpType, ibv_qp_init_attr, qp_type);
  EXPECT_SAME_FIELD(IbvQpInitAttr, sqSigAll, ibv_qp_init_attr, sq_sig_all);
}

TEST(NetIbRdmaCoreAbi, AddressVectorIsRdmaCores) {
  EXPECT_SAME_SIZE(IbvGlobalRoute, ibv_global_route);
  EXPECT_SAME_FIELD(IbvGlobalRoute, dgid, ibv_global_route, dgid);
  EXPECT_SAME_FIELD(IbvGlobalRoute, flowLabel, ibv_global_route, flow_label);
  EXPECT_SAME_FIELD(IbvGlobalRoute, sgidIndex, ibv_global_route, sgid_index);
  EXPECT_SAME_FIELD(IbvGlobalRoute, hopLimit, ibv_global_route, hop_limit);
  EXPECT_SAME_FIELD(IbvGlobalRoute, trafficClass, ibv_global_route, traffic_class);

  EXPECT_SAME_SIZE(IbvAhAttr, ibv_ah_attr);
  EXPECT_SAME_FIELD(IbvAhAttr, grh, ibv_ah_attr, grh);
  EXPECT_SAME_FIELD(IbvAhAttr, dlid, ibv_ah_attr, dlid);
  EXPECT_SAME_FIELD(IbvAhAttr, sl, ibv_ah_attr, sl);
  EXPECT_SAME_FIELD(IbvAhAttr, srcPathBits, ibv_ah_attr, src_path_bits);
  EXPECT_SAME_FIELD(IbvAhAttr, staticRate, ibv_ah_attr, static_rate);
  EXPECT_SAME_FIELD(IbvAhAttr, isGlobal, ibv_ah_attr, is_global);
  EXPECT_SAME_FIELD(IbvAhAttr, portNum, ibv_ah_attr, port_num);
}

// NCCL's 136-byte ibv_qp_attr: rdma-core's without rate_limit, which ibv_modify_qp reads only under
// IBV_QP_RATE_LIMIT (never set by the transport).
TEST(NetIbRdmaCoreAbi, QpAttributesAreRdmaCoresUpToRateLimit) {
  EXPECT_EQ(sizeof(IbvQpAttr), offsetof(ibv_qp_attr, rate_limit)) << "ours ends where rate_limit begins";
  EXPECT_GT(sizeof(ibv_qp_attr), sizeof(IbvQpAttr));
  EXPECT_SAME_FIELD(IbvQpAttr, qpState, ibv_qp_attr, qp_state);
  EXPECT_SAME_FIELD(IbvQpAttr, curQpState, ibv_qp_attr, cur_qp_state);
  EXPECT_SAME_FIELD(IbvQpAttr, pathMtu, ibv_qp_attr, path_mtu);
  EXPECT_SAME_FIELD(IbvQpAttr, pathMigState, ibv_qp_attr, path_mig_state);
  EXPECT_SAME_FIELD(IbvQpAttr, qkey, ibv_qp_attr, qkey);
  EXPECT_SAME_FIELD(IbvQpAttr, rqPsn, ibv_qp_attr, rq_psn);
  EXPECT_SAME_FIELD(IbvQpAttr, sqPsn, ibv_qp_attr, sq_psn);
  EXPECT_SAME_FIELD(IbvQpAttr, destQpNum, ibv_qp_attr, dest_qp_num);
  EXPECT_SAME_FIELD(IbvQpAttr, qpAccessFlags, ibv_qp_attr, qp_access_flags);
  EXPECT_SAME_FIELD(IbvQpAttr, cap, ibv_qp_attr, cap);
  EXPECT_SAME_FIELD(IbvQpAttr, ahAttr, ibv_qp_attr, ah_attr);
  EXPECT_SAME_FIELD(IbvQpAttr, altAhAttr, ibv_qp_attr, alt_ah_attr);
  EXPECT_SAME_FIELD(IbvQpAttr, pkeyIndex, ibv_qp_attr, pkey_index);
  EXPECT_SAME_FIELD(IbvQpAttr, altPkeyIndex, ibv_qp_attr, alt_pkey_index);
  EXPECT_SAME_FIELD(IbvQpAttr, enSqdAsyncNotify, ibv_qp_attr, en_sqd_async_notify);
  EXPECT_SAME_FIELD(IbvQpAttr, sqDraining, ibv_qp_attr, sq_draining);
  EXPECT_SAME_FIELD(IbvQpAttr, maxRdAtomic, ibv_qp_attr, max_rd_atomic);
  EXPECT_SAME_FIELD(IbvQpAttr, maxDestRdAtomic, ibv_qp_attr, max_dest_rd_atomic);
  EXPECT_SAME_FIELD(IbvQpAttr, minRnrTimer, ibv_qp_attr, min_rnr_timer);
  EXPECT_SAME_FIELD(IbvQpAttr, portNum, ibv_qp_attr, port_num);
  EXPECT_SAME_FIELD(IbvQpAttr, timeout, ibv_qp_attr, timeout);
  EXPECT_SAME_FIELD(IbvQpAttr, retryCnt, ibv_qp_attr, retry_cnt);
  EXPECT_SAME_FIELD(IbvQpAttr, rnrRetry, ibv_qp_attr, rnr_retry);
  EXPECT_SAME_FIELD(IbvQpAttr, altPortNum, ibv_qp_attr, alt_port_num);
  EXPECT_SAME_FIELD(IbvQpAttr, altTimeout, ibv_qp_attr, alt_timeout);
}

TEST(NetIbRdmaCoreAbi, WorkCompletionScatterEntryAndReceiveRequestAreRdmaCores) {
  EXPECT_SAME_SIZE(IbvWc, ibv_wc);
  EXPECT_SAME_FIELD(IbvWc, wrId, ibv_wc, wr_id);
  EXPECT_SAME_FIELD(IbvWc, status, ibv_wc, status);
  EXPECT_SAME_FIELD(IbvWc, opcode, ibv_wc, opcode);
  EXPECT_SAME_FIELD(IbvWc, vendorErr, ibv_wc, vendor_err);
  EXPECT_SAME_FIELD(IbvWc, byteLen, ibv_wc, byte_len);
  EXPECT_SAME_FIELD(IbvWc, immData, ibv_wc, imm_data);
  EXPECT_SAME_FIELD(IbvWc, qpNum, ibv_wc, qp_num);
  EXPECT_SAME_FIELD(IbvWc, srcQp, ibv_wc, src_qp);
  EXPECT_SAME_FIELD(IbvWc, wcFlags, ibv_wc, wc_flags);
  EXPECT_SAME_FIELD(IbvWc, pkeyIndex, ibv_wc, pkey_index);
  EXPECT_SAME_FIELD(IbvWc, slid, ibv_wc, slid);
  EXPECT_SAME_FIELD(IbvWc, sl, ibv_wc, sl);
  EXPECT_SAME_FIELD(IbvWc, dlidPathBits, ibv_wc, dlid_path_bits);

  EXPECT_SAME_SIZE(IbvSge, ibv_sge);
  EXPECT_SAME_FIELD(IbvSge, addr, ibv_sge, addr);
  EXPECT_SAME_FIELD(IbvSge, length, ibv_sge, length);
  EXPECT_SAME_FIELD(IbvSge, lkey, ibv_sge, lkey);

  EXPECT_SAME_SIZE(IbvRecvWr, ibv_recv_wr);
  EXPECT_SAME_FIELD(IbvRecvWr, wrId, ibv_recv_wr, wr_id);
  EXPECT_SAME_FIELD(IbvRecvWr, next, ibv_recv_wr, next);
  EXPECT_SAME_FIELD(IbvRecvWr, sgList, ibv_recv_wr, sg_list);
  EXPECT_SAME_FIELD(IbvRecvWr, numSge, ibv_recv_wr, num_sge);
}

// NCCL's 80-byte ibv_send_wr: rdma-core's up to the bind_mw/tso union, which a provider reads only for
// IBV_WR_BIND_MW and IBV_WR_TSO (the transport posts RDMA WRITE, WRITE_WITH_IMM and READ). The work requests are
// chained through `next`, never indexed as rdma-core's array, so the shorter size is never stepped over.
TEST(NetIbRdmaCoreAbi, SendRequestIsRdmaCoresUpToTheBindMwUnion) {
  EXPECT_EQ(sizeof(IbvSendWr), offsetof(ibv_send_wr, bind_mw)) << "ours ends where bind_mw/tso begins";
  EXPECT_EQ(offsetof(ibv_send_wr, bind_mw), offsetof(ibv_send_wr, tso));
  EXPECT_GT(sizeof(ibv_send_wr), sizeof(IbvSendWr));
  EXPECT_SAME_FIELD(IbvSendWr, wrId, ibv_send_wr, wr_id);
  EXPECT_SAME_FIELD(IbvSendWr, next, ibv_send_wr, next);
  EXPECT_SAME_FIELD(IbvSendWr, sgList, ibv_send_wr, sg_list);
  EXPECT_SAME_FIELD(IbvSendWr, numSge, ibv_send_wr, num_sge);
  EXPECT_SAME_FIELD(IbvSendWr, opcode, ibv_send_wr, opcode);
  EXPECT_SAME_FIELD(IbvSendWr, sendFlags, ibv_send_wr, send_flags);
  EXPECT_SAME_FIELD(IbvSendWr, immData, ibv_send_wr, imm_data);
  EXPECT_SAME_FIELD(IbvSendWr, wr, ibv_send_wr, wr);
  EXPECT_SAME_FIELD(IbvSendWr, wr.rdma.remoteAddr, ibv_send_wr, wr.rdma.remote_addr);
  EXPECT_SAME_FIELD(IbvSendWr, wr.rdma.rkey, ibv_send_wr, wr.rdma.rkey);
  EXPECT_SAME_FIELD(IbvSendWr, wr.atomic.remoteAddr, ibv_send_wr, wr.atomic.remote_addr);
  EXPECT_SAME_FIELD(IbvSendWr, wr.atomic.compareAdd, ibv_send_wr, wr.atomic.compare_add);
  EXPECT_SAME_FIELD(IbvSendWr, wr.atomic.swap, ibv_send_wr, wr.atomic.swap);
  EXPECT_SAME_FIELD(IbvSendWr, wr.atomic.rkey, ibv_send_wr, wr.atomic.rkey);
  EXPECT_SAME_FIELD(IbvSendWr, xrcRemoteSrqn, ibv_send_wr, qp_type.xrc.remote_srqn);
}

// A template, so that the branch for the other rdma-core is never instantiated.
template <typename RdmaCorePortAttr>
void expectActiveSpeedExAsDocumented() {
  if constexpr (kHasActiveSpeedEx<RdmaCorePortAttr>) {
    EXPECT_SAME_SIZE(IbvPortAttr, RdmaCorePortAttr);
    EXPECT_SAME_FIELD(IbvPortAttr, activeSpeedEx, RdmaCorePortAttr, active_speed_ex);
  } else {
    EXPECT_EQ(offsetof(IbvPortAttr, activeSpeedEx), sizeof(RdmaCorePortAttr))
        << "before rdma-core 49, ours is rdma-core's and active_speed_ex after it";
  }
}

// rdma-core 49's ibv_port_attr (active_speed_ex last); 44's ends before it, and the transport zeroes the buffer
// and reads active_speed_ex 0 as absent.
TEST(NetIbRdmaCoreAbi, PortAttributesAreRdmaCoresAndActiveSpeedExIsRdmaCore49s) {
  expectActiveSpeedExAsDocumented<ibv_port_attr>();
  EXPECT_SAME_FIELD(IbvPortAttr, state, ibv_port_attr, state);
  EXPECT_SAME_FIELD(IbvPortAttr, maxMtu, ibv_port_attr, max_mtu);
  EXPECT_SAME_FIELD(IbvPortAttr, activeMtu, ibv_port_attr, active_mtu);
  EXPECT_SAME_FIELD(IbvPortAttr, gidTblLen, ibv_port_attr, gid_tbl_len);
  EXPECT_SAME_FIELD(IbvPortAttr, portCapFlags, ibv_port_attr, port_cap_flags);
  EXPECT_SAME_FIELD(IbvPortAttr, maxMsgSz, ibv_port_attr, max_msg_sz);
  EXPECT_SAME_FIELD(IbvPortAttr, badPkeyCntr, ibv_port_attr, bad_pkey_cntr);
  EXPECT_SAME_FIELD(IbvPortAttr, qkeyViolCntr, ibv_port_attr, qkey_viol_cntr);
  EXPECT_SAME_FIELD(IbvPortAttr, pkeyTblLen, ibv_port_attr, pkey_tbl_len);
  EXPECT_SAME_FIELD(IbvPortAttr, lid, ibv_port_attr, lid);
  EXPECT_SAME_FIELD(IbvPortAttr, smLid, ibv_port_attr, sm_lid);
  EXPECT_SAME_FIELD(IbvPortAttr, lmc, ibv_port_attr, lmc);
  EXPECT_SAME_FIELD(IbvPortAttr, maxVlNum, ibv_port_attr, max_vl_num);
  EXPECT_SAME_FIELD(IbvPortAttr, smSl, ibv_port_attr, sm_sl);
  EXPECT_SAME_FIELD(IbvPortAttr, subnetTimeout, ibv_port_attr, subnet_timeout);
  EXPECT_SAME_FIELD(IbvPortAttr, initTypeReply, ibv_port_attr, init_type_reply);
  EXPECT_SAME_FIELD(IbvPortAttr, activeWidth, ibv_port_attr, active_width);
  EXPECT_SAME_FIELD(IbvPortAttr, activeSpeed, ibv_port_attr, active_speed);
  EXPECT_SAME_FIELD(IbvPortAttr, physState, ibv_port_attr, phys_state);
  EXPECT_SAME_FIELD(IbvPortAttr, linkLayer, ibv_port_attr, link_layer);
  EXPECT_SAME_FIELD(IbvPortAttr, flags, ibv_port_attr, flags);
  EXPECT_SAME_FIELD(IbvPortAttr, portCapFlags2, ibv_port_attr, port_cap_flags2);
}

TEST(NetIbRdmaCoreAbi, DeviceAttributesAreRdmaCores) {
  EXPECT_SAME_SIZE(IbvDeviceAttr, ibv_device_attr);
  EXPECT_SAME_FIELD(IbvDeviceAttr, fwVer, ibv_device_attr, fw_ver);
  EXPECT_SAME_FIELD(IbvDeviceAttr, nodeGuid, ibv_device_attr, node_guid);
  EXPECT_SAME_FIELD(IbvDeviceAttr, sysImageGuid, ibv_device_attr, sys_image_guid);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxMrSize, ibv_device_attr, max_mr_size);
  EXPECT_SAME_FIELD(IbvDeviceAttr, pageSizeCap, ibv_device_attr, page_size_cap);
  EXPECT_SAME_FIELD(IbvDeviceAttr, vendorId, ibv_device_attr, vendor_id);
  EXPECT_SAME_FIELD(IbvDeviceAttr, vendorPartId, ibv_device_attr, vendor_part_id);
  EXPECT_SAME_FIELD(IbvDeviceAttr, hwVer, ibv_device_attr, hw_ver);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxQp, ibv_device_attr, max_qp);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxQpWr, ibv_device_attr, max_qp_wr);
  EXPECT_SAME_FIELD(IbvDeviceAttr, deviceCapFlags, ibv_device_attr, device_cap_flags);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxSge, ibv_device_attr, max_sge);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxSgeRd, ibv_device_attr, max_sge_rd);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxCq, ibv_device_attr, max_cq);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxCqe, ibv_device_attr, max_cqe);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxMr, ibv_device_attr, max_mr);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxPd, ibv_device_attr, max_pd);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxQpRdAtom, ibv_device_attr, max_qp_rd_atom);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxEeRdAtom, ibv_device_attr, max_ee_rd_atom);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxResRdAtom, ibv_device_attr, max_res_rd_atom);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxQpInitRdAtom, ibv_device_attr, max_qp_init_rd_atom);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxEeInitRdAtom, ibv_device_attr, max_ee_init_rd_atom);
  EXPECT_SAME_FIELD(IbvDeviceAttr, atomicCap, ibv_device_attr, atomic_cap);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxEe, ibv_device_attr, max_ee);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxRdd, ibv_device_attr, max_rdd);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxMw, ibv_device_attr, max_mw);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxRawIpv6Qp, ibv_device_attr, max_raw_ipv6_qp);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxRawEthyQp, ibv_device_attr, max_raw_ethy_qp);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxMcastGrp, ibv_device_attr, max_mcast_grp);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxMcastQpAttach, ibv_device_attr, max_mcast_qp_attach);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxTotalMcastQpAttach, ibv_device_attr, max_total_mcast_qp_attach);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxAh, ibv_device_attr, max_ah);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxFmr, ibv_device_attr, max_fmr);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxMapPerFmr, ibv_device_attr, max_map_per_fmr);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxSrq, ibv_device_attr, max_srq);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxSrqWr, ibv_device_attr, max_srq_wr);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxSrqSge, ibv_device_attr, max_srq_sge);
  EXPECT_SAME_FIELD(IbvDeviceAttr, maxPkeys, ibv_device_attr, max_pkeys);
  EXPECT_SAME_FIELD(IbvDeviceAttr, localCaAckDelay, ibv_device_attr, local_ca_ack_delay);
  EXPECT_SAME_FIELD(IbvDeviceAttr, physPortCnt, ibv_device_attr, phys_port_cnt);
}

// The inline ibv_poll_cq, ibv_post_send and ibv_post_recv of verbs.h call through these slots: the transport
// calls the same ones.
TEST(NetIbRdmaCoreAbi, ContextAndItsDataPathSlotsAreRdmaCores) {
  EXPECT_SAME_SIZE(IbvContextOps, ibv_context_ops);
  EXPECT_SAME_FIELD(IbvContextOps, pollCq, ibv_context_ops, poll_cq);
  EXPECT_SAME_FIELD(IbvContextOps, reqNotifyCq, ibv_context_ops, req_notify_cq);
  EXPECT_SAME_FIELD(IbvContextOps, postSend, ibv_context_ops, post_send);
  EXPECT_SAME_FIELD(IbvContextOps, postRecv, ibv_context_ops, post_recv);

  EXPECT_SAME_SIZE(IbvContext, ibv_context);
  EXPECT_SAME_FIELD(IbvContext, device, ibv_context, device);
  EXPECT_SAME_FIELD(IbvContext, ops, ibv_context, ops);
  EXPECT_SAME_FIELD(IbvContext, cmdFd, ibv_context, cmd_fd);
  EXPECT_SAME_FIELD(IbvContext, asyncFd, ibv_context, async_fd);
  EXPECT_SAME_FIELD(IbvContext, numCompVectors, ibv_context, num_comp_vectors);
  EXPECT_SAME_FIELD(IbvContext, mutex, ibv_context, mutex);
  EXPECT_SAME_FIELD(IbvContext, abiCompat, ibv_context, abi_compat);

  EXPECT_SAME_SIZE(IbvAsyncEvent, ibv_async_event);
  EXPECT_SAME_FIELD(IbvAsyncEvent, element, ibv_async_event, element);
  EXPECT_SAME_FIELD(IbvAsyncEvent, element.cq, ibv_async_event, element.cq);
  EXPECT_SAME_FIELD(IbvAsyncEvent, element.qp, ibv_async_event, element.qp);
  EXPECT_SAME_FIELD(IbvAsyncEvent, element.srq, ibv_async_event, element.srq);
  EXPECT_SAME_FIELD(IbvAsyncEvent, element.wq, ibv_async_event, element.wq);
  EXPECT_SAME_FIELD(IbvAsyncEvent, element.portNum, ibv_async_event, element.port_num);
  EXPECT_SAME_FIELD(IbvAsyncEvent, eventType, ibv_async_event, event_type);
}

#define EXPECT_SAME_VALUE(ours, theirs) \
  EXPECT_EQ(static_cast<long long>(ours), static_cast<long long>(theirs)) << #ours " is not " #theirs

TEST(NetIbRdmaCoreAbi, DeviceAndPortEnumsAreRdmaCores) {
  EXPECT_SAME_VALUE(kIbvNodeCa, IBV_NODE_CA);
  EXPECT_SAME_VALUE(kIbvPortDown, IBV_PORT_DOWN);
  EXPECT_SAME_VALUE(kIbvPortInit, IBV_PORT_INIT);
  EXPECT_SAME_VALUE(kIbvPortArmed, IBV_PORT_ARMED);
  EXPECT_SAME_VALUE(kIbvPortActive, IBV_PORT_ACTIVE);
  EXPECT_SAME_VALUE(kIbvLinkLayerUnspecified, IBV_LINK_LAYER_UNSPECIFIED);
  EXPECT_SAME_VALUE(kIbvLinkLayerInfiniband, IBV_LINK_LAYER_INFINIBAND);
  EXPECT_SAME_VALUE(kIbvLinkLayerEthernet, IBV_LINK_LAYER_ETHERNET);
  EXPECT_SAME_VALUE(kIbvMtu256, IBV_MTU_256);
  EXPECT_SAME_VALUE(kIbvMtu512, IBV_MTU_512);
  EXPECT_SAME_VALUE(kIbvMtu1024, IBV_MTU_1024);
  EXPECT_SAME_VALUE(kIbvMtu2048, IBV_MTU_2048);
  EXPECT_SAME_VALUE(kIbvMtu4096, IBV_MTU_4096);
  EXPECT_SAME_VALUE(kIbvEventCqErr, IBV_EVENT_CQ_ERR);
  EXPECT_SAME_VALUE(kIbvEventQpFatal, IBV_EVENT_QP_FATAL);
  EXPECT_SAME_VALUE(kIbvEventQpReqErr, IBV_EVENT_QP_REQ_ERR);
  EXPECT_SAME_VALUE(kIbvEventQpAccessErr, IBV_EVENT_QP_ACCESS_ERR);
  EXPECT_SAME_VALUE(kIbvEventCommEst, IBV_EVENT_COMM_EST);
  EXPECT_SAME_VALUE(kIbvEventDeviceFatal, IBV_EVENT_DEVICE_FATAL);
  EXPECT_SAME_VALUE(kIbvEventPortActive, IBV_EVENT_PORT_ACTIVE);
  EXPECT_SAME_VALUE(kIbvEventPortErr, IBV_EVENT_PORT_ERR);
}

TEST(NetIbRdmaCoreAbi, QueuePairEnumsAreRdmaCores) {
  EXPECT_SAME_VALUE(kIbvQptRc, IBV_QPT_RC);
  EXPECT_SAME_VALUE(kIbvQpsReset, IBV_QPS_RESET);
  EXPECT_SAME_VALUE(kIbvQpsInit, IBV_QPS_INIT);
  EXPECT_SAME_VALUE(kIbvQpsRtr, IBV_QPS_RTR);
  EXPECT_SAME_VALUE(kIbvQpsRts, IBV_QPS_RTS);
  EXPECT_SAME_VALUE(kIbvQpsSqd, IBV_QPS_SQD);
  EXPECT_SAME_VALUE(kIbvQpsSqe, IBV_QPS_SQE);
  EXPECT_SAME_VALUE(kIbvQpsErr, IBV_QPS_ERR);
  EXPECT_SAME_VALUE(kIbvQpState, IBV_QP_STATE);
  EXPECT_SAME_VALUE(kIbvQpCurState, IBV_QP_CUR_STATE);
  EXPECT_SAME_VALUE(kIbvQpEnSqdAsyncNotify, IBV_QP_EN_SQD_ASYNC_NOTIFY);
  EXPECT_SAME_VALUE(kIbvQpAccessFlags, IBV_QP_ACCESS_FLAGS);
  EXPECT_SAME_VALUE(kIbvQpPkeyIndex, IBV_QP_PKEY_INDEX);
  EXPECT_SAME_VALUE(kIbvQpPort, IBV_QP_PORT);
  EXPECT_SAME_VALUE(kIbvQpQkey, IBV_QP_QKEY);
  EXPECT_SAME_VALUE(kIbvQpAv, IBV_QP_AV);
  EXPECT_SAME_VALUE(kIbvQpPathMtu, IBV_QP_PATH_MTU);
  EXPECT_SAME_VALUE(kIbvQpTimeout, IBV_QP_TIMEOUT);
  EXPECT_SAME_VALUE(kIbvQpRetryCnt, IBV_QP_RETRY_CNT);
  EXPECT_SAME_VALUE(kIbvQpRnrRetry, IBV_QP_RNR_RETRY);
  EXPECT_SAME_VALUE(kIbvQpRqPsn, IBV_QP_RQ_PSN);
  EXPECT_SAME_VALUE(kIbvQpMaxQpRdAtomic, IBV_QP_MAX_QP_RD_ATOMIC);
  EXPECT_SAME_VALUE(kIbvQpAltPath, IBV_QP_ALT_PATH);
  EXPECT_SAME_VALUE(kIbvQpMinRnrTimer, IBV_QP_MIN_RNR_TIMER);
  EXPECT_SAME_VALUE(kIbvQpSqPsn, IBV_QP_SQ_PSN);
  EXPECT_SAME_VALUE(kIbvQpMaxDestRdAtomic, IBV_QP_MAX_DEST_RD_ATOMIC);
  EXPECT_SAME_VALUE(kIbvQpPathMigState, IBV_QP_PATH_MIG_STATE);
  EXPECT_SAME_VALUE(kIbvQpCap, IBV_QP_CAP);
  EXPECT_SAME_VALUE(kIbvQpDestQpn, IBV_QP_DEST_QPN);
  EXPECT_SAME_VALUE(kIbvQpRateLimit, IBV_QP_RATE_LIMIT);
  EXPECT_SAME_VALUE(kIbvAccessLocalWrite, IBV_ACCESS_LOCAL_WRITE);
  EXPECT_SAME_VALUE(kIbvAccessRemoteWrite, IBV_ACCESS_REMOTE_WRITE);
  EXPECT_SAME_VALUE(kIbvAccessRemoteRead, IBV_ACCESS_REMOTE_READ);
  EXPECT_SAME_VALUE(kIbvAccessRemoteAtomic, IBV_ACCESS_REMOTE_ATOMIC);
  EXPECT_SAME_VALUE(kIbvAccessRelaxedOrdering, IBV_ACCESS_RELAXED_ORDERING);
}

TEST(NetIbRdmaCoreAbi, WorkRequestAndCompletionEnumsAreRdmaCores) {
  EXPECT_SAME_VALUE(kIbvWrRdmaWrite, IBV_WR_RDMA_WRITE);
  EXPECT_SAME_VALUE(kIbvWrRdmaWriteWithImm, IBV_WR_RDMA_WRITE_WITH_IMM);
  EXPECT_SAME_VALUE(kIbvWrSend, IBV_WR_SEND);
  EXPECT_SAME_VALUE(kIbvWrSendWithImm, IBV_WR_SEND_WITH_IMM);
  EXPECT_SAME_VALUE(kIbvWrRdmaRead, IBV_WR_RDMA_READ);
  EXPECT_SAME_VALUE(kIbvSendFence, IBV_SEND_FENCE);
  EXPECT_SAME_VALUE(kIbvSendSignaled, IBV_SEND_SIGNALED);
  EXPECT_SAME_VALUE(kIbvSendSolicited, IBV_SEND_SOLICITED);
  EXPECT_SAME_VALUE(kIbvSendInline, IBV_SEND_INLINE);
  EXPECT_SAME_VALUE(kIbvWcSuccess, IBV_WC_SUCCESS);
  EXPECT_SAME_VALUE(kIbvWcLocLenErr, IBV_WC_LOC_LEN_ERR);
  EXPECT_SAME_VALUE(kIbvWcLocQpOpErr, IBV_WC_LOC_QP_OP_ERR);
  EXPECT_SAME_VALUE(kIbvWcLocProtErr, IBV_WC_LOC_PROT_ERR);
  EXPECT_SAME_VALUE(kIbvWcWrFlushErr, IBV_WC_WR_FLUSH_ERR);
  EXPECT_SAME_VALUE(kIbvWcRemInvReqErr, IBV_WC_REM_INV_REQ_ERR);
  EXPECT_SAME_VALUE(kIbvWcRemAccessErr, IBV_WC_REM_ACCESS_ERR);
  EXPECT_SAME_VALUE(kIbvWcRemOpErr, IBV_WC_REM_OP_ERR);
  EXPECT_SAME_VALUE(kIbvWcRetryExcErr, IBV_WC_RETRY_EXC_ERR);
  EXPECT_SAME_VALUE(kIbvWcRnrRetryExcErr, IBV_WC_RNR_RETRY_EXC_ERR);
  EXPECT_SAME_VALUE(kIbvWcFatalErr, IBV_WC_FATAL_ERR);
  EXPECT_SAME_VALUE(kIbvWcGeneralErr, IBV_WC_GENERAL_ERR);
  EXPECT_SAME_VALUE(kIbvWcSend, IBV_WC_SEND);
  EXPECT_SAME_VALUE(kIbvWcRdmaWrite, IBV_WC_RDMA_WRITE);
  EXPECT_SAME_VALUE(kIbvWcRdmaRead, IBV_WC_RDMA_READ);
  EXPECT_SAME_VALUE(kIbvWcRecv, IBV_WC_RECV);
  EXPECT_SAME_VALUE(kIbvWcRecvRdmaWithImm, IBV_WC_RECV_RDMA_WITH_IMM);
  EXPECT_SAME_VALUE(kIbvWcWithImm, IBV_WC_WITH_IMM);
}

}  // namespace
}  // namespace railtune::net::ib
