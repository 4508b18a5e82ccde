#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write an inventory of 1 controller + N compute nodes and their cached facts, for bench/scale.sh.

    scale_inventory.py DIR N [--mixed] [--mem-spread PCT] [--collections PATH] [--forks F]

DIR gets inventory.ini (every host with the local connection), ansible.cfg
(jsonfile fact cache in DIR/facts, gathering explicit, collections_path
PATH, the profile_tasks callback) and the fact cache, written through
Ansible's own cache plugin so the format is the installed ansible-core's.
Compute nodes carry the hardware facts the Slurm roles read and gpuops_gpus
built by the gpu_facts parser of the collection under test (PATH) from a
real capture (8x Tesla V100S), with the keys the module adds (status,
error, device_files). Identical nodes by default; --mixed gives every 64th
node half the memory and every 128th node no GPU, so slurm.conf has several
NodeName lines. --mem-spread PCT takes up to PCT percent off each compute
node's MemTotal, by a fraction fixed by its name (the same for a name on
every run), as identical servers differ by their firmware and kernel
reservations.
"""

import argparse
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(HERE)
CAPTURE = os.path.join("tests", "fixtures", "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")


def gpu_facts(collections):
    """gpuops_gpus as the collection's gpu_facts module reports it for the captured 8x V100S."""
    sys.path.insert(0, collections)
    from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import build_facts, parse_smi_xml

    capture = os.path.join(collections, "ansible_collections", "gpuops", "cluster", CAPTURE)
    if not os.path.exists(capture):
        capture = os.path.join(CHECKOUT, CAPTURE)
    with open(capture) as handle:
        facts, _warnings = build_facts(parse_smi_xml(handle.read()))
    facts.update(status="ok", error=None, device_files=["/dev/nvidia%d" % i for i in range(facts["count"])])
    return facts


def spread_memory(name, memtotal_mb, spread_pct):
    """memtotal_mb less up to spread_pct percent of it, by a fraction in [0, 1] the name's hash fixes."""
    fraction = int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16) / float(0xFFFFFFFF)
    return memtotal_mb - int(memtotal_mb * spread_pct / 100.0 * fraction)


def host_facts(name, memtotal_mb, gpus):
    """The cached facts of one host: what setup gathers that the Slurm roles read, and gpuops_gpus."""
    facts = {
        "ansible_hostname": name, "ansible_nodename": name, "ansible_fqdn": name + ".scale.test",
        "ansible_distribution": "Debian", "ansible_distribution_major_version": "12",
        "ansible_distribution_version": "12.8", "ansible_distribution_release": "bookworm",
        "ansible_os_family": "Debian", "ansible_pkg_mgr": "apt", "ansible_system": "Linux",
        "ansible_service_mgr": "systemd", "ansible_architecture": "x86_64", "ansible_memtotal_mb": memtotal_mb,
        "ansible_processor_vcpus": 128, "ansible_processor_count": 2, "ansible_processor_cores": 32,
        "ansible_processor_threads_per_core": 2, "ansible_processor_nproc": 128,
        "ansible_virtualization_type": "NA", "ansible_virtualization_role": "NA",
    }
    if gpus is not None:
        facts["gpuops_gpus"] = gpus
    return facts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("nodes", type=int)
    parser.add_argument("--mixed", action="store_true", help="every 64th node half the memory, every 128th no GPU")
    parser.add_argument("--mem-spread", type=float, default=0.0, metavar="PCT",
                        help="take up to PCT percent off each compute node's MemTotal, fixed per name (default 0)")
    parser.add_argument("--collections", default=os.path.join(CHECKOUT, ".build", "collections"),
                        help="collections path holding ansible_collections/gpuops/cluster (the code under test)")
    parser.add_argument("--forks", type=int, default=8)
    args = parser.parse_args()
    if not 0 <= args.mem_spread < 100:
        parser.error("--mem-spread is a percentage from 0 to below 100, not %s" % args.mem_spread)
    collections = os.path.abspath(args.collections)
    if not os.path.isdir(os.path.join(collections, "ansible_collections", "gpuops", "cluster")):
        parser.error("no ansible_collections/gpuops/cluster under %s (make venv makes .build/collections)" % collections)
    from ansible.plugins.loader import init_plugin_loader, cache_loader

    directory = os.path.abspath(args.directory)
    os.makedirs(os.path.join(directory, "facts"), exist_ok=True)
    init_plugin_loader()
    cache = cache_loader.get("ansible.builtin.jsonfile", _uri=os.path.join(directory, "facts"))
    gpus = gpu_facts(collections)
    nodes = ["gpu%04d" % number for number in range(1, args.nodes + 1)]
    cache.set("ctl", host_facts("ctl", 64000, None))
    for position, name in enumerate(nodes):
        memory, node_gpus = 1031000, gpus
        if args.mixed and position % 64 == 63:
            memory = 515000
        if args.mixed and position % 128 == 127:
            node_gpus = dict(gpus, count=0, gpus=[], gres_conf=[], slurm_gres="", device_files=[])
        cache.set(name, host_facts(name, spread_memory(name, memory, args.mem_spread), node_gpus))
    with open(os.path.join(directory, "inventory.ini"), "w") as handle:
        handle.write("[slurm_controller]\nctl\n\n[slurm_compute]\n%s\n\n[all:vars]\nansible_connection=local\n"
                     "ansible_python_interpreter=%s\n" % ("\n".join(nodes), sys.executable))
    with open(os.path.join(directory, "ansible.cfg"), "w") as handle:
        handle.write("[defaults]\ngathering = explicit\nfact_caching = jsonfile\nfact_caching_connection = %s\n"
                     "fact_caching_timeout = 0\nforks = %d\nstrategy = linear\nhost_key_checking = false\n"
                     "retry_files_enabled = false\ncollections_path = %s\n"
                     "callbacks_enabled = ansible.posix.profile_tasks\n\n"
                     "[callback_profile_tasks]\ntask_output_limit = all\n"
                     % (os.path.join(directory, "facts"), args.forks, collections))


if __name__ == "__main__":
    main()
