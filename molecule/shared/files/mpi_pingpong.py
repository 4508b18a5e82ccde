"""Two ranks (one per node) send a buffer back and forth: rank 0 prints the one-way latency and bandwidth."""
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
assert comm.size == 2, "run with 2 ranks"
peer = 1 - comm.rank
hosts = comm.allgather(MPI.Get_processor_name())
for size, rounds in ((8, 200), (1 << 20, 20)):
    buf = bytearray(size)
    comm.Barrier()
    start = time.perf_counter()
    for _round in range(rounds):
        if comm.rank == 0:
            comm.Send([buf, MPI.BYTE], peer)
            comm.Recv([buf, MPI.BYTE], peer)
        else:
            comm.Recv([buf, MPI.BYTE], peer)
            comm.Send([buf, MPI.BYTE], peer)
    one_way = (time.perf_counter() - start) / rounds / 2
    if comm.rank == 0:
        print("pingpong %s <-> %s: %d bytes, latency %.1f us, bandwidth %.1f MB/s"
              % (hosts[0], hosts[1], size, one_way * 1e6, size / one_way / 1e6), flush=True)
