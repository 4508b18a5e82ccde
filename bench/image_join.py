# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Image-join bench (`make image-join`, issue 48): N nodes booted from a node image joining a cluster at once.

For each N (IMAGE_JOIN_NODES, default 16): a controller converged by playbooks/slurm.yml whose slurm.conf
names N image nodes by a hardware profile (slurm_image_nodes, each with its address), a build host on which
playbooks/node_image.yml builds the image, committed with docker; then N containers booted from it at once
(tests/lab/node_image/boot-node.sh: the overlay, two simulated RTX 2070 each), and the time from the first
`docker run` to every node idle in Slurm (sinfo on the controller, read every second), with each node's join
result. Ansible never connects to the image nodes: they are in no inventory.

The figure to compare is the fleet bench's first converge of site.yml for as many nodes (bench/fleet.py,
bench/reference/fleet-*.json): what the same nodes cost when Ansible converges each of them.

The cluster's compute nodes are all image nodes: the inventory's compute group is empty, and slurm.yml
converges the controller alone. The build host starts from the CUDA layer image (gpuops-cuda:bookworm: the
toolkit present) with the wheelhouse of `make wheelhouse` mounted for the PyTorch environment, as day2's.

JSON goes to bench/results/image-join-<UTC time>.json, and a table to stdout. Needs the images of
tools/build-images.sh (gpuops-pkgs:bookworm, gpuops-cuda:bookworm), the wheelhouse and the apt cache (tools/apt-cache.sh). Each container's systemd
takes inotify instances: past about 30 containers raise the host's fs.inotify.max_user_instances (128 by
default; with 35 containers some nodes' systemd stopped at "Too many open files").
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NET, SUBNET = "gpuops-imgbench", "172.31.229"
CTL, BUILD = "ib-ctl", "ib-build"
IMAGE = "gpuops-node-bench:1"
CAPTURE = ROOT / "tests/fixtures/nvidia-smi-xml/telegraf_dual_2070-v13.xml"
PROFILE = {"cpus": 2, "sockets": 1, "cores_per_socket": 2, "threads_per_core": 1, "real_memory": 1024,
           "gres": [{"name": "gpu", "type": "nvidia_geforce_rtx_2070", "count": 2, "file": "/dev/nvidia[0-1]"}]}
SYSTEMD = ["--cap-add", "SYS_ADMIN", "--security-opt", "seccomp=unconfined", "--security-opt",
           "apparmor=unconfined", "--tmpfs", "/run", "--tmpfs", "/run/lock", "--tmpfs", "/sys/fs/cgroup",
           "--cgroupns", "private"]


def sh(*argv, check=True, **kwargs):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)
    if check and proc.returncode != 0:
        raise RuntimeError("%s: rc %d: %s\n%s" % (
            " ".join(argv[:4]), proc.returncode, proc.stdout.strip()[-2500:], proc.stderr.strip()[-500:]))
    return proc


def names(count):
    return ["ib-gpu%03d" % index for index in range(1, count + 1)]


def inventory(path, count):
    group_vars = {
        "ansible_connection": "community.docker.docker_api", "ansible_python_interpreter": "/usr/bin/python3",
        "package_proxy_url": "http://%s.1:3142" % SUBNET, "slurm_cluster_name": "bench",
        "slurm_accounting": False,
        "slurm_partitions": [{"name": "gpu", "nodes": "ALL", "default": True, "options": {"State": "UP"}}],
        "slurm_node_profiles": {"rtx2070x2": PROFILE}, "node_image_profile": "rtx2070x2",
        "slurm_image_nodes": [{"names": name, "profile": "rtx2070x2", "addr": "%s.%d" % (SUBNET, 100 + index)}
                              for index, name in enumerate(names(count), 1)],
        "pytorch_env_find_links": ["/opt/wheelhouse"], "pytorch_env_offline": True,
    }
    data = {"all": {"vars": group_vars, "children": {"slurm_controller": {"hosts": {CTL: None}},
                                                     "node_image": {"hosts": {BUILD: None}},
                                                     # No converged compute node: every node is an image node.
                                                     "slurm_compute": {"hosts": {}}}}}
    path.write_text(json.dumps(data))


def playbook(inv, *books, extra=()):
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"))
    start = time.time()
    proc = sh("ansible-playbook", "-i", str(inv), *[str(ROOT / "playbooks" / book) for book in books], *extra,
              cwd=str(ROOT), env=env, check=False)
    if proc.returncode != 0:
        failed = [line for line in proc.stdout.splitlines() if "fatal:" in line or "FAILED!" in line]
        raise RuntimeError("%s: rc %d: %s" % (" ".join(books), proc.returncode, "\n".join(failed)[-3000:]))
    return round(time.time() - start, 1)


def cleanup(count):
    sh("docker", "rm", "-f", CTL, BUILD, *names(count), check=False)
    sh("docker", "network", "rm", NET, check=False)
    sh("docker", "rmi", IMAGE, check=False)


def run(count, work):
    cleanup(count)
    sh("docker", "network", "create", "--subnet", "%s.0/24" % SUBNET, "--gateway", "%s.1" % SUBNET, NET)
    sh("docker", "run", "-d", "--name", CTL, "--hostname", CTL, "--network", NET, *SYSTEMD,
       "gpuops-pkgs:bookworm", "/sbin/init")
    sh("docker", "run", "-d", "--name", BUILD, "--hostname", BUILD, "--network", NET, *SYSTEMD,
       "-v", "%s:/opt/wheelhouse:ro" % (ROOT / ".build" / "wheelhouse"), "gpuops-cuda:bookworm", "/sbin/init")
    time.sleep(3)
    inv = work / "inventory.json"
    inventory(inv, count)
    result = {"nodes": count, "controller_converge_s": playbook(inv, "package_proxy.yml", "slurm.yml")}
    result["image_build_s"] = playbook(inv, "node_image.yml")
    sh("docker", "commit", "--change", 'CMD ["/sbin/init"]', BUILD, IMAGE)
    key = sh("docker", "exec", CTL, "base64", "-w0", "/etc/munge/munge.key").stdout.strip()
    for index, name in enumerate(names(count), 1):
        base = work / name
        (base / "overlay").mkdir(parents=True)
        (base / "sim").mkdir()
        (base / "overlay" / "join.conf").write_text("conf_server = %s\ncluster_name = bench\n" % CTL)
        sh("sh", "-c", 'umask 077 && base64 -d > "$1"', "sh", str(base / "overlay" / "munge.key"), input=key)
        (base / "sim" / "nvidia-smi-q-x.xml").write_bytes(CAPTURE.read_bytes())
        (base / "sim" / "gpu-count").write_text("2\n")
    boot = str(ROOT / "tests/lab/node_image/boot-node.sh")
    hostlist = "ib-gpu[001-%03d]" % count
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda item: sh(boot, item[1], IMAGE, NET, str(work / item[1]), "%s.%d" % (SUBNET, 100 + item[0])),
                      enumerate(names(count), 1)))
    result["docker_run_s"] = round(time.time() - start, 1)
    idle = 0
    while time.time() - start < 600:
        out = sh("docker", "exec", CTL, "sinfo", "--noheader", "--Node", "--nodes=" + hostlist, "--format=%N %t",
                 check=False).stdout
        idle = sum(1 for line in out.splitlines() if line.split()[-1:] == ["idle"])
        if idle == count:
            break
        time.sleep(1)
    result["all_idle_s"] = round(time.time() - start, 1) if idle == count else None
    result["idle"] = idle
    joins = [json.loads(sh("docker", "exec", name, "cat", "/run/gpuops/node-join/result.json", check=False).stdout
                        or "{}") for name in names(count)]
    result["checks_passed"] = sum(1 for item in joins if item.get("check") == "passed")
    result["image_mib"] = round(int(sh("docker", "image", "inspect", "--format", "{{.Size}}", IMAGE).stdout) / 2**20, 1)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+",
                        default=[int(n) for n in os.environ.get("IMAGE_JOIN_NODES", "16").split()])
    parser.add_argument("--keep", action="store_true", help="leave the last cluster running")
    args = parser.parse_args()
    results = []
    for count in args.nodes:
        with tempfile.TemporaryDirectory(prefix="image-join-") as tmp:
            try:
                results.append(run(count, Path(tmp)))
            finally:
                if not args.keep or count != args.nodes[-1]:
                    cleanup(count)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = ROOT / "bench" / "results" / ("image-join-%s.json" % stamp)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"time": stamp, "runs": results}, indent=1) + "\n")
    print("| nodes | controller converge | image build | docker run (all) | docker run to all idle | checks passed |")
    print("|---:|---:|---:|---:|---:|---:|")
    for item in results:
        print("| %d | %s s | %s s | %s s | %s s | %d |" % (
            item["nodes"], item["controller_converge_s"], item["image_build_s"], item["docker_run_s"],
            item["all_idle_s"], item["checks_passed"]))
    print("results: %s" % out)
    return 0 if all(item["all_idle_s"] is not None for item in results) else 1


if __name__ == "__main__":
    sys.exit(main())
