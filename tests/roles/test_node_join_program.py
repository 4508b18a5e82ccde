"""gpuops-node-join, the program a node booted from an image runs once a boot, end to end on this machine.

It is laid out as a role installs it (the program and its lib/, bench/exporter_scrape.py's install) and
runs unprivileged in a temporary directory: the overlay, the image manifest, the munge key's place and the run
directory are its arguments, and stand-ins on PATH take the place of nvidia-smi (replaying a real capture),
systemctl and scontrol, each recording its call in one file, in order.
"""

import json
import os
import pwd
import stat
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import exporter_scrape  # noqa: E402  pylint: disable=wrong-import-position

CAPTURES = os.path.join(exporter_scrape.ROOT, "tests", "fixtures", "nvidia-smi-xml")
DUAL_2070 = os.path.join(CAPTURES, "telegraf_dual_2070-v13.xml")
TESLA_T4 = os.path.join(CAPTURES, "telegraf_tesla-t4.xml")
GRES_2070 = "gpu:nvidia_geforce_rtx_2070:2"
JOIN_CONF = "# the node's overlay (Warewulf)\nconf_server=ctl1:6817,ctl2\ncluster_name=lab\nnode_name=gpu01\n"

SYSTEMCTL = """#!/bin/sh
echo "systemctl $*" >> {base}/calls
if [ -e {base}/fail-{unit} ]; then echo "Job for $2.service failed." >&2; exit 1; fi
exit 0
"""
# Down while the file controller-down holds a number: each call takes one off (empty: down for good).
SCONTROL = """#!/bin/sh
echo "scontrol $* SLURM_CONF=$SLURM_CONF" >> {base}/calls
if [ -e {base}/controller-down ]; then
    left=$(/bin/cat {base}/controller-down)
    if [ -z "$left" ] || [ "$left" -gt 0 ]; then
        [ -n "$left" ] && echo $((left - 1)) > {base}/controller-down
        echo "slurm_update error: Unable to contact slurm controller (connect failure)" >&2
        exit 1
    fi
fi
if [ "$1" = "-o" ]; then /bin/cat {base}/node-state 2>/dev/null; fi
exit 0
"""


@pytest.fixture(name="node")
def _node(tmp_path):
    base = tmp_path
    program = exporter_scrape.install(str(base / "image"), "node_image", "gpuops_node_join.py")
    bin_dir = base / "bin"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(SYSTEMCTL.replace("{unit}", "$2").format(base=base))
    (bin_dir / "scontrol").write_text(SCONTROL.format(base=base))
    for name in ("systemctl", "scontrol"):
        (bin_dir / name).chmod(0o755)
    overlay = base / "overlay"
    overlay.mkdir()
    (overlay / "join.conf").write_text(JOIN_CONF)
    key = os.urandom(128)
    (overlay / "munge.key").write_bytes(key)
    manifest = base / "manifest.json"
    manifest.write_text(json.dumps({"profile": "dual-2070", "profiles": {
        "dual-2070": {"gres_value": GRES_2070, "gpu_count": 2},
        "cpu": {"gres_value": "", "gpu_count": 0}}}))
    node = {"base": base, "program": program, "bin": bin_dir, "overlay": overlay, "key": key,
            "manifest": manifest, "munge_key": base / "etc" / "munge" / "munge.key", "run": base / "run"}
    smi(node, "exec /bin/cat %s\n" % DUAL_2070)
    return node


def smi(node, body):
    """nvidia-smi answering with body (a shell script's lines)."""
    exporter_scrape.script(str(node["bin"] / "nvidia-smi"), body)


def _run(node, *extra, **names):
    argv = [sys.executable, "-I", node["program"], names.get("overlay", "--overlay-dir"), str(node["overlay"]),
            "--manifest", str(node["manifest"]), "--health-config", str(node["base"] / "health.json"),
            "--munge-key", str(node["munge_key"]), "--munge-user",
            pwd.getpwuid(os.getuid()).pw_name, "--run-dir", str(node["run"]), "--hostname", "gpu01.lab.example",
            names.get("timeout", "--drain-timeout"), "3", "--retry-interval", "0.2"] + list(extra)
    proc = subprocess.run(argv, env={"PATH": str(node["bin"])}, capture_output=True, text=True, timeout=60,
                          check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    calls_file = node["base"] / "calls"
    calls = calls_file.read_text().splitlines() if calls_file.exists() else []
    result_file = node["run"] / "result.json"
    result = json.loads(result_file.read_text()) if result_file.exists() else None
    return proc, calls, result


def _client_conf(node):
    return "SLURM_CONF=%s" % (node["run"] / "slurm.conf")


def test_a_node_whose_gpus_are_its_profiles_joins(node):
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    assert calls == ["systemctl start munge", "scontrol -o show node gpu01 %s" % _client_conf(node),
                     "systemctl start slurmd"]
    key = node["munge_key"]
    assert key.read_bytes() == node["key"]
    assert stat.S_IMODE(key.stat().st_mode) == 0o400 and key.stat().st_uid == os.getuid()
    assert (node["run"] / "slurmd.env").read_text().splitlines()[-1] == (
        'SLURMD_OPTIONS="--conf-server ctl1:6817,ctl2:6817"')
    assert (node["run"] / "slurm.conf").read_text().splitlines()[1:] == [
        "ClusterName=lab", "SlurmctldPort=6817", "SlurmctldHost=ctl1", "SlurmctldHost=ctl2"]
    assert result["check"] == "passed" and result["reason"] is None
    assert (result["node"], result["profile"], result["drained"], result["slurmd_started"]) == (
        "gpu01", "dual-2070", False, True)
    assert "check passed" in proc.stderr and "joined as gpu01" in proc.stderr
    # ctl1 and ctl2 do not resolve here: no address toward them, the exporters listen on the node alone.
    assert (node["run"] / "node.env").read_text().splitlines()[1:] == [
        "GPUOPS_NODE_NAME=gpu01", "GPUOPS_NODE_ADDRESS=127.0.0.1", "GPUOPS_NODE_LISTEN=127.0.0.1"]
    # The next boot finds the key in place: it is not written again.
    inode = key.stat().st_ino
    proc, calls, result = _run(node)
    assert proc.returncode == 0 and key.stat().st_ino == inode
    assert "already holds the overlay's munge key" in proc.stderr


def test_the_node_env_names_the_address_toward_the_controllers(node):
    proc, calls, result = _run(node, "--address", "10.9.8.7")
    assert proc.returncode == 0, proc.stderr
    assert "GPUOPS_NODE_ADDRESS=10.9.8.7" in (node["run"] / "node.env").read_text().splitlines()
    # A controller at a literal address: the kernel's route toward it gives the node's own (loopback here).
    (node["overlay"] / "join.conf").write_text("conf_server=127.0.0.1\ncluster_name=lab\nnode_name=gpu01\n")
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    assert "GPUOPS_NODE_ADDRESS=127.0.0.1" in (node["run"] / "node.env").read_text().splitlines()


def test_the_units_option_names_are_taken(node):
    # gpuops-node-join.service gives --overlay and --timeout.
    proc, calls, result = _run(node, overlay="--overlay", timeout="--timeout")
    assert proc.returncode == 0 and result["check"] == "passed", proc.stderr


def test_a_node_name_other_than_the_hostname_is_given_to_slurmd(node):
    (node["overlay"] / "join.conf").write_text(JOIN_CONF.replace("node_name=gpu01", "node_name=rack3-gpu01"))
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    assert (node["run"] / "slurmd.env").read_text().splitlines()[-1] == (
        'SLURMD_OPTIONS="--conf-server ctl1:6817,ctl2:6817 -N rack3-gpu01"')
    assert calls[1].startswith("scontrol -o show node rack3-gpu01 ") and result["node"] == "rack3-gpu01"


def test_a_node_with_other_gpus_is_drained_before_slurmd_starts(node):
    smi(node, "exec /bin/cat %s\n" % TESLA_T4)
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    reason = ("gpuops-join: nvidia-smi shows 1 GPU (gpu:tesla_t4:1); profile dual-2070 wants 2 GPUs "
              "(gpu:nvidia_geforce_rtx_2070:2)")
    assert calls == ["systemctl start munge",
                     "scontrol update NodeName=gpu01 State=DRAIN Reason=%s %s" % (reason, _client_conf(node)),
                     "systemctl start slurmd"]
    assert result["check"] == "failed" and result["drained"] and result["slurmd_started"]
    assert result["reason"] == reason[len("gpuops-join: "):]


def test_a_lost_gpu_drains_the_node(node):
    text = open(DUAL_2070).read()
    start = text.rindex("<gpu id=")
    (node["base"] / "one.xml").write_text(text[:start] + text[text.index("</gpu>", start) + len("</gpu>"):])
    smi(node, "exec /bin/cat %s\n" % (node["base"] / "one.xml"))
    proc, calls, result = _run(node)
    assert proc.returncode == 0 and result["drained"]
    assert calls[1].startswith("scontrol update NodeName=gpu01 State=DRAIN Reason=gpuops-join: nvidia-smi shows 1 GPU "
                               "(gpu:nvidia_geforce_rtx_2070:1); profile dual-2070 wants 2 GPUs")
    assert calls[2] == "systemctl start slurmd"


def test_a_failing_nvidia_smi_drains_with_its_first_error_line(node):
    smi(node, "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
              "the latest NVIDIA driver is installed and running.\"\necho 'second line' >&2\nexit 9\n")
    proc, calls, result = _run(node)
    assert proc.returncode == 0 and result["drained"]
    assert calls[1].startswith("scontrol update NodeName=gpu01 State=DRAIN Reason=gpuops-join: nvidia-smi: NVIDIA-SMI "
                               "has failed because it couldn't communicate with the NVIDIA driver.")
    assert calls[-1] == "systemctl start slurmd"


def test_a_cpu_profile_without_nvidia_smi_joins(node):
    os.unlink(str(node["bin"] / "nvidia-smi"))
    (node["overlay"] / "join.conf").write_text(JOIN_CONF + "profile=cpu\n")
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    assert result["check"] == "passed" and result["profile"] == "cpu" and calls[-1] == "systemctl start slurmd"
    # ... but a GPU profile without nvidia-smi is drained.
    (node["overlay"] / "join.conf").write_text(JOIN_CONF)
    (node["base"] / "calls").unlink()
    proc, calls, result = _run(node)
    assert result["drained"] and result["reason"] == (
        "nvidia-smi is not installed (not found on PATH); profile dual-2070 wants 2 GPUs (gpu:nvidia_geforce_rtx_2070:2)")


def test_an_unreachable_controller_leaves_slurmd_stopped(node):
    smi(node, "exec /bin/cat %s\n" % TESLA_T4)
    (node["base"] / "controller-down").write_text("")
    proc, calls, result = _run(node)
    assert proc.returncode == 1
    assert "systemctl start slurmd" not in calls
    drains = [call for call in calls if call.startswith("scontrol update")]
    assert calls[0] == "systemctl start munge" and len(drains) >= 3 and len(drains) == len(calls) - 1
    assert result["check"] == "failed" and not result["drained"] and not result["slurmd_started"]
    assert result["stopped"] == "drain" and "Unable to contact slurm controller" in result["error"]
    last = proc.stderr.strip().splitlines()[-1]
    assert "could not be drained" in last and "Unable to contact slurm controller" in last and "slurmd not started" in last


def test_a_controller_that_answers_within_the_timeout_gets_the_drain(node):
    smi(node, "exec /bin/cat %s\n" % TESLA_T4)
    (node["base"] / "controller-down").write_text("2")
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    assert [call.split(" NodeName")[0] for call in calls] == [
        "systemctl start munge", "scontrol update", "scontrol update", "scontrol update", "systemctl start slurmd"]
    assert result["drained"] and result["slurmd_started"]


def test_a_passing_check_resumes_only_its_own_earlier_drain(node):
    (node["base"] / "node-state").write_text(
        "NodeName=gpu01 Arch=x86_64 State=IDLE+DRAIN Reason=gpuops-join: nvidia-smi shows 1 GPU [root@2026-12-01T10:00:00]\n")
    proc, calls, result = _run(node)
    assert calls[2] == "scontrol update NodeName=gpu01 State=RESUME %s" % _client_conf(node) and result["resumed"]
    (node["base"] / "calls").unlink()
    (node["base"] / "node-state").write_text("NodeName=gpu01 State=IDLE+DRAIN Reason=fan [admin@2026-12-01T10:00:00]\n")
    proc, calls, result = _run(node)
    assert not [call for call in calls if "update" in call] and not result["resumed"]


def test_a_failed_munge_start_stops_before_slurmd(node):
    (node["base"] / "fail-munge").write_text("")
    proc, calls, result = _run(node)
    assert proc.returncode == 4 and calls == ["systemctl start munge"]
    assert result["stopped"] == "step" and "systemctl start munge failed (rc 1): Job for munge.service failed." in (
        result["error"])


@pytest.mark.parametrize("change, message", [
    ({"join.conf": "conf_server ctl1\ncluster_name=lab\n"},
     "join.conf line 1: 'conf_server ctl1' is not key=value: write e.g. conf_server=ctl1:6817"),
    ({"join.conf": "cluster_name=lab\n"}, "join.conf: conf_server is missing"),
    ({"join.conf": b"\xff\xfe\x00garbage=\x00\n"}, "join.conf line 1: unknown key"),
    ({"munge.key": b"short"}, "munge.key has 5 bytes; munged needs at least 32"),
    ({"munge.key": None}, "munge.key is missing"),
    ({"manifest": "{not json"}, "manifest.json is not JSON"),
    ({"manifest": json.dumps({"profiles": {"a": {"gres_value": "", "gpu_count": 0},
                                           "b": {"gres_value": "", "gpu_count": 0}}})},
     "this image carries 2 profiles (a, b) and neither join.conf nor the image names the node's"),
])
def test_a_bad_overlay_or_manifest_is_one_clear_line_and_nothing_is_done(node, change, message):
    for name, content in change.items():
        path = node["manifest"] if name == "manifest" else node["overlay"] / name
        if content is None:
            path.unlink()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    proc, calls, result = _run(node)
    assert proc.returncode == 3 and calls == []
    errors = [line for line in proc.stderr.splitlines() if message in line]
    assert len(errors) == 1, proc.stderr
    assert not node["munge_key"].exists() and not (node["run"] / "slurmd.env").exists()
    assert result["check"] == "failed" and result["stopped"] == "input" and message in result["reason"]
    assert not result["slurmd_started"]


def test_a_missing_overlay_directory(node):
    proc, calls, result = _run(node, "--overlay-dir", str(node["base"] / "nowhere"))
    assert proc.returncode == 3 and calls == [] and "nowhere is missing" in result["reason"]


def test_the_dry_run_prints_the_plan_and_does_nothing(node):
    smi(node, "exec /bin/cat %s\n" % TESLA_T4)
    proc, calls, result = _run(node, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("1. install the overlay's munge key as %s" % node["munge_key"])
    assert lines[1] == "2. systemctl start munge"
    assert lines[4].startswith("5. drain gpu01 before slurmd registers it (profile dual-2070): gpuops-join: ")
    assert lines[5].startswith("6. write %s (the exporters listen on " % (node["run"] / "node.env"))
    assert lines[6:] == ["7. systemctl start slurmd (only once the drain is made)", "dry run: nothing done"]
    assert calls == [] and result is None and not node["munge_key"].exists()


def test_bad_arguments_exit_2(node):
    proc, calls, result = _run(node, "--drain-timeout", "soon")
    assert proc.returncode == 2 and calls == [] and result is None


def test_the_booted_image_is_named_in_the_nodes_comment(node):
    data = json.loads(node["manifest"].read_text())
    data.update(name="gpuops-node", version="2")
    node["manifest"].write_text(json.dumps(data))
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    assert calls[-2:] == ["scontrol update NodeName=gpu01 Comment=gpuops-image=gpuops-node:2 %s" % _client_conf(node),
                          "systemctl start slurmd"]
    assert result["image"] == "gpuops-node:2" and result["image_recorded"] is True


def test_the_health_checks_settings_get_the_nodes_name_and_its_profiles_gpus(node):
    data = json.loads(node["manifest"].read_text())
    data["profiles"]["dual-2070"]["gres_lines"] = ["Name=gpu Type=nvidia_geforce_rtx_2070 File=/dev/nvidia[0-1]"]
    node["manifest"].write_text(json.dumps(data))
    built = {"node": "build01", "checks": {"persistence_mode": False}, "expect": {
        "gpu_count": 0, "gpu_types": {}, "pci_bus_ids": [], "gpu_minors": [], "driver_version": "535.247.01"}}
    (node["base"] / "health.json").write_text(json.dumps(built))
    proc, calls, result = _run(node)
    assert proc.returncode == 0, proc.stderr
    written = json.loads((node["base"] / "health.json").read_text())
    assert written["node"] == "gpu01" and written["checks"] == {"persistence_mode": False}
    assert written["expect"] == {"gpu_count": 2, "gpu_types": {"nvidia_geforce_rtx_2070": 2}, "pci_bus_ids": [],
                                 "gpu_minors": [0, 1], "driver_version": "535.247.01"}
    assert "wrote %s (the health check" % (node["base"] / "health.json") in proc.stderr
    assert calls[-1] == "systemctl start slurmd"


def test_settings_that_are_not_the_health_checks_are_left_alone(node):
    (node["base"] / "health.json").write_text("[1, 2]")
    proc, _calls, result = _run(node)
    assert proc.returncode == 0 and result["check"] == "passed"
    assert (node["base"] / "health.json").read_text() == "[1, 2]"
    assert "is not the health check's settings" in proc.stderr
