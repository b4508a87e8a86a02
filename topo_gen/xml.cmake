# railtune_topo_xml: written by the NCCL XML engineer
