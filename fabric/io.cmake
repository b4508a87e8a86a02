# railtune_fabric_io (rail map JSON reader the plugins link; no dependency but header-only JSON): written by the NCCL XML engineer
