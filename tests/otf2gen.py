"""OTF2 archives written with the `otf2` package's writer, for tests and benchmarks.

`mpi_ring` writes, with a timer of 1 GHz (1 tick = 1 ns), on host "node-A" (ranks
0, 1) and "node-B" (ranks 2, 3), one process per rank with a main thread:
- every rank, round k = 0..rounds-1 at t0 = 1000 (k + 1) ns: Enter "compute"
  [t0, t0+100], Enter "MPI_Isend" at t0+100, Isend of 1000 (k + 1) + rank bytes
  to rank+1 with tag k, Leave at t0+110; Enter "MPI_Irecv" at t0+120, Irecv from
  rank-1 completed at t0+150 + rank, Leave at t0+160; IsendComplete at t0+170;
- an MPI_Allreduce: CollectiveBegin at 9000, CollectiveEnd at 9100 + rank, root 0,
  8 bytes sent and received;
- on rank 0 a second thread with Enter/Leave "worker" [500, 800];
- on rank 0's main thread, metrics "temperature" (double, absolute) 40.5 + k and
  "cycles" (uint64, accumulated) 1000 k at t0 of each round;
- an accelerator location group "GPU 0" under node-A with a stream running the
  kernel "saxpy" (paradigm CUDA) [2000, 2500].
"""
import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType, MetricMode,
                        Paradigm, RecorderKind, RegionRole, Type)

RANKS = 4


def _world(d, locs):
    """MPI_COMM_WORLD over `locs` (rank i is locs[i])."""
    d.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locs)
    return d.comm("MPI_COMM_WORLD", group=d.group(
        "world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=locs))


def mpi_ring(path, rounds=3, extra_event_on=None):
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        machine = d.system_tree_node("cluster")
        hosts = [d.system_tree_node(h, parent=machine, class_name="node")
                 for h in ("node-A", "node-B")]
        groups = [d.location_group(f"MPI Rank {r}", system_tree_parent=hosts[r // 2])
                  for r in range(RANKS)]
        locs = [d.location("Master thread", group=g) for g in groups]
        mains = [w.event_writer_from_location(loc) for loc in locs]
        worker = w.event_writer("Worker thread", group=groups[0])
        gpu = d.location_group("GPU 0", system_tree_parent=hosts[0],
                               location_group_type=LocationGroupType.ACCELERATOR)
        stream = w.event_writer("stream 0", group=gpu, type=LocationType.ACCELERATOR_STREAM)
        comm = _world(d, locs)
        reg = {n: d.region(n, paradigm=p, region_role=r) for n, p, r in (
            ("compute", Paradigm.USER, RegionRole.FUNCTION),
            ("MPI_Isend", Paradigm.MPI, RegionRole.POINT2POINT),
            ("MPI_Irecv", Paradigm.MPI, RegionRole.POINT2POINT),
            ("worker", Paradigm.USER, RegionRole.FUNCTION),
            ("saxpy", Paradigm.CUDA, RegionRole.FUNCTION))}
        temp = d.metric_member("temperature", metric_mode=MetricMode.ABSOLUTE_POINT,
                               value_type=Type.DOUBLE, unit="C")
        cycles = d.metric_member("cycles", metric_mode=MetricMode.ACCUMULATED_START,
                                 value_type=Type.UINT64, unit="#")
        metric = d.metric_class([temp, cycles], recorder_kind=RecorderKind.CPU)
        for r, ev in enumerate(mains):
            for k in range(rounds):
                t0 = 1000 * (k + 1)
                if r == 0:
                    ev.metric(t0, metric, [40.5 + k, 1000 * k])
                ev.enter(t0, reg["compute"])
                ev.leave(t0 + 100, reg["compute"])
                ev.enter(t0 + 100, reg["MPI_Isend"])
                ev.mpi_isend(t0 + 105, (r + 1) % RANKS, comm, k, 1000 * (k + 1) + r, 7 + k)
                ev.leave(t0 + 110, reg["MPI_Isend"])
                ev.enter(t0 + 120, reg["MPI_Irecv"])
                ev.mpi_irecv_request(t0 + 125, 17 + k)
                ev.mpi_irecv(t0 + 150 + r, (r - 1) % RANKS, comm, k, 1000 * (k + 1) + (r - 1) % RANKS,
                             17 + k)
                ev.leave(t0 + 160, reg["MPI_Irecv"])
                ev.mpi_isend_complete(t0 + 170, 7 + k)
            ev.mpi_collective_begin(9000)
            ev.mpi_collective_end(9100 + r, CollectiveOp.ALLREDUCE, comm, 0, 8, 8)
            if r == extra_event_on:
                ev.enter(9500, reg["compute"])
                ev.leave(9600, reg["compute"])
        worker.enter(500, reg["worker"])
        worker.leave(800, reg["worker"])
        stream.enter(2000, reg["saxpy"])
        stream.leave(2500, reg["saxpy"])


def threads(path, n_threads=1):
    """A run without MPI: one process on host "node-A" whose `n_threads` threads
    (1: a serial run) each Enter "main" [0, 1000 + 100 t] and, nested, "loop"
    [100, 600 + 100 t] (ns), no message."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        host = d.system_tree_node("node-A", class_name="node")
        group = d.location_group("Process", system_tree_parent=host)
        main = d.region("main", paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
        loop = d.region("loop", paradigm=Paradigm.OPENMP, region_role=RegionRole.LOOP)
        for t in range(n_threads):
            ev = w.event_writer(f"OpenMP thread {t}" if n_threads > 1 else "Master thread",
                                group=group)
            ev.enter(0, main)
            ev.enter(100, loop)
            ev.leave(600 + 100 * t, loop)
            ev.leave(1000 + 100 * t, main)


def big(path, events, ranks=8):
    """About `events` events: ranks exchanging messages in a ring with nested regions
    (for the reading benchmark)."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        host = d.system_tree_node("host")
        groups = [d.location_group(f"rank {r}", system_tree_parent=host) for r in range(ranks)]
        locs = [d.location("main", group=g) for g in groups]
        evs = [w.event_writer_from_location(loc) for loc in locs]
        comm = _world(d, locs)
        outer, send, recv = (d.region(n) for n in ("step", "MPI_Send", "MPI_Recv"))
        per_round = 8  # events per rank per round
        rounds = max(1, events // (ranks * per_round))
        for k in range(rounds):
            t = 1000 * k
            for r, ev in enumerate(evs):
                ev.enter(t, outer)
                ev.enter(t + 10, send)
                ev.mpi_send(t + 20, (r + 1) % ranks, comm, 0, 64)
                ev.leave(t + 30, send)
                ev.enter(t + 40, recv)
                ev.mpi_recv(t + 50 + r, (r - 1) % ranks, comm, 0, 64)
                ev.leave(t + 60 + r, recv)
                ev.leave(t + 100, outer)
        return rounds * ranks * per_round


def accelerator(path):
    """GPU only: two CUDA streams of "GPU 0" on host "node-A", each copying data
    "memcpy HtoD" [100, 200] then running the kernel "saxpy" [250, 900] (ns)."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        gpu = d.location_group("GPU 0", system_tree_parent=d.system_tree_node(
            "node-A", class_name="node"), location_group_type=LocationGroupType.ACCELERATOR)
        copy = d.region("memcpy HtoD", paradigm=Paradigm.CUDA,
                        region_role=RegionRole.DATA_TRANSFER)
        kernel = d.region("saxpy", paradigm=Paradigm.CUDA, region_role=RegionRole.FUNCTION)
        for s in range(2):
            ev = w.event_writer(f"stream {s}", group=gpu, type=LocationType.ACCELERATOR_STREAM)
            ev.enter(100, copy)
            ev.leave(200, copy)
            ev.enter(250, kernel)
            ev.leave(900, kernel)


def metrics_only(path):
    """One thread that records only a "temperature" metric, 40 + k at 100 k ns, k < 5."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        group = d.location_group("Process", system_tree_parent=d.system_tree_node("node-A"))
        temp = d.metric_member("temperature", metric_mode=MetricMode.ABSOLUTE_POINT,
                               value_type=Type.DOUBLE, unit="C")
        metric = d.metric_class([temp], recorder_kind=RecorderKind.CPU)
        ev = w.event_writer("Master thread", group=group)
        for k in range(5):
            ev.metric(100 * k, metric, [40.0 + k])
