# railtune_topo_sched: written by the scheduler-outputs engineer
