# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Debian packages the collection's roles install, read from the roles themselves.

    python3 tools/role-packages.py 12      # Debian 12's list, one package a line
    python3 tools/role-packages.py 13
    python3 tools/role-packages.py users   # the service accounts the Slurm roles fix: name uid gid
    python3 tools/role-packages.py cuda 12 # the cuda role's distribution toolkit package(s)

Used by tools/build-images.sh for the package layer image (gpuops-pkgs:<suite>):
the bare image with these packages already installed, for the Molecule
scenarios whose subject is not the install itself. Read from each role's
vars/Debian.yml, vars/Debian-<major>.yml, vars/main.yml and defaults/main.yml:
every variable named ``*packages`` or ``*_package`` whose value is a plain
list of names, a single name, or a mapping by OS family with a Debian entry.
Values with Jinja in them are computed per host and skipped. A later layer
(Debian-<major>.yml) replaces an earlier one (Debian.yml), as the roles'
OS vars loader does.

Left out on purpose: the GPU software stack's packages (driver, CUDA, RDMA,
NCCL tuning: their install, pins and holds are what the gpu_stack scenario
tests on a node of a running cluster, whose controller must stay free of
them; and they are large), and
the validate role's build tools (only validate's real-hardware path uses them),
Grafana (from Grafana's own repository, which the tests cannot reach) and the
PyTorch environment's pip packages.

The ``cuda`` list is for the CUDA layer (gpuops-cuda:<suite>, on the
package layer): the gpu_stack scenario's GPU node starts from it, so that
its converge installs the driver (the change it drains the node for) and
not the toolkit again. The toolkit's install from a bare image is proven by
the site scenario (check, converge, idempotence).
"""
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SKIP_ROLES = {"nvidia_driver", "cuda", "rdma_peermem", "nccl_tuning", "validate", "grafana"}
# Python packages (pip, in the PyTorch environment), not Debian's.
SKIP_VARS = {"pytorch_env_base_packages", "pytorch_env_system_packages", "pytorch_env_extra_packages"}


def _names(value):
    if isinstance(value, dict):
        value = value.get("Debian", [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    if not all(isinstance(v, str) and "{{" not in v and "{%" not in v for v in value):
        return []
    return [v.strip() for v in value if v.strip()]


def _wanted(key):
    return (key.endswith("packages") or key.endswith("_package")) and key not in SKIP_VARS


def role_packages(major):
    packages = set()
    for role in sorted(p for p in (ROOT / "roles").iterdir() if p.is_dir()):
        if role.name in SKIP_ROLES:
            continue
        merged = {}
        for rel in ("defaults/main.yml", "vars/main.yml", "vars/Debian.yml", f"vars/Debian-{major}.yml"):
            path = role / rel
            if path.is_file():
                data = yaml.safe_load(path.read_text()) or {}
                merged.update({k: v for k, v in data.items() if _wanted(k)})
        for value in merged.values():
            packages.update(_names(value))
    return sorted(packages)


def cuda_packages(major):
    """The cuda role's distribution toolkit package(s) for Debian ``major`` (its OS vars, later layers win)."""
    merged = {}
    for rel in ("vars/main.yml", "vars/Debian.yml", f"vars/Debian-{major}.yml"):
        path = ROOT / "roles/cuda" / rel
        if path.is_file():
            merged.update(yaml.safe_load(path.read_text()) or {})
    return sorted(_names(merged.get("__cuda_distro_package", [])))


def service_accounts():
    """The accounts the Slurm roles create with fixed ids (their defaults).

    The package layer creates them before the packages do, with these ids,
    as a site's image build with the cluster's ids would: a package that
    makes its own account (munge) would otherwise pick another id, and the
    files it owns would not follow the role's id.
    """
    d = yaml.safe_load((ROOT / "roles/_slurm_common/defaults/main.yml").read_text())
    return [(d["slurm_user"], d["slurm_user_uid"], d["slurm_user_gid"]),
            ("munge", d["slurm_munge_uid"], d["slurm_munge_gid"])]


def main(argv):
    if len(argv) == 2 and argv[1] == "users":
        print("\n".join("%s %d %d" % a for a in service_accounts()))
        return 0
    if len(argv) == 3 and argv[1] == "cuda" and argv[2].isdecimal():
        print("\n".join(cuda_packages(argv[2])))
        return 0
    if len(argv) != 2 or not argv[1].isdecimal():
        sys.stderr.write("usage: role-packages.py DEBIAN_MAJOR (12 or 13) | users | cuda DEBIAN_MAJOR\n")
        return 2
    print("\n".join(role_packages(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
