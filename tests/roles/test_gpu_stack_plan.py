"""The nvidia_driver and cuda roles pick the right repository, key and packages per OS.

Each case passes an OS's facts as extra vars (ansible_facts) and runs
tests/roles/plan/render.yml against a local-connection host: the roles'
plan.yml (and the driver preflight) compute what would be installed from
where, and the playbook writes it to a JSON file. NVIDIA's repository can't be
reached here, so this is how the Ubuntu and RHEL paths are checked.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
PLAYBOOK = REPO / "tests" / "roles" / "plan" / "render.yml"
NVIDIA = "https://developer.download.nvidia.com/compute/cuda/repos"

OS_FACTS = {
    "debian12": ("Debian", "Debian", "12", "12.12", "bookworm", "x86_64"),
    "debian13": ("Debian", "Debian", "13", "13.2", "trixie", "x86_64"),
    "ubuntu2204": ("Debian", "Ubuntu", "22", "22.04", "jammy", "x86_64"),
    "ubuntu2404arm": ("Debian", "Ubuntu", "24", "24.04", "noble", "aarch64"),
    "rocky9": ("RedHat", "Rocky", "9", "9.5", "Blue Onyx", "x86_64"),
    "rhel8": ("RedHat", "RedHat", "8", "8.10", "Ootpa", "x86_64"),
}


def _facts(os_name, nvswitch=False):
    family, dist, major, version, release, arch = OS_FACTS[os_name]
    return {
        "os_family": family, "distribution": dist, "distribution_major_version": major,
        "distribution_version": version, "distribution_release": release, "architecture": arch,
        "gpuops_gpus": {"status": "ok", "count": 8, "pci_gpus": ["0000:18:00.0"], "nvswitches": ["0000:05:00.0"] if nvswitch else [],
                        "nvlink_all_to_all": nvswitch, "fabric_manager_needed": nvswitch},
    }


def render(tmp_path, os_name, host_vars=None, nvswitch=False):
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"ansible_facts": _facts(os_name, nvswitch)}))
    out = tmp_path / "out"
    out.mkdir()
    inventory = {"all": {"hosts": {"node": dict({"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                                                "render_out": str(out)}, **(host_vars or {}))}}}
    inv = tmp_path / "hosts.yml"
    inv.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    bin_dir = pathlib.Path(sys.executable).parent
    proc = subprocess.run([str(bin_dir / "ansible-playbook"), "-i", str(inv), "-e", "@" + str(facts), str(PLAYBOOK)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    result = out / "node.json"
    plan = json.loads(result.read_text()) if result.exists() else None
    return proc.returncode, proc.stdout + proc.stderr, plan


def _ok(tmp_path, os_name, host_vars=None, nvswitch=False):
    rc, out, plan = render(tmp_path, os_name, host_vars, nvswitch)
    assert rc == 0 and plan, out
    return plan["driver"], plan["cuda"]


def test_debian12_uses_the_non_free_archive(tmp_path):
    driver, cuda = _ok(tmp_path, "debian12")
    assert driver["source"] == "distro" and driver["repo"] == {}
    assert driver["branch"] == "535" and driver["version_pattern"] == "535.*"
    assert driver["versioned"] == ["nvidia-kernel-dkms", "nvidia-smi", "libcuda1", "libnvidia-ml1", "firmware-nvidia-gsp"]
    assert driver["unversioned"] == ["nvidia-persistenced"]
    assert driver["hold"] == driver["versioned"] + ["nvidia-persistenced"]
    assert driver["services"] == ["nvidia-persistenced"] and not driver["fabricmanager"]
    assert cuda["source"] == "distro" and cuda["default"] == "11.8"
    assert cuda["toolkits"] == [{"version": "11.8", "package": "nvidia-cuda-toolkit", "pattern": "11.8.*", "regex": "^([0-9]+:)?11\\.8[.]",
                                 "prefix": "/usr/lib/nvidia-cuda-toolkit", "priority": 1108}]


def test_debian12_exact_version_and_open_modules(tmp_path):
    driver, dummy = _ok(tmp_path, "debian12", {"nvidia_driver_version": "535.261.03", "nvidia_driver_kernel_modules": "open"})
    assert driver["version_pattern"] == "535.261.03-*"
    assert driver["version_regex"] == "^([0-9]+:)?535\\.261\\.03-"
    assert driver["versioned"][0] == "nvidia-open-kernel-dkms"


def test_debian13_has_branch_550_and_cuda_12_4(tmp_path):
    driver, cuda = _ok(tmp_path, "debian13")
    assert driver["branch"] == "550" and cuda["default"] == "12.4"


def test_ubuntu2204_uses_nvidias_repository(tmp_path):
    driver, cuda = _ok(tmp_path, "ubuntu2204")
    assert driver["source"] == "nvidia" and driver["pkg_manager"] == "apt"
    repo = NVIDIA + "/ubuntu2204/x86_64"
    assert driver["repo"] == {
        "url": repo, "key_url": repo + "/3bf863cc.pub", "apt_key_file": "/etc/apt/keyrings/gpuops-nvidia-cuda.asc",
        "apt_source": "deb [signed-by=/etc/apt/keyrings/gpuops-nvidia-cuda.asc] " + repo + "/ /",
        "apt_pin_origin": "developer.download.nvidia.com", "dnf_name": "cuda-ubuntu2204-x86_64",
    }
    assert driver["branch"] == "570" and driver["versioned"] == ["cuda-drivers-570"]
    assert "nvidia-driver-570" in driver["hold"] and "libnvidia-compute-570" in driver["hold"]
    assert cuda["toolkits"][0]["package"] == "cuda-toolkit-12-8" and cuda["toolkits"][0]["prefix"] == "/usr/local/cuda-12.8"


def test_ubuntu2404_arm_open_modules_mirror_and_fabric_manager(tmp_path):
    settings = {"nvidia_driver_kernel_modules": "open", "nvidia_driver_branch": "575",
                "nvidia_driver_repo_base_url": "http://mirror.lab/nvidia/"}
    driver, dummy = _ok(tmp_path, "ubuntu2404arm", settings, nvswitch=True)
    assert driver["repo"]["url"] == "http://mirror.lab/nvidia/ubuntu2404/sbsa"
    assert driver["repo"]["key_url"] == "http://mirror.lab/nvidia/ubuntu2404/sbsa/3bf863cc.pub"
    assert driver["repo"]["apt_pin_origin"] == "mirror.lab"
    assert driver["versioned"] == ["nvidia-open-575"]
    assert "nvidia-driver-575-open" in driver["hold"]
    assert driver["fabricmanager_packages"] == ["nvidia-fabricmanager-575"]
    assert driver["services"] == ["nvidia-persistenced", "nvidia-fabricmanager"]


def test_rocky9_uses_module_streams_and_the_rhel9_repository(tmp_path):
    driver, cuda = _ok(tmp_path, "rocky9", nvswitch=True)
    repo = NVIDIA + "/rhel9/x86_64"
    assert driver["pkg_manager"] == "dnf"
    assert driver["repo"]["url"] == repo and driver["repo"]["key_url"] == repo + "/D42D0685.pub"
    assert driver["repo"]["dnf_name"] == "cuda-rhel9-x86_64"
    assert driver["versioned"] == ["@nvidia-driver:570-dkms"]
    assert driver["fabricmanager_packages"] == ["nvidia-fabric-manager"]
    assert "kmod-nvidia-latest-dkms" in driver["hold"] and "@nvidia-driver:570-dkms" in driver["hold"]
    assert cuda["pkg_manager"] == "dnf" and cuda["toolkits"][0]["package"] == "cuda-toolkit-12-8"


def test_rhel8_open_modules_and_two_cuda_versions(tmp_path):
    settings = {"nvidia_driver_kernel_modules": "open", "cuda_versions": ["12.4", "12.8"], "cuda_default_version": "12.4"}
    driver, cuda = _ok(tmp_path, "rhel8", settings)
    assert driver["repo"]["url"] == NVIDIA + "/rhel8/x86_64"
    assert driver["versioned"] == ["@nvidia-driver:570-open"]
    assert [t["prefix"] for t in cuda["toolkits"]] == ["/usr/local/cuda-12.4", "/usr/local/cuda-12.8"]
    assert [t["priority"] for t in cuda["toolkits"]] == [1204, 1208] and cuda["default"] == "12.4"


def _flat(text):
    return " ".join(text.split())


@pytest.mark.parametrize("os_name, host_vars, nvswitch, expected", [
    pytest.param("debian12", {"nvidia_driver_branch": "550"}, False,
                 "nvidia_driver_branch 550: Debian 12's non-free archive has only the 535 branch.", id="debian-branch"),
    pytest.param("debian12", {}, True,
                 "node has NVSwitch-connected GPUs (1 NVSwitch PCI devices, NVLink all-to-all: True) and needs nvidia-fabricmanager, "
                 "which Debian's archive does not ship. Set nvidia_driver_source: nvidia", id="debian-nvswitch"),
    pytest.param("ubuntu2204", {"nvidia_driver_source": "distro"}, False,
                 "nvidia_driver_source is distro (Debian only) or nvidia", id="ubuntu-distro"),
    pytest.param("ubuntu2204", {"nvidia_driver_version": "550.54.15", "nvidia_driver_branch": "570"}, False,
                 "version \"550.54.15\"", id="version-outside-branch"),
])
def test_preflight_rejects(tmp_path, os_name, host_vars, nvswitch, expected):
    rc, out, dummy = render(tmp_path, os_name, host_vars, nvswitch)
    assert rc != 0, out
    assert expected in _flat(out), out
