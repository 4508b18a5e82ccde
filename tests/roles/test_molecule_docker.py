"""Molecule's create and destroy steps (tools/molecule-docker.py): the docker run flags come from
the platforms as molecule.yml gives them, with the same recipe tools/lab.sh uses; bad input is
refused with a message, never a traceback. Docker itself is not called here (the Molecule
scenarios create and destroy their containers with it in every run)."""

import importlib.util
import io
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("molecule_docker", ROOT / "tools" / "molecule-docker.py")
md = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(md)

PLATFORM = {
    "name": "st-gpu01",
    "hostname": "st-gpu01",
    "image": "gpuops-lab:bookworm",
    "pre_build_image": True,
    "command": "/sbin/init",
    "capabilities": ["SYS_ADMIN", "SYS_NICE"],
    "security_opts": ["seccomp=unconfined", "apparmor=unconfined"],
    "tmpfs": ["/run", "/run/lock", "/sys/fs/cgroup"],
    "cgroupns_mode": "private",
    "volumes": ["gpuops-site-shared:/shared:rw"],
    "docker_networks": [{"name": "gpuops-lane-0", "ipam_config": [{"subnet": "172.31.241.0/24",
                                                                   "gateway": "172.31.241.1"}]}],
    "networks": [{"name": "gpuops-lane-0", "ipv4_address": "172.31.241.11", "aliases": ["ctl"]}, {"name": "extra"}],
    "groups": ["slurm_compute"],
}


def test_run_args_carry_every_platform_setting():
    args, more = md.run_args(PLATFORM)
    assert args[:6] == ["run", "-d", "--name", "st-gpu01", "--hostname", "st-gpu01"]
    joined = " ".join(args)
    for flag in ("--label owner=molecule", "--cap-add SYS_ADMIN", "--cap-add SYS_NICE",
                 "--security-opt seccomp=unconfined", "--security-opt apparmor=unconfined",
                 "--tmpfs /run", "--tmpfs /run/lock", "--tmpfs /sys/fs/cgroup", "--cgroupns private",
                 "-v gpuops-site-shared:/shared:rw", "--network gpuops-lane-0 --ip 172.31.241.11 --network-alias ctl"):
        assert flag in joined, flag
    assert args[-2:] == ["gpuops-lab:bookworm", "/sbin/init"]
    assert more == [{"name": "extra"}]


def test_a_bare_platform_gets_its_name_as_hostname_and_no_command():
    args, more = md.run_args({"name": "x", "image": "img"})
    assert args == ["run", "-d", "--name", "x", "--hostname", "x", "--label", "owner=molecule", "img"]
    assert more == []


def test_networks_are_listed_once():
    second = dict(PLATFORM, name="st-gpu02")
    assert list(md.networks_of([PLATFORM, second])) == ["gpuops-lane-0"]


def test_bad_input_is_refused_with_a_message(monkeypatch, capsys):
    for text in ("not json", json.dumps({"name": "x"}), json.dumps([{"image": "no name"}])):
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        assert md.main(["molecule-docker.py", "create"]) == 1
        assert capsys.readouterr().err.strip()
    assert md.main(["molecule-docker.py", "rebuild"]) == 2
    assert "usage" in capsys.readouterr().err
