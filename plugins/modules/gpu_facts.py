#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: gpu_facts
short_description: Gather NVIDIA GPU facts and the Slurm gres.conf lines they imply
version_added: 0.1.0
description:
  - Runs C(nvidia-smi -q -x) and C(nvidia-smi topo -m) (and C(nvidia-smi -L) when a GPU has MIG enabled) with
    C(LC_ALL=C) and returns the GPUs of the host as the C(gpuops_gpus) fact, together with the C(gres.conf) lines
    and the slurm.conf C(Gres=) value derived from them.
  - Device files are named by the GPU minor number, which can differ from the nvidia-smi index. C(Cores=) holds Slurm
    logical core indices derived from the topo CPU affinity and the CPU topology in sysfs, widened to whole sockets.
    C(Links=) is given when NVLink exists, ordered by PCI bus id. MIG instances become their own GRES, typed as
    Slurm's NVML AutoDetect types them (for example C(nvidia_a100_3g.39gb)).
  - A host without C(nvidia-smi), without GPUs, or whose driver is not loaded gets C(count=0) and no failure, so the
    module can run on CPU-only controllers too.
  - Independently of C(nvidia-smi), the PCI functions in sysfs tell whether the host has NVIDIA GPUs (C(pci_gpus),
    known before any driver is installed) and NVSwitch chips (C(nvswitches)); together with the NVLink counts of
    C(nvidia-smi topo -m) (C(nvlink_all_to_all)) they say whether the NVSwitch fabric needs
    C(nvidia-fabricmanager) (C(fabric_manager_needed)).
  - Changes nothing on the host.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  nvidia_smi:
    description:
      - Path of the C(nvidia-smi) binary.
      - When not given it is looked up in E(PATH); when it is not found the host has no GPUs (C(count=0)).
    type: path
  timeout:
    description:
      - Seconds each C(nvidia-smi) call may run before it is killed (through C(timeout) from coreutils).
        nvidia-smi hangs on a wedged GPU; a timeout fails the module with the reason.
      - C(0) means no limit.
    type: int
    default: 30
  dev_root:
    description:
      - Where the C(/dev/nvidiaN) device files are looked for (C(device_files)).
    type: path
    default: /dev
  sysfs_root:
    description:
      - Where sysfs is mounted. The CPU topology is read from
        C(<sysfs_root>/devices/system/cpu/cpuN/topology/{physical_package_id,core_id}), the PCI functions from
        C(<sysfs_root>/bus/pci/devices/*/{vendor,class}).
      - A container sees the host's PCI functions there, which is what is wanted.
    type: path
    default: /sys
extends_documentation_fragment:
  - gpuops.cluster.attributes
  - gpuops.cluster.attributes.facts
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
notes:
  - If C(nvidia-smi topo -m) fails, prints nothing usable, or gives no CPU affinity, the facts are still returned,
    without C(Cores=) and C(Links=), and the module warns.
  - MIG capability device minors are read from C(/proc/driver/nvidia-caps/mig-minors). When that file cannot be
    read, MIG lines name only the parent C(/dev/nvidiaN) and the module warns.
  - C(nvidia-smi) failing, timing out or printing output that cannot be parsed fails the module with C(cmd), C(rc)
    and a one-line reason.
  - A missing or unreadable C(<sysfs_root>/bus/pci/devices) gives empty C(pci_gpus) and C(nvswitches), no failure;
    a PCI function whose C(vendor) or C(class) cannot be read is skipped.
"""

EXAMPLES = r"""
- name: Gather GPU facts
  gpuops.cluster.gpu_facts:

- name: Show what gres.conf would hold
  ansible.builtin.debug:
    var: ansible_facts.gpuops_gpus.gres_conf

- name: Use a driver installed outside PATH, with a shorter time limit
  gpuops.cluster.gpu_facts:
    nvidia_smi: /usr/local/nvidia/bin/nvidia-smi
    timeout: 10

- name: Tell GPU hosts and NVSwitch (HGX/DGX) boards apart, also before any driver is installed
  ansible.builtin.debug:
    msg: >-
      {{ ansible_facts.gpuops_gpus.pci_gpus | length }} NVIDIA GPUs on the PCI bus,
      nvidia-fabricmanager needed: {{ ansible_facts.gpuops_gpus.fabric_manager_needed }}

- name: Fail early on a GPU node that reports no GPU
  ansible.builtin.assert:
    that: ansible_facts.gpuops_gpus.count > 0
    fail_msg: "nvidia-smi found no GPU ({{ ansible_facts.gpuops_gpus.status }})"
"""

RETURN = r"""
ansible_facts:
  description: Facts to add to ansible_facts.
  returned: always
  type: complex
  contains:
    gpuops_gpus:
      description: The host's NVIDIA GPUs and the Slurm configuration derived from them.
      returned: always
      type: complex
      contains:
        status:
          description:
            - What nvidia-smi said, one of C(ok), C(no_nvidia_smi), C(no_devices), C(no_driver).
            - C(ok) when nvidia-smi listed the GPUs.
            - C(no_nvidia_smi) when the binary is not installed (no driver yet).
            - C(no_devices) when nvidia-smi found no GPU (C(No devices were found)).
            - "C(no_driver) when it could not talk to the driver, for example the kernel module is not loaded or
              the driver was updated without a reboot (C(Failed to initialize NVML: Driver/library version
              mismatch), exit code 18); C(error) says which."
            - With any status other than C(ok), count is 0 and gpus, gres_conf and slurm_gres are empty, while
              pci_gpus still lists the GPUs on the PCI bus.
          type: str
          sample: ok
        error:
          description:
            - Always present. With C(no_driver), the one line of nvidia-smi's output that says why it cannot talk to
              the driver (the line naming the failure, else its last non-empty line of stdout, then stderr), on one
              line and at most 300 characters; null with every other status.
            - "For example C(Failed to initialize NVML: Driver/library version mismatch)."
            - The Slurm roles stop rather than drop the node's GPUs from slurm.conf when this happens on a node with
              NVIDIA devices.
          type: str
          sample: null
        device_files:
          description: The C(/dev/nvidiaN) character devices of the host (N a number), in numeric order.
          type: list
          elements: str
          sample: ["/dev/nvidia0", "/dev/nvidia1"]
        driver_version:
          description: NVIDIA driver version, null without GPUs.
          type: str
          sample: "460.73.01"
        cuda_version:
          description: Highest CUDA version the driver supports, null without GPUs or when not reported.
          type: str
          sample: "11.2"
        count:
          description: Number of physical GPUs.
          type: int
          sample: 8
        gpus:
          description:
            - One entry per GPU in nvidia-smi order, with C(index), C(minor_number), C(uuid), C(name),
              C(slurm_type), C(memory_mib), C(pci_bus_id), C(numa_node), C(mig_mode) (C(enabled), C(disabled) or
              null), C(mig_devices), C(cpu_affinity) (OS CPU ids as nvidia-smi prints them, or null),
              C(numa_affinity), C(cores) (Slurm core indices, or null) and C(nvlinks) (peer GPU index as a string
              to NVLink count).
            - Each MIG device has C(index), C(gpu_instance_id), C(compute_instance_id), C(multiprocessor_count),
              C(memory_mib), C(profile) and C(uuid) (from nvidia-smi -L), C(slurm_type) and C(files).
            - Health and PCIe link facts are null wherever nvidia-smi prints N/A (as GeForce cards mostly do).
              C(persistence_mode) and C(ecc_mode) (the current ECC mode) are C(enabled), C(disabled) or null.
            - C(ecc_uncorrectable) has C(volatile) (since the driver loaded) and C(aggregate) (lifetime) counts of
              uncorrectable ECC errors, each an int or null; C(double_bit/total) up to Volta, the sum of the
              C(*uncorrectable*) SRAM and DRAM counters from Turing on. N/A counters are not counted as 0.
            - C(retired_pages) (dynamic page retirement, Kepler to Turing) is null or has C(single_bit) and C(double_bit)
              (retired page counts) and C(pending) (a retirement waits for a GPU reset or driver reload).
            - C(remapped_rows) (Ampere and newer datacenter GPUs) is null or has C(correctable) and C(uncorrectable)
              (remapped row counts), C(pending) (a remap waits for a GPU reset) and C(failure) (a remap failed).
            - C(pcie_link) has C(max_gen) and C(max_width) (the most the GPU and the host allow together) and
              C(current_gen) and C(current_width) (the link now; an idle GPU often drops to generation 1), each an int or null.
            - C(fabric) is the GPU's multi-node NVLink fabric (GB200 NVL72 and like systems) from the C(<fabric>) element,
              with C(state) (C(Completed) once the GPU is registered), C(status) (C(Success)), C(clique_id) and C(cluster_uuid)
              (together they name the NVLink domain), each a string or null; null when nvidia-smi prints all of them
              N/A or has no such element (GPUs outside such a system).
          type: list
          elements: dict
          sample:
            - index: 0
              minor_number: 0
              uuid: GPU-76098dc1-d3bc-9a1b-7ea6-f7b48837829e
              name: Tesla V100S-PCIE-32GB
              slurm_type: tesla_v100s-pcie-32gb
              memory_mib: 32510
              pci_bus_id: "00000000:00:0D.0"
              numa_node: null
              mig_mode: null
              mig_devices: []
              cpu_affinity: "0-19,40-59"
              numa_affinity: null
              cores: "0-19"
              nvlinks: {"1": 1, "2": 1, "3": 2, "4": 2}
              persistence_mode: disabled
              ecc_mode: enabled
              ecc_uncorrectable: {"volatile": 0, "aggregate": 0}
              retired_pages: {"single_bit": 0, "double_bit": 0, "pending": false}
              remapped_rows: null
              pcie_link: {"max_gen": 3, "current_gen": 3, "max_width": 16, "current_width": 16}
              fabric: null
        gres_conf:
          description: gres.conf lines for this node, in PCI bus id order.
          type: list
          elements: str
          sample:
            - Name=gpu Type=nvidia_h100_80gb_hbm3 File=/dev/nvidia0 Cores=0-47 Links=-1,18,18,18,18,18,18,18
            - Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap30,/dev/nvidia-caps/nvidia-cap31
            - Name=gpu Type=tesla_t4 File=/dev/nvidia[0-3] Cores=0-23
        slurm_gres:
          description: The node's slurm.conf C(Gres=) value, one C(gpu:<type>:<count>) per type sorted by type; empty without GPUs.
          type: str
          sample: gpu:nvidia_h100_80gb_hbm3:8
        pci_gpus:
          description:
            - PCI addresses, as sysfs names them, of the NVIDIA GPUs on the PCI bus (vendor C(0x10de), display controller
              class C(0x03xx), that is C(0x0302) 3D controller or C(0x0300) VGA), sorted.
            - Read from C(<sysfs_root>/bus/pci/devices), so it is filled whatever C(status) is, also before any driver or
              C(nvidia-smi) is installed. Other functions of NVIDIA boards (HD audio, USB) are not listed.
          type: list
          elements: str
          sample: ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0"]
        nvswitches:
          description:
            - PCI addresses of the NVSwitch chips (vendor C(0x10de), class C(0x0680xx), bridge "other"), sorted; how they
              appear on HGX/DGX A100 (device C(0x1af1)) and H100 (device C(0x22a3)) boards. Empty on boards without them.
          type: list
          elements: str
          sample: ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]
        nvlink_all_to_all:
          description:
            - True when C(nvidia-smi topo -m) shows at least 2 GPUs, every pair joined by the same number of NVLinks
              c, and c times (number of GPUs - 1) is more than 18.
            - Behind NVSwitch every GPU reports all of its links towards every peer (C(NV12) on 8x A100, C(NV18) on
              8x H100), more links in total than any GPU has (18 on Hopper and Blackwell). A direct mesh never
              passes (4x A100 HGX with C(NV4), 4x H100 HGX with C(NV6), the DGX-1 hybrid cube mesh with C(NV1)/C(NV2),
              2-GPU NVLink bridges).
            - False when the topology is unknown (no C(nvidia-smi), topo failing, or its GPU count differing from
              C(nvidia-smi -q -x)).
          type: bool
          sample: true
        fabric_manager_needed:
          description:
            - True when C(nvswitches) is not empty or C(nvlink_all_to_all) is true; then the GPUs sit on an NVSwitch
              fabric that C(nvidia-fabricmanager) must set up before CUDA can use them.
          type: bool
          sample: true
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_collect import ARGUMENT_SPEC, collect


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.exit_json(changed=False, ansible_facts={"gpuops_gpus": collect(module, module.params)})


if __name__ == "__main__":
    main()
