// NCCL's adapters widen every older net properties struct to the newest one (net_vN.cc getProperties).
#pragma once

#include "nccl/net_v10.h"
#include "nccl/net_v11.h"
#include "nccl/net_v12.h"
#include "nccl/net_v6.h"
#include "nccl/net_v7.h"
#include "nccl/net_v8.h"
#include "nccl/net_v9.h"

namespace railtune::emu {

void widenProperties(const ncclNetProperties_v6_t& in, int dev, ncclNetProperties_v12_t* out);
void widenProperties(const ncclNetProperties_v7_t& in, int dev, ncclNetProperties_v12_t* out);
void widenProperties(const ncclNetProperties_v8_t& in, int dev, ncclNetProperties_v12_t* out);
void widenProperties(const ncclNetProperties_v9_t& in, int dev, ncclNetProperties_v12_t* out);
void widenProperties(const ncclNetProperties_v10_t& in, int dev, ncclNetProperties_v12_t* out);
void widenProperties(const ncclNetProperties_v11_t& in, int dev, ncclNetProperties_v12_t* out);
void widenProperties(const ncclNetProperties_v12_t& in, int dev, ncclNetProperties_v12_t* out);

}  // namespace railtune::emu
