# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A GPU compute node image (role node_image, playbooks/node_image.yml): its settings and its manifest.

The image is built by the compute roles on a build host and committed as an OCI image; each node that
boots it joins the cluster from its overlay (module_utils/slurm/_node_join.py). The manifest records
what the image holds, so an admin, the rolling reimage and a booting node can tell one image from another:
its name and version, the collection's version, the OS, the Slurm release, the driver and CUDA, every
installed package, and the hardware profiles its nodes check their GPUs against.

settings_errors(settings) names each wrong setting and its fix; package_versions(text) reads dpkg-query;
manifest(packages_text, info) builds the manifest. Bad input never raises.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import node_profiles

# A version or a name that goes into a path, a tag or a Slurm reason: no white space, no quotes.
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}\Z")
# The packages each recorded component is read from, in order (the first installed one wins): Debian's and
# SchedMD's Slurm packages, Debian's and NVIDIA's driver and CUDA packages.
COMPONENTS = (
    ("slurm", ("slurmd", "slurm-smd-slurmd", "slurm-smd", "slurm-slurmd")),
    ("munge", ("munge",)),
    ("pmix", ("libpmix2", "libpmix2t64", "pmix")),
    ("driver", ("nvidia-driver", "nvidia-open-kernel-dkms", "nvidia-kernel-dkms", "libnvidia-ml1",
                "nvidia-driver-libs")),
    ("cuda", ("nvidia-cuda-toolkit", "cuda-toolkit", "libcudart12")),
    ("openmpi", ("openmpi-bin",)),
    ("enroot", ("enroot",)),
)
JOIN_TIMEOUT_RANGE = (10, 3600)


def _absolute(value):
    return isinstance(value, str) and value.startswith("/") and len(value) > 1 and not any(c.isspace() for c in value)


def settings_errors(settings):
    """[] or one message per wrong node_image setting, naming the variable and the fix."""
    if not isinstance(settings, dict):
        return ["the node_image settings must be a mapping, not %s" % shown(settings)]
    errors = []
    for key in ("name", "version"):
        value = settings.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not _WORD.match(value):
            errors.append("node_image_%s is %s: give a word of letters, digits and _ . + - (at most 64), as an "
                          "image tag takes it." % (key, shown(settings.get(key))))
    for key in ("overlay_dir", "manifest_path", "install_dir"):
        if not _absolute(settings.get(key)):
            errors.append("node_image_%s is %s: give an absolute path without spaces." % (key, shown(settings.get(key))))
    timeout = settings.get("join_timeout_s")
    low, high = JOIN_TIMEOUT_RANGE
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not low <= timeout <= high:
        errors.append("node_image_join_timeout_s is %s: give a whole number of seconds from %d to %d (how long a node "
                      "whose check failed waits for the controller to drain it)." % (shown(timeout), low, high))
    profiles = settings.get("profiles")
    if profiles is not None and not isinstance(profiles, dict):
        errors.append("slurm_node_profiles is %s: give a mapping of profile names to hardware profiles."
                      % shown(profiles))
        profiles = {}
    # The profiles' own rules are the Slurm model's (one rule: a booting node checks what slurm.conf says).
    errors.extend(node_profiles({"node_profiles": profiles})[1])
    profile = settings.get("profile")
    if profile not in (None, ""):
        if not isinstance(profile, str):
            errors.append("node_image_profile is %s: give the name of a profile of slurm_node_profiles, or \"\"."
                          % shown(profile))
        elif profile not in (profiles or {}):
            errors.append("node_image_profile is %s, which slurm_node_profiles does not hold (it has %s): name one of "
                          "them, or \"\"." % (shown(profile), ", ".join(sorted(str(k) for k in profiles or {})) or "none"))
    return errors


def package_versions(text):
    """{package: version} of the installed packages in dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\\n'.

    Names, versions and the status hold no white space, so the fields are split at it (tabs as well). A line
    whose status is not installed ("ii") is left out, and so is a line of another shape; an architecture
    qualifier (libfoo:amd64) is dropped.
    """
    versions = {}
    for line in (text or "").splitlines() if isinstance(text, str) else []:
        fields = line.split()
        if len(fields) < 2:
            continue
        if len(fields) >= 3 and not fields[2].startswith("ii"):
            continue
        versions[fields[0].split(":")[0]] = fields[1]
    return versions


def component_versions(packages):
    """{component: version or None} of COMPONENTS, from the installed packages."""
    found = {}
    for component, names in COMPONENTS:
        found[component] = next((packages[name] for name in names if name in packages), None)
        if found[component] is None and component == "cuda":
            # NVIDIA's versioned toolkits: cuda-toolkit-12-4 and the like.
            versioned = sorted(name for name in packages if re.match(r"cuda-toolkit-[0-9]+-[0-9]+\Z", name))
            found[component] = packages[versioned[-1]] if versioned else None
    return found


def _collection(info):
    """{"name", "version"} from galaxy.yml or MANIFEST.json's data (either shape), or {} when unknown."""
    data = info if isinstance(info, dict) else {}
    data = data.get("collection_info") if isinstance(data.get("collection_info"), dict) else data
    if not data.get("namespace") or not data.get("name"):
        return {}
    return {"name": "%s.%s" % (data["namespace"], data["name"]), "version": str(data.get("version") or "")}


def manifest(packages_text, info):
    """The image's manifest (a mapping to write as JSON) from dpkg-query's output and what the build knows.

    info: name, version, profile, profiles (slurm_node_profiles: each is recorded as the Slurm model describes it,
    with gres_value and gpu_count, what a booting node compares its GPUs with), collection (galaxy.yml's or
    MANIFEST.json's data), os, slurm_install_from, built.
    """
    info = info if isinstance(info, dict) else {}
    packages = package_versions(packages_text)
    profiles = node_profiles({"node_profiles": info.get("profiles") if isinstance(info.get("profiles"), dict)
                              else {}})[0]
    return {
        "name": str(info.get("name") or ""),
        "version": str(info.get("version") or ""),
        "built": info.get("built"),
        "collection": _collection(info.get("collection")),
        "os": info.get("os"),
        "slurm_install_from": info.get("slurm_install_from"),
        "components": component_versions(packages),
        "profile": info.get("profile") or None,
        "profiles": profiles,
        "packages": dict(sorted(packages.items())),
    }
