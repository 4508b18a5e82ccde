# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node booted from an image joins the cluster (module_utils/slurm/_node_join.py): its overlay, the image's
profile, the GPU check over real nvidia-smi captures (tests/fixtures/GPU_SOURCES.md), what it writes, the drain."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._node_join import (
    MUNGE_KEY_MIN,
    REASON_LIMIT,
    SLURMD_ENV,
    SMI_MISSING,
    NodeJoinError,
    client_conf,
    drain_reason,
    gpu_check,
    health_settings,
    image_comment,
    image_label,
    join_plan,
    node_env,
    munge_key_error,
    needs_listing,
    node_name,
    node_profile,
    own_drain,
    parse_conf_server,
    parse_join_conf,
    parse_manifest,
    profile_minors,
    result,
    slurmd_env,
    smi_failure,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")
GOOD = "conf_server=ctl1:6817,ctl2\ncluster_name=lab\n"
DUAL_2070 = {"gres_value": "gpu:nvidia_geforce_rtx_2070:2", "gpu_count": 2}
CPU = {"gres_value": "", "gpu_count": 0}
# nvidia-smi's answer when the driver is not loaded (its first line), as the gpu_facts tests read it.
NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
             "NVIDIA driver is installed and running.")


def xml(name):
    with open(os.path.join(FIXTURES, "nvidia-smi-xml", name)) as handle:
        return handle.read()


def without_last_gpu(text):
    start = text.rindex("<gpu id=")
    return text[:start] + text[text.index("</gpu>", start) + len("</gpu>"):]


def conf(text=GOOD):
    parsed, errors = parse_join_conf(text)
    assert errors == []
    return parsed


# ---- join.conf

def test_a_full_join_conf():
    parsed, errors = parse_join_conf("# written by cloud-init\n\n  conf_server = ctl1:6817,ctl2 \ncluster_name=lab\n"
                                     "node_name='gpu-a01'\nprofile=\"dual-2070\"\n")
    assert errors == []
    assert parsed == {"conf_server": "ctl1:6817,ctl2", "cluster_name": "lab", "node_name": "gpu-a01",
                      "profile": "dual-2070",
                      "controllers": [{"host": "ctl1", "port": 6817, "ipv6": False},
                                      {"host": "ctl2", "port": 6817, "ipv6": False}]}


def test_the_least_join_conf_and_crlf_and_bytes():
    parsed, errors = parse_join_conf(b"conf_server=10.0.0.1\r\ncluster_name=lab\r\n")
    assert errors == [] and parsed["node_name"] is None and parsed["profile"] is None
    assert parsed["controllers"] == [{"host": "10.0.0.1", "port": 6817, "ipv6": False}]


@pytest.mark.parametrize("text, errors", [
    ("conf_server ctl1\ncluster_name=lab\n",
     ["join.conf line 1: 'conf_server ctl1' is not key=value: write e.g. conf_server=ctl1:6817",
      "join.conf: conf_server is missing: add conf_server=<controller>[:port],... (the controllers, as slurmd "
      "--conf-server takes them)"]),
    (GOOD + "conf-server=ctl3\n",
     ["join.conf line 3: unknown key 'conf-server': the keys are conf_server, cluster_name, node_name, profile"]),
    (GOOD + "Profile=a\n",
     ["join.conf line 3: unknown key 'Profile' (keys are lower case): the keys are conf_server, cluster_name, "
      "node_name, profile"]),
    (GOOD + "cluster_name=lab2\n", ["join.conf line 3: cluster_name is given again (first on line 2): keep one"]),
    (GOOD + "node_name=\n", ["join.conf line 3: node_name is empty: give its value or leave the line out"]),
    (GOOD + "profile=''\n", ["join.conf line 3: profile is empty: give its value or leave the line out"]),
    ("conf_server=ctl1\n", ["join.conf: cluster_name is missing: add cluster_name=<the ClusterName of the cluster's "
                            "slurm.conf>"]),
    ("", ["join.conf: conf_server is missing: add conf_server=<controller>[:port],... (the controllers, as slurmd "
          "--conf-server takes them)",
          "join.conf: cluster_name is missing: add cluster_name=<the ClusterName of the cluster's slurm.conf>"]),
    ("conf_server=ctl1,,ctl2\ncluster_name=lab\n",
     ["join.conf line 1: conf_server 'ctl1,,ctl2' has an empty entry: give the controllers as host[:port], "
      "separated by single commas"]),
    ("conf_server=ctl1:\ncluster_name=lab\n",
     ["join.conf line 1: conf_server entry 'ctl1:' is not host[:port]: give a host name or an address (an IPv6 "
      "address in brackets, [fd00::1]:6817)"]),
    ("conf_server=fd00::1\ncluster_name=lab\n",
     ["join.conf line 1: conf_server entry 'fd00::1' is not host[:port]: give a host name or an address (an IPv6 "
      "address in brackets, [fd00::1]:6817)"]),
    ("conf_server=ctl_1\ncluster_name=lab\n",
     ["join.conf line 1: conf_server entry 'ctl_1' is not host[:port]: give a host name or an address (an IPv6 "
      "address in brackets, [fd00::1]:6817)"]),
    ("conf_server=ctl1:0\ncluster_name=lab\n",
     ["join.conf line 1: conf_server entry 'ctl1:0': port 0 is not 1 to 65535"]),
    ("conf_server=ctl1:70000\ncluster_name=lab\n",
     ["join.conf line 1: conf_server entry 'ctl1:70000': port 70000 is not 1 to 65535"]),
    ("conf_server=ctl1:7000,ctl2\ncluster_name=lab\n",
     ["join.conf line 1: conf_server 'ctl1:7000,ctl2' names the controllers on different ports (6817, 7000); "
      "Slurm's controllers share one SlurmctldPort (6817 when none is given): give each the same port"]),
    ("conf_server=ctl1,CTL1:6817\ncluster_name=lab\n",
     ["join.conf line 1: conf_server names ctl1 more than once: give each controller once"]),
    ("conf_server=ctl1\ncluster_name=my lab\n",
     ["join.conf line 2: cluster_name 'my lab' is not a Slurm ClusterName: letters, digits, '_' and '-', at most "
      "40, as the cluster's slurm.conf has it"]),
    ("conf_server=ctl1\ncluster_name=%s\n" % ("c" * 41),
     ["join.conf line 2: cluster_name '%s' is not a Slurm ClusterName: letters, digits, '_' and '-', at most "
      "40, as the cluster's slurm.conf has it" % ("c" * 41)]),
    (GOOD + "node_name=gpu01.lab.example\n",
     ["join.conf line 3: node_name 'gpu01.lab.example' is not a Slurm node name: letters, digits, '_' and '-', at "
      "most 64, no domain; leave it out to use the short hostname"]),
    (GOOD + "profile=dual 2070\n",
     ["join.conf line 3: profile 'dual 2070' is not a profile name: letters, digits, '_', '.' and '-', at most 64; "
      "leave it out to use the image's own"]),
])
def test_every_join_conf_error_says_where_and_the_fix(text, errors):
    assert parse_join_conf(text)[1] == errors


def test_a_join_conf_that_is_not_one():
    parsed, errors = parse_join_conf("x" * 70000, "/etc/gpuops/node/join.conf")
    assert errors == ["/etc/gpuops/node/join.conf is over 65536 characters; a join.conf has a few lines: is it the "
                      "right file?"]
    assert parsed["conf_server"] is None
    # Bytes that are not UTF-8 (a binary file) are named, never a traceback.
    errors = parse_join_conf(b"\x89PNG\r\n\x1a\n\x00\x00=\x00")[1]
    assert errors[:3] == ["join.conf line 1: '\ufffdPNG' is not key=value: write e.g. conf_server=ctl1:6817",
                          "join.conf line 2: '\\x1a' is not key=value: write e.g. conf_server=ctl1:6817",
                          "join.conf line 3: unknown key '\\x00\\x00': the keys are conf_server, cluster_name, "
                          "node_name, profile"]
    assert len(errors) == 5
    with pytest.raises(NodeJoinError):
        parse_join_conf(None)


@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)))
def test_any_join_conf_gives_one_line_errors_never_an_exception(text):
    parsed, errors = parse_join_conf(text)
    assert all(isinstance(error, str) and "\n" not in error and "\r" not in error for error in errors)
    if not errors:
        assert parsed["conf_server"] and parsed["cluster_name"]


def test_conf_server_forms():
    assert parse_conf_server("[fd00::10]:6817,ctl2") == ([
        {"host": "fd00::10", "port": 6817, "ipv6": True}, {"host": "ctl2", "port": 6817, "ipv6": False}], None)
    assert parse_conf_server("ctl1.cluster.example:7000") == ([
        {"host": "ctl1.cluster.example", "port": 7000, "ipv6": False}], None)
    assert parse_conf_server(" ")[1].startswith("conf_server is empty")
    assert parse_conf_server("[ctl1]")[1].startswith("conf_server entry '[ctl1]' is not host[:port]")


@pytest.mark.parametrize("data, error", [
    (None, "munge.key is missing: the node's overlay must carry the cluster's munge key (/etc/munge/munge.key)"),
    (b"", "munge.key has 0 bytes; munged needs at least 32: copy the cluster's /etc/munge/munge.key (a controller's) "
          "into the overlay"),
    (b"k" * 31, "munge.key has 31 bytes; munged needs at least 32: copy the cluster's /etc/munge/munge.key (a "
                "controller's) into the overlay"),
    (b"k" * MUNGE_KEY_MIN, None),
    (os.urandom(1024), None),
    (b"k" * ((1 << 20) + 1), "munge.key is over 1048576 bytes: not a munge key (mungekey makes 128); copy the "
                             "cluster's"),
])
def test_munge_key(data, error):
    assert munge_key_error(data) == error


def test_munge_key_of_the_wrong_type_is_a_bug():
    with pytest.raises(NodeJoinError):
        munge_key_error(u"text")


def test_node_name_is_join_confs_else_the_short_hostname():
    assert node_name(conf(GOOD + "node_name=gpu-a01\n"), "gpu01.lab") == ("gpu-a01", None)
    assert node_name(conf(), "gpu01.lab.example") == ("gpu01", None)
    assert node_name(conf(), "gpu 01") == (None, "the hostname 'gpu 01' is not a Slurm node name (letters, digits, "
                                                 "'_' and '-'): set node_name= in join.conf")


# ---- the manifest and the node's profile

MANIFEST = {"profile": "dual-2070", "profiles": {"dual-2070": DUAL_2070, "cpu": CPU}}


@pytest.mark.parametrize("text, error", [
    ("{not json", "manifest.json is not JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
                  "(char 1)): rebuild the image"),
    ("", "manifest.json is not JSON (Expecting value: line 1 column 1 (char 0)): rebuild the image"),
    ("[1, 2]", "manifest.json holds list, not a JSON object: rebuild the image"),
    ("[" * 100000, "manifest.json is nested too deep to read: not an image manifest; rebuild the image"),
    (b"\xff\xfe{}", "manifest.json is not JSON (Expecting value: line 1 column 1 (char 0)): rebuild the image"),
])
def test_a_manifest_that_is_not_one(text, error):
    assert parse_manifest(text, "manifest.json") == (None, error)


def test_a_manifest():
    assert parse_manifest(json.dumps(MANIFEST)) == (MANIFEST, None)
    assert parse_manifest(" " * (16 * 65536 + 1), "m.json")[1] == ("m.json is over 1048576 characters: not an image "
                                                                   "manifest; rebuild the image")


def test_the_profile_is_join_confs_else_the_images_else_its_only_one():
    assert node_profile(MANIFEST, conf(GOOD + "profile=cpu\n")) == ("cpu", CPU, None)
    assert node_profile(MANIFEST, conf()) == ("dual-2070", DUAL_2070, None)
    assert node_profile({"profile": None, "profiles": {"only": DUAL_2070}}, conf()) == ("only", DUAL_2070, None)


@pytest.mark.parametrize("manifest, text, error", [
    ({"profile": None, "profiles": {"a": CPU, "b": DUAL_2070}}, GOOD,
     "this image carries 2 profiles (a, b) and neither join.conf nor the image names the node's: set profile= in "
     "join.conf"),
    (MANIFEST, GOOD + "profile=h100\n",
     "join.conf names profile 'h100', which this image does not carry (it carries cpu, dual-2070): fix profile= in "
     "the node's overlay, or boot an image built with it"),
    ({"profile": "h100", "profiles": {"a": CPU}}, GOOD,
     "the image manifest's profile 'h100' is not one of its profiles (a): rebuild the image, or set profile= in "
     "join.conf"),
    ({"profile": 7, "profiles": {"a": CPU}}, GOOD,
     "the image manifest's profile 7 is not one of its profiles (a): rebuild the image, or set profile= in join.conf"),
    ({"profiles": {}}, GOOD,
     "the image manifest has no profiles ({}): rebuild the image with the node's hardware profile"),
    ({}, GOOD, "the image manifest has no profiles (None): rebuild the image with the node's hardware profile"),
    ({"profiles": {"a": "gpu:t4:1"}}, GOOD, "the image's profile 'a' is 'gpu:t4:1', not an object: rebuild the image"),
    ({"profiles": {"a": {"gpu_count": 1}}}, GOOD,
     "the image's profile 'a' has no gres_value text (None): rebuild the image"),
    ({"profiles": {"a": {"gres_value": "", "gpu_count": True}}}, GOOD,
     "the image's profile 'a' has gpu_count True, not a whole number: rebuild the image"),
    ({"profiles": {"a": {"gres_value": "", "gpu_count": -1}}}, GOOD,
     "the image's profile 'a' has gpu_count -1, not a whole number: rebuild the image"),
    ({"profiles": {"a": {"gres_value": "gpu:tesla_t4:1", "gpu_count": 2}}}, GOOD,
     "the image's profile 'a' says gpu_count 2 but its gres_value 'gpu:tesla_t4:1' holds 1 GPUs: rebuild the image"),
])
def test_every_profile_error(manifest, text, error):
    assert node_profile(manifest, conf(text)) == (None, None, error)


# ---- the GPU check, over real captures

@pytest.mark.parametrize("capture, profile", [
    ("telegraf_dual_2070-v13.xml", DUAL_2070),
    ("datakit_8x-tesla-v100s-pcie-32gb.xml", {"gres_value": "gpu:tesla_v100s-pcie-32gb:8", "gpu_count": 8}),
    ("gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml", {"gres_value": "gpu:nvidia_h100_80gb_hbm3:1", "gpu_count": 1}),
])
def test_gpus_that_are_the_profiles_pass(capture, profile):
    assert gpu_check(xml(capture), None, profile, profile_name="p") is None


@pytest.mark.parametrize("text, profile, reason", [
    (xml("telegraf_tesla-t4.xml"), DUAL_2070,
     "nvidia-smi shows 1 GPU (gpu:tesla_t4:1); profile p wants 2 GPUs (gpu:nvidia_geforce_rtx_2070:2)"),
    (without_last_gpu(xml("telegraf_dual_2070-v13.xml")), DUAL_2070,
     "nvidia-smi shows 1 GPU (gpu:nvidia_geforce_rtx_2070:1); profile p wants 2 GPUs (gpu:nvidia_geforce_rtx_2070:2)"),
    (without_last_gpu(xml("datakit_8x-tesla-v100s-pcie-32gb.xml")),
     {"gres_value": "gpu:tesla_v100s-pcie-32gb:8", "gpu_count": 8},
     "nvidia-smi shows 7 GPUs (gpu:tesla_v100s-pcie-32gb:7); profile p wants 8 GPUs (gpu:tesla_v100s-pcie-32gb:8)"),
    (xml("telegraf_dual_2070-v13.xml"), CPU,
     "nvidia-smi shows 2 GPUs (gpu:nvidia_geforce_rtx_2070:2); profile p wants no GPU"),
    ("<nvidia_smi_log><gpu id=", DUAL_2070,
     "nvidia-smi -q -x: malformed XML (unclosed token: line 1, column 16); profile p wants 2 GPUs "
     "(gpu:nvidia_geforce_rtx_2070:2)"),
])
def test_gpus_other_than_the_profiles_fail_with_both(text, profile, reason):
    assert gpu_check(text, None, profile, profile_name="p") == reason


def test_the_gres_values_order_does_not_matter():
    profile = {"gres_value": "gpu:b:1,gpu:a:1", "gpu_count": 2}
    two = xml("telegraf_dual_2070-v13.xml")
    assert gpu_check(two.replace("<product_name>NVIDIA GeForce RTX 2070</product_name>", "<product_name>B</product_name>",
                                 1).replace("<product_name>NVIDIA GeForce RTX 2070</product_name>",
                                            "<product_name>A</product_name>", 1), None, profile) is None


def test_a_failing_or_missing_nvidia_smi_fails_a_gpu_profile_with_its_reason():
    failure = smi_failure(9, NO_DRIVER + "\n", "", False, 60)
    assert failure == "nvidia-smi: " + NO_DRIVER
    assert gpu_check(None, failure, DUAL_2070) == (
        "nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
        "latest NVIDIA driver is installed and running.; the profile wants 2 GPUs (gpu:nvidia_geforce_rtx_2070:2)")
    assert gpu_check(None, SMI_MISSING, DUAL_2070, profile_name="p") == (
        "nvidia-smi is not installed (not found on PATH); profile p wants 2 GPUs (gpu:nvidia_geforce_rtx_2070:2)")
    assert gpu_check(None, "nvidia-smi -q -x ran past 60 s", DUAL_2070) == (
        "nvidia-smi -q -x ran past 60 s; the profile wants 2 GPUs (gpu:nvidia_geforce_rtx_2070:2)")


def test_a_profile_without_gpus_passes_where_nvidia_smi_finds_none():
    assert gpu_check(None, SMI_MISSING, CPU) is None
    assert gpu_check(None, smi_failure(9, NO_DRIVER, "", False, 60), CPU) is None
    assert gpu_check(None, smi_failure(6, "No devices were found\n", "", False, 60), CPU) is None
    # ... but a hung nvidia-smi says a driver and a GPU are there.
    assert gpu_check(None, smi_failure(None, "", "", True, 60), CPU) == (
        "nvidia-smi -q -x ran past 60 s; the profile wants no GPU")


@pytest.mark.parametrize("args, line", [
    ((None, "", "", True, 30), "nvidia-smi -q -x ran past 30 s"),
    ((255, "", "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\nsecond\n", False, 30),
     "nvidia-smi: Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"),
    ((9, "\n\nline one\n" + NO_DRIVER, "", False, 30), "nvidia-smi: " + NO_DRIVER),
    ((1, "", "e" * 170 + "\n", False, 30), "nvidia-smi: " + "e" * 160 + "..."),
    ((6, "No devices were found\n", "", False, 30), "nvidia-smi: No devices were found"),
    ((127, "", "", False, 30), "nvidia-smi -q -x exited 127 with no output"),
])
def test_smi_failure_is_its_first_error_line(args, line):
    assert smi_failure(*args) == line


# The telegraf A100 capture has 4 MIG devices of 19968 MiB; -q -x does not name their profile, -L does. No -L of
# that machine was published: this listing is what -L prints for NVIDIA's 1g.20gb profile of the A100-80GB (the
# same reading as test_gpu_facts.A100_LISTING).
A100_LIST = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-513536b6-7d19-9063-b049-1e69664bb298)\n" + "".join(
    "  MIG 1g.20gb     Device  %d: (UUID: MIG-a100-%d)\n" % (index, index) for index in range(4))


def test_mig_devices_are_typed_from_the_listing():
    text = xml("telegraf_a100-sxm4-v12.xml")
    assert needs_listing(text) and not needs_listing(xml("telegraf_tesla-t4.xml")) and not needs_listing("garbage")
    profile = {"gres_value": "gpu:nvidia_a100_1g.20gb:4", "gpu_count": 4}
    assert gpu_check(text, None, profile, A100_LIST) is None
    assert gpu_check(text, None, profile) == ("GPU 0 MIG device 0: profile unknown (nvidia-smi -L names it); the "
                                              "profile wants 4 GPUs (gpu:nvidia_a100_1g.20gb:4)")


def test_gpu_check_takes_a_checked_profile():
    with pytest.raises(NodeJoinError):
        gpu_check(None, SMI_MISSING, {"gpu_count": 0})


# ---- what is written, and the drain

def test_the_client_conf_is_slurms_own_minimal_one():
    assert client_conf("lab", "ctl1:6817,ctl2").splitlines()[1:] == [
        "ClusterName=lab", "SlurmctldPort=6817", "SlurmctldHost=ctl1", "SlurmctldHost=ctl2"]
    assert client_conf("lab", "ctl2:7000,ctl1:7000").splitlines()[1:] == [
        "ClusterName=lab", "SlurmctldPort=7000", "SlurmctldHost=ctl2", "SlurmctldHost=ctl1"]
    assert client_conf("lab", "[fd00::10]").splitlines()[1:] == [
        "ClusterName=lab", "SlurmctldPort=6817", "SlurmctldHost=fd00::10", "CommunicationParameters=EnableIPv6"]
    assert client_conf("lab", "ctl1").startswith("# ")
    with pytest.raises(NodeJoinError):
        client_conf("lab", "ctl1:7000,ctl2")
    with pytest.raises(NodeJoinError):
        client_conf("my lab", "ctl1")


def test_slurmd_env():
    assert slurmd_env("ctl1:6817,ctl2", "gpu01", "gpu01.lab.example").splitlines() == [
        "# Written by gpuops-node-join at boot, read by slurmd's unit (EnvironmentFile=-%s)." % SLURMD_ENV,
        'SLURMD_OPTIONS="--conf-server ctl1:6817,ctl2:6817"']
    assert slurmd_env("[fd00::10]", "rack3-gpu01", "gpu01").splitlines()[1] == (
        'SLURMD_OPTIONS="--conf-server [fd00::10]:6817 -N rack3-gpu01"')
    assert SLURMD_ENV == "/run/gpuops/node-join/slurmd.env"
    with pytest.raises(NodeJoinError):
        slurmd_env("ctl1", "gpu 01", "gpu01")


def test_drain_reason_is_one_line_that_fits():
    assert drain_reason("nvidia-smi shows 1 GPU") == "gpuops-join: nvidia-smi shows 1 GPU"
    assert drain_reason('two\nlines\tand "quotes"\x00') == "gpuops-join: two lines and 'quotes'"
    assert drain_reason("  ") == "gpuops-join: the node's check failed"
    # Cut at 197 characters, the space there dropped, and '...': 199 of REASON_LIMIT (200).
    assert drain_reason("x " * 300) == "gpuops-join: " + "x " * 91 + "x..."
    assert REASON_LIMIT == 200 and len(drain_reason("x" * 300)) == REASON_LIMIT
    assert len(drain_reason("y" * (REASON_LIMIT - len("gpuops-join: ")))) == REASON_LIMIT


@given(st.text(max_size=600))
def test_any_drain_reason_fits_on_one_line(text):
    reason = drain_reason(text)
    assert reason.startswith("gpuops-join: ") and len(reason) <= REASON_LIMIT
    assert len(reason.splitlines()) == 1 and '"' not in reason


@pytest.mark.parametrize("line, ours", [
    ("NodeName=gpu01 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 Reason=gpuops-join: nvidia-smi shows 1 GPU "
     "[root@2026-12-01T10:00:00] Comment=x", True),
    ("NodeName=gpu01 State=DOWN+DRAIN+NOT_RESPONDING Reason=gpuops-join: x [root@2026-12-01T10:00:00]", True),
    ("NodeName=gpu01 State=IDLE Reason=gpuops-join: x [root@2026-12-01T10:00:00]", False),
    ("NodeName=gpu01 State=IDLE+DRAIN Reason=gpuops-health: gpu_count [root@2026-12-01T10:00:00]", False),
    ("NodeName=gpu01 State=IDLE+DRAIN Reason=fan [admin@2026-12-01T10:00:00]", False),
    ("NodeName=gpu011 State=IDLE+DRAIN Reason=gpuops-join: x", False),
    ("", False),
])
def test_own_drain(line, ours):
    assert own_drain(line, "gpu01") is ours


def test_the_plan_of_a_passing_node():
    plan = join_plan(conf(), "gpu01", "dual-2070", None, True, "gpu01.lab.example", "/run/j", "/etc/munge/munge.key")
    assert [(step["step"], step.get("unit")) for step in plan] == [
        ("munge_key", None), ("start", "munge"), ("slurmd_env", None), ("client_conf", None), ("resume", None),
        ("node_env", None), ("start", "slurmd")]
    assert plan[0]["write"] and plan[2]["path"] == "/run/j/slurmd.env" and plan[3]["path"] == "/run/j/slurm.conf"
    assert plan[2]["content"] == slurmd_env("ctl1:6817,ctl2", "gpu01", "gpu01.lab.example")
    assert plan[3]["content"] == client_conf("lab", "ctl1:6817,ctl2")
    assert plan[4]["argv"] == ["update", "NodeName=gpu01", "State=RESUME"]
    assert plan[5]["path"] == "/run/j/node.env" and plan[5]["content"] == node_env("gpu01", None)


def test_the_plan_of_a_failing_node_drains_before_slurmd():
    plan = join_plan(conf(), "gpu01", "dual-2070", "nvidia-smi shows 1 GPU", False, "gpu01")
    assert [step["step"] for step in plan] == ["munge_key", "start", "slurmd_env", "client_conf", "drain",
                                               "node_env", "start"]
    assert not plan[0]["write"] and plan[0]["what"] == "/etc/munge/munge.key already holds the overlay's munge key"
    assert plan[2]["path"] == SLURMD_ENV
    assert plan[4]["argv"] == ["update", "NodeName=gpu01", "State=DRAIN", "Reason=gpuops-join: nvidia-smi shows 1 GPU"]
    assert plan[6]["what"] == "systemctl start slurmd (only once the drain is made)"
    with pytest.raises(NodeJoinError):
        join_plan({"conf_server": None}, "gpu01", "p", None, False, "gpu01")


@pytest.mark.parametrize("address, shown, listen", [
    ("10.1.2.3", "10.1.2.3", "10.1.2.3"),
    ("fd00::1", "fd00::1", "[fd00::1]"),
    (None, "127.0.0.1", "127.0.0.1"),
    ("", "127.0.0.1", "127.0.0.1"),
])
def test_the_node_env_gives_the_exporters_this_boots_address(address, shown, listen):
    text = node_env("gpu01", address)
    assert text.splitlines()[1:] == ["GPUOPS_NODE_NAME=gpu01", "GPUOPS_NODE_ADDRESS=" + shown,
                                     "GPUOPS_NODE_LISTEN=" + listen]
    plan = join_plan(conf(), "gpu01", "p", None, False, "gpu01", address=address)
    assert [step for step in plan if step["step"] == "node_env"][0]["what"].endswith(
        "(the exporters listen on %s)" % shown)


@pytest.mark.parametrize("node, address", [("gpu 01", "10.0.0.1"), ("gpu01", "10.0.0.1; rm"), ("gpu01", "host")])
def test_the_node_env_refuses_what_is_no_name_or_address(node, address):
    with pytest.raises(NodeJoinError):
        node_env(node, address)


def test_the_result_record():
    assert result("gpu01", "p", None, False, True, "t") == {
        "node": "gpu01", "profile": "p", "check": "passed", "reason": None, "drained": False,
        "slurmd_started": True, "time": "t"}
    assert result("gpu01", "p", "why", True, True, "t", resumed=False)["check"] == "failed"


@pytest.mark.parametrize("manifest, label", [
    ({"name": "gpuops-node", "version": "2"}, "gpuops-node:2"),
    ({"name": " gpuops-node ", "version": "2.1+b1"}, "gpuops-node:2.1+b1"),
    ({"name": "gpuops-node"}, None),
    ({"name": "gpu node", "version": "2"}, None),
    ({"name": "gpuops-node", "version": 2}, None),
    ([], None),
    (None, None),
])
def test_the_image_label_comes_from_the_manifest(manifest, label):
    assert image_label(manifest) == label


def test_a_join_with_an_image_label_records_it_before_slurmd_starts():
    conf, errors = parse_join_conf("conf_server = ctl\ncluster_name = lab\n")
    assert errors == []
    steps = join_plan(conf, "gpu01", "p", None, False, "gpu01", image="gpuops-node:2")
    assert [step["step"] for step in steps][-2:] == ["record_image", "start"]
    assert steps[-2]["argv"] == ["update", "NodeName=gpu01", "Comment=" + image_comment("gpuops-node:2")]
    assert image_comment("gpuops-node:2") == "gpuops-image=gpuops-node:2"
    assert "record_image" not in [step["step"] for step in join_plan(conf, "gpu01", "p", None, False, "gpu01")]


def test_a_profiles_gpus_become_the_health_checks_expectation():
    profile = {"gres_value": "gpu:nvidia_h100_80gb_hbm3:8",
               "gres_lines": ["Name=gpu Type=nvidia_h100_80gb_hbm3 File=/dev/nvidia[0-7]"]}
    assert profile_minors(profile) == list(range(8))
    built = {"node": "build01", "checks": {}, "expect": {"gpu_count": 0, "driver_version": "580.95.05", "ib_ports": ["mlx5_0:1"]}}
    new = health_settings(built, "gpu0001", profile)
    assert new["node"] == "gpu0001" and new["checks"] == {}
    assert new["expect"] == {"gpu_count": 8, "gpu_types": {"nvidia_h100_80gb_hbm3": 8}, "pci_bus_ids": [],
                             "gpu_minors": list(range(8)), "driver_version": "580.95.05", "ib_ports": ["mlx5_0:1"]}
    assert built["node"] == "build01"


@pytest.mark.parametrize("lines, minors", [
    (["Name=gpu Type=a File=/dev/nvidia0", "Name=gpu Type=b File=/dev/nvidia[2-3]"], [0, 2, 3]),
    (["Name=gpu Type=a File=/dev/nvidia[0-"], []),
    (["Name=gpu Type=a MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap21"], []),
    ([7], []),
])
def test_profile_minors_read_the_device_files(lines, minors):
    assert profile_minors({"gres_lines": lines}) == minors


def test_health_settings_refuse_what_node_health_never_writes():
    assert health_settings([1], "n", DUAL_2070) is None
    assert health_settings({}, "n", None) is None
