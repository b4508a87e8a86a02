export NCCL_IB_HCA='=mlx5_0:1:0,mlx5_3:1:1,mlx5_4:1:2,mlx5_5:1:3,mlx5_6:1:4,mlx5_9:1:5,mlx5_10:1:6,mlx5_11:1:7'
export NCCL_CROSS_NIC=0
export NCCL_NET_MERGE_POLICY=RAIL
export NCCL_IB_QPS_PER_CONNECTION=4
export NCCL_NET_PLUGIN=/opt/railtune/lib/libnccl-net-railtune.so
export NCCL_TUNER_PLUGIN=/opt/railtune/lib/libnccl-tuner-railtune.so
export NCCL_PROFILER_PLUGIN=/opt/railtune/lib/libnccl-profiler-railtune.so
