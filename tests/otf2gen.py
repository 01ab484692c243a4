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


def two_ranks(w):
    """Processes P0 and P1 of host "h" in the archive writer `w`, a thread "t" each:
    (definitions, P0's event writer, P1's, their MPI_COMM_WORLD)."""
    d = w.definitions
    groups = [d.location_group(f"P{i}", system_tree_parent=d.system_tree_node("h"))
              for i in range(2)]
    locs = [d.location("t", group=g) for g in groups]
    e0, e1 = (w.event_writer_from_location(loc) for loc in locs)
    return d, e0, e1, _world(d, locs)


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


def scorep_collectives(path):
    """Collectives as Score-P records them, inside their MPI call's region, and as other
    writers may (1 tick = 1 ns). Both ranks: main [0, 1000], MPI_Barrier holding
    BARRIER [t, 290] and leaving at 300 (t = 100 on P0; on P1 200, the collective's
    begin written before the Enter at that time), MPI_Comm_dup [400, 500] holding
    CREATE_HANDLE [410, 490]. P1 then: BARRIER [600, 700] inside main alone, and
    BARRIER [1100, 1200] outside any region."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d, e0, e1, comm = two_ranks(w)
        main = d.region("main", paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
        barrier = d.region("MPI_Barrier", paradigm=Paradigm.MPI, region_role=RegionRole.BARRIER)
        dup = d.region("MPI_Comm_dup", paradigm=Paradigm.MPI, region_role=RegionRole.COLL_OTHER)

        def collective(ev, t0, t1, op=CollectiveOp.BARRIER):
            ev.mpi_collective_begin(t0)
            ev.mpi_collective_end(t1, op, comm, 0, 0, 0)
        for ev, t in ((e0, 100), (e1, 200)):
            ev.enter(0, main)
            if ev is e1:
                ev.mpi_collective_begin(t)
            ev.enter(t, barrier)
            if ev is e0:
                ev.mpi_collective_begin(t)
            ev.mpi_collective_end(290, CollectiveOp.BARRIER, comm, 0, 0, 0)
            ev.leave(300, barrier)
            ev.enter(400, dup)
            collective(ev, 410, 490, CollectiveOp.CREATE_HANDLE)
            ev.leave(500, dup)
        collective(e1, 600, 700)
        e1.leave(1000, main)
        e0.leave(1000, main)
        collective(e1, 1100, 1200)


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
                ev.leave(t + 100 + ranks, outer)
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


def openmp_io_rma(path):
    """Two ranks on host "node-A", 1 GHz. Rank 0 has threads "T0" and "T1" (one
    OpenMP team "team A"); rank 1 a thread "R1". In ns:
    - T0: OmpFork of 2 threads at 100, OmpJoin at 210; both threads ThreadTeamBegin
      at 110 and ThreadTeamEnd at 200; T1 creates task (team A, thread 1, #1) at 120,
      T0 switches to it at 130 and completes it at 180; T1 creates OpenMP tasks 42 and
      43 at 220, runs 42 from 230, 43 from 240, 42 again from 250, completes 42 at
      260 and 43 at 270 (not running since 250);
    - T0: a write of 4096 bytes to "out.dat" (handle 0) issued at 300 (matching id 7)
      done at 350 with 4000 bytes, and within it one of 8 bytes at 320 (id 9) done at
      340 with 8; a read issued at 360 (id 8) never completed;
    - a window over both ranks: T0 puts 64 bytes to rank 1 at 400 (id 3), completed
      at 450; R1 gets 32 bytes from rank 0 at 500 (id 5), never completed;
    - T0: a calling-context sample in region "compute" at 600."""
    from otf2.enums import IoOperationFlag, IoOperationMode
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        host = d.system_tree_node("node-A", class_name="node")
        g0, g1 = (d.location_group(f"MPI Rank {r}", system_tree_parent=host) for r in (0, 1))
        locs = [d.location(n, group=g) for n, g in (("T0", g0), ("T1", g0), ("R1", g1))]
        t0, t1, r1 = (w.event_writer_from_location(loc) for loc in locs)
        world = _world(d, [locs[0], locs[2]])
        team = d.comm("team A", group=d.group(
            "team", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.OPENMP,
            members=locs[:2]))
        t0.omp_fork(100, 2)
        for ev in (t0, t1):
            ev.thread_team_begin(110, team)
        t1.thread_task_create(120, team, 1, 1)
        t0.thread_task_switch(130, team, 1, 1)
        t0.thread_task_complete(180, team, 1, 1)
        for ev in (t0, t1):
            ev.thread_team_end(200, team)
        t0.omp_join(210)
        t1.omp_task_create(220, 42)
        t1.omp_task_create(220, 43)
        for at, task in ((230, 42), (240, 43), (250, 42)):
            t1.omp_task_switch(at, task)
        t1.omp_task_complete(260, 42)
        t1.omp_task_complete(270, 43)
        posix = d.io_paradigm("POSIX", "POSIX I/O", otf2.enums.IoParadigmClass.SERIAL,
                              otf2.enums.IoParadigmFlag.NONE)
        handle = d.io_handle("out.dat", d.io_regular_file("out.dat", scope=host), posix)
        t0.io_operation_begin(300, handle, IoOperationMode.WRITE, IoOperationFlag.NONE, 4096, 7)
        t0.io_operation_begin(320, handle, IoOperationMode.WRITE, IoOperationFlag.NONE, 8, 9)
        t0.io_operation_complete(340, handle, 8, 9)
        t0.io_operation_complete(350, handle, 4000, 7)
        t0.io_operation_begin(360, handle, IoOperationMode.READ, IoOperationFlag.NONE, 10, 8)
        win = d.rma_win("window", world)
        t0.rma_put(400, win, 1, 64, 3)
        t0.rma_op_complete_blocking(450, win, 3)
        r1.rma_get(500, win, 0, 32, 5)
        compute = d.region("compute", paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
        t0.calling_context_sample(600, d.calling_context(compute, parent=None), 1,
                                  d.interrupt_generator("timer", period=1000))


def openmp_big(path, events, n_threads=8):
    """About `events` events of an OpenMP run (for the reading benchmark): one
    process whose threads, in each parallel region, begin the team, run a task
    between two lock records (counted, not drawn) inside a region, and end the
    team; the master forks and joins."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        group = d.location_group("Process", system_tree_parent=d.system_tree_node("host"))
        locs = [d.location(f"OpenMP thread {t}", group=group) for t in range(n_threads)]
        evs = [w.event_writer_from_location(loc) for loc in locs]
        team = d.comm("team", group=d.group("team", group_type=GroupType.COMM_LOCATIONS,
                                            paradigm=Paradigm.OPENMP, members=locs))
        body = d.region("!$omp parallel", paradigm=Paradigm.OPENMP,
                        region_role=RegionRole.PARALLEL)
        per_round = 8  # events per thread per round (and 2 more on the master)
        rounds = max(1, events // (n_threads * per_round + 2))
        for k in range(rounds):
            t = 1000 * k
            evs[0].omp_fork(t, n_threads)
            for i, ev in enumerate(evs):
                ev.thread_team_begin(t + 10, team)
                ev.enter(t + 20, body)
                ev.thread_task_switch(t + 30, team, i, k)
                ev.omp_acquire_lock(t + 40, 1, k)
                ev.omp_release_lock(t + 50, 1, k)
                ev.thread_task_complete(t + 60, team, i, k)
                ev.leave(t + 70, body)
                ev.thread_team_end(t + 80, team)
            evs[0].omp_join(t + 90)
        return rounds * (n_threads * per_round + 2)


def apex_tasks(path):
    """Tasks as APEX writes HPX's (1 GHz, ns): attributes `GUID` and `Parent GUID`
    (uint64) on every Enter and Leave. Process "rank 0" on "node0" has threads "worker
    0" and "worker 1", "rank 1" on "node1" a thread "worker 2":
    - worker 0: task 1 "hpx_main" (parent 0) [100, 900]; within it task 3 "fib"
      (parent 1) [300, 350], which resumes on worker 1 [400, 450];
    - worker 1: task 2 "fib" (parent 1) [150, 250], task 4 "fib" (parent 2) [260,
      280], task 5 "orphan" (parent 99) [500, 520];
    - worker 2: task 6 "remote" (parent 1) [600, 700], its Enter also carrying
      `depth` (int32 -1), `load` (double 0.25), `where` (the location "worker 0"),
      `note` (string "far"); worker 0 sends it 8 bytes (tag 3) at 550, the send
      carrying `note` "halo", received at 590.
    Dependencies in the trace: 1->2, 1->3, 2->4, 1->6; tasks 1 and 5 have no parent
    in it."""
    from otf2.enums import Type as T
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        groups = [d.location_group(f"rank {r}", system_tree_parent=d.system_tree_node(
            f"node{r}", class_name="node")) for r in (0, 1)]
        locs = [d.location(f"worker {i}", group=groups[i // 2]) for i in range(3)]
        w0, w1, w2 = (w.event_writer_from_location(loc) for loc in locs)
        comm = _world(d, [locs[0], locs[2]])
        guid = d.attribute("GUID", "task id", T.UINT64)
        parent = d.attribute("Parent GUID", "parent task id", T.UINT64)
        extra = {d.attribute("depth", "", T.INT32): -1, d.attribute("load", "", T.DOUBLE): 0.25,
                 d.attribute("where", "", T.LOCATION): locs[0]}
        note = d.attribute("note", "", T.STRING)
        reg = {n: d.region(n, paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
               for n in ("hpx_main", "fib", "orphan", "remote", "MPI_Send", "MPI_Recv")}

        def task(ev, name, t0, t1, g, p, more=None):
            ev.enter(t0, reg[name], {guid: g, parent: p, **(more or {})})
            ev.leave(t1, reg[name], {guid: g, parent: p})
        w0.enter(100, reg["hpx_main"], {guid: 1, parent: 0})
        task(w0, "fib", 300, 350, 3, 1)
        w0.enter(550, reg["MPI_Send"])
        w0.mpi_send(550, 1, comm, 3, 8, attributes={note: "halo"})
        w0.leave(560, reg["MPI_Send"])
        w0.leave(900, reg["hpx_main"], {guid: 1, parent: 0})
        task(w1, "fib", 150, 250, 2, 1)
        task(w1, "fib", 260, 280, 4, 2)
        task(w1, "fib", 400, 450, 3, 1)
        task(w1, "orphan", 500, 520, 5, 99)
        w2.enter(580, reg["MPI_Recv"])
        w2.mpi_recv(590, 0, comm, 3, 8)
        w2.leave(595, reg["MPI_Recv"])
        task(w2, "remote", 600, 700, 6, 1, {**extra, note: "far"})


def fields_met_late(path):
    """Fields that a later location meets first in another table (1 GHz, ns): process
    P0's thread t0 forks and joins a team [5, 60] (events' field `threads`); its
    thread t1 creates, switches to and completes task 42 [10, 30] (the states' and
    events' field `task`); t0 sends P1's thread t2 8 bytes (tag 0) at 10, received
    at 20 carrying attribute R = 5, and t2 sends back at 30 with attribute S = 6,
    received at 40 (the links' fields: R in the message of t0's batch, S in t2's)."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        host = d.system_tree_node("h")
        groups = [d.location_group(f"P{i}", system_tree_parent=host) for i in range(2)]
        t0, t1 = (d.location(f"t{i}", group=groups[0]) for i in range(2))
        t2 = d.location("t2", group=groups[1])
        comm = _world(d, [t0, t2])
        r, s = (d.attribute(n, "", Type.INT32) for n in "RS")
        e0, e1, e2 = (w.event_writer_from_location(loc) for loc in (t0, t1, t2))
        e0.omp_fork(5, 2)
        e0.mpi_send(10, 1, comm, 0, 8)
        e2.mpi_recv(20, 0, comm, 0, 8, attributes={r: 5})
        e2.mpi_send(30, 0, comm, 0, 8, attributes={s: 6})
        e0.mpi_recv(40, 1, comm, 0, 8)
        e0.omp_join(60)
        e1.omp_task_create(10, 42)
        e1.omp_task_switch(20, 42)
        e1.omp_task_complete(30, 42)
