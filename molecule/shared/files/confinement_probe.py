"""Test harness (verify_confinement.yml): what a Slurm job step may touch.

Run as a job step; prints one JSON line: the GPU device files it may open and
those the device cgroup refuses, the CPUs it may run on, its cpuset and
memory cgroups, and the job's GPU environment. With ``--meet N DIR`` it first
waits (up to 60 s) until N jobs have arrived in DIR, so that the jobs that
read their devices are known to run at the same time.
"""
import errno
import glob
import json
import os
import sys
import time


def gpu_devices():
    allowed, denied, other = [], [], {}
    paths = glob.glob("/dev/nvidia[0-9]*")
    for path in sorted(paths, key=lambda p: int(p[len("/dev/nvidia"):])):
        index = int(path[len("/dev/nvidia"):])
        try:
            os.close(os.open(path, os.O_RDWR))
            allowed.append(index)
        except OSError as exc:
            if exc.errno == errno.EPERM:
                denied.append(index)
            elif exc.errno in (errno.ENXIO, errno.ENODEV):
                # No driver behind the simulated device: the cgroup let the open through.
                allowed.append(index)
            else:
                other[index] = errno.errorcode.get(exc.errno, str(exc.errno))
    return allowed, denied, other


def cgroup_path(controller):
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _hid, controllers, path = line.rstrip("\n").split(":", 2)
            if controller in controllers.split(",") or (controller == "" and controllers == ""):
                return path
    return None


def read(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError:
        return None


def meet(count, directory):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, os.environ.get("SLURM_JOB_ID", str(os.getpid()))), "w"):
        pass
    deadline = time.time() + 60
    while time.time() < deadline:
        if len(os.listdir(directory)) >= count:
            return True
        time.sleep(0.2)
    return False


def main(argv):
    met = None
    if len(argv) == 3 and argv[0] == "--meet":
        met = meet(int(argv[1]), argv[2])
    allowed, denied, other = gpu_devices()
    v1 = cgroup_path("cpuset")
    if v1 is not None:
        cpuset = read("/sys/fs/cgroup/cpuset%s/cpuset.cpus" % v1)
        memory_path = cgroup_path("memory")
        limit = read("/sys/fs/cgroup/memory%s/memory.limit_in_bytes" % memory_path)
    else:
        unified = cgroup_path("")
        cpuset = read("/sys/fs/cgroup%s/cpuset.cpus.effective" % unified)
        memory_path = unified
        limit = read("/sys/fs/cgroup%s/memory.max" % unified)
    print(json.dumps({
        "job": os.environ.get("SLURM_JOB_ID"),
        "host": os.uname()[1],
        "met": met,
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "cuda_device_order": os.environ.get("CUDA_DEVICE_ORDER"),
        "step_gpus": os.environ.get("SLURM_STEP_GPUS", os.environ.get("SLURM_JOB_GPUS")),
        "allowed": allowed,
        "denied": denied,
        "other": other,
        "nproc": len(os.sched_getaffinity(0)),
        "cpus_on_node": os.environ.get("SLURM_CPUS_ON_NODE"),
        "cpuset_cgroup": v1 if v1 is not None else unified,
        "cpuset_cpus": cpuset,
        "memory_cgroup": memory_path,
        "memory_limit": limit,
    }, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
