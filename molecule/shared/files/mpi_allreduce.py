"""Each rank prints its rank, the world size, its host and the allreduce (sum) of all ranks."""
from mpi4py import MPI

comm = MPI.COMM_WORLD
print("rank %d of %d on %s: allreduce %d" % (comm.rank, comm.size, MPI.Get_processor_name(),
                                             comm.allreduce(comm.rank, op=MPI.SUM)), flush=True)
