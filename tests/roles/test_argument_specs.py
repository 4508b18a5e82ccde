"""Every role default is documented in meta/argument_specs.yml, with the same value."""

import pathlib

import pytest
import yaml

ROLES = pathlib.Path(__file__).resolve().parents[2] / "roles"


def _roles():
    return sorted(p.name for p in ROLES.iterdir() if (p / "tasks" / "main.yml").exists())


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def _defaults(role):
    """defaults/main.yml, or every file of defaults/main/ merged (Ansible loads either)."""
    single = ROLES / role / "defaults" / "main.yml"
    if single.exists():
        return _load(single)
    merged = {}
    for path in sorted((ROLES / role / "defaults" / "main").glob("*.yml")):
        merged.update(_load(path))
    return merged


def test_there_are_roles():
    assert {"_slurm_common", "slurm_controller", "slurm_compute", "package_proxy"} <= set(_roles())


@pytest.mark.parametrize("role", _roles())
def test_defaults_match_argument_specs(role):
    defaults = _defaults(role)
    spec_file = ROLES / role / "meta" / "argument_specs.yml"
    assert spec_file.exists(), f"{role}: meta/argument_specs.yml is missing"
    options = _load(spec_file)["argument_specs"]["main"].get("options", {})
    assert sorted(defaults) == sorted(options), f"{role}: defaults and argument_specs list different variables"
    for name, value in defaults.items():
        spec = options[name]
        assert spec.get("description"), f"{role}: {name} has no description"
        assert spec.get("default") == value, f"{role}: {name} default {value!r} != spec {spec.get('default')!r}"


@pytest.mark.parametrize("role", _roles())
def test_public_variables_carry_the_role_prefix(role):
    defaults = _defaults(role)
    prefix = {"_slurm_common": "slurm_", "_gpu_common": "gpuops_", "_monitoring_common": "gpuops_monitoring_"}.get(role, role + "_")
    bad = [name for name in defaults if not name.startswith(prefix)]
    assert not bad, f"{role}: defaults without the {prefix} prefix: {bad}"
