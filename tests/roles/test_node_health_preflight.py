"""The node_health role's preflight (tags preflight, --check) refuses bad settings with a message that names the fix."""

import pytest

from _preflight import REPO, run_on_compute

PLAYBOOK = REPO / "playbooks" / "node_health.yml"


def run(tmp_path, host_vars):
    return run_on_compute(tmp_path, PLAYBOOK, host_vars)


def test_defaults_pass(tmp_path):
    rc, out = run(tmp_path, {})
    assert rc == 0, out
    assert "failed=0" in out


def test_site_settings_pass(tmp_path):
    log = tmp_path / "kern.log"
    log.write_text("")
    rc, out = run(tmp_path, {"node_health_kernel_log": str(log), "node_health_xid_drain": [79, "48"],
                             "node_health_checks": {"persistence_mode": False, "diag": True},
                             "node_health_temp_slowdown_margin_c": 3,
                             "node_health_active_schedule": "Sun *-*-* 03:00:00",
                             "node_health_active_expect": {"H100 SXM": {"gpu_matmul": 700, "nccl_allreduce": 350.5}},
                             "node_health_active_tolerance": 0.1, "node_health_diag_level": 2})
    assert rc == 0, out


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"node_health_xid_drain": [79, "foo"]},
                 "node_health_xid_drain has unknown XID(s) 'foo': give numbers from NVIDIA's XID catalogue (8, 13,",
                 id="unknown-xid"),
    pytest.param({"node_health_xid_drain": [1000]}, "node_health_xid_drain has unknown XID(s) 1000", id="xid-1000"),
    pytest.param({"node_health_checks": {"ecc": False}},
                 "node_health_checks names unknown check(s) ecc: use nvidia_smi, gpu_count,", id="unknown-check"),
    pytest.param({"node_health_kill_wait_s": 0},
                 "node_health_kill_wait_s is 0: give a whole number of seconds from 1 to 120.", id="kill-wait-0"),
    pytest.param({"node_health_nvidia_smi_timeout_s": 900},
                 "node_health_nvidia_smi_timeout_s is 900: give a whole number of seconds from 1 to 300.",
                 id="smi-timeout-too-long"),
    pytest.param({"node_health_kernel_log": "/nonexistent/kern.log"},
                 "node_health_kernel_log is /nonexistent/kern.log, which is not a file on node: give the file your "
                 "syslog daemon writes kernel messages to (kern.log), or /dev/kmsg.", id="missing-log-file"),
    pytest.param({"node_health_rdma_expected": "sometimes"},
                 "node_health_rdma_expected is 'sometimes': give auto, true or false.", id="rdma-expected"),
    pytest.param({"node_health_memory_drain": ["ecc"]}, "node_health_memory_drain", id="memory-kind"),
    pytest.param({"node_health_temp_slowdown_margin_c": 45},
                 "node_health_temp_slowdown_margin_c is 45: give a whole number of degrees Celsius from 0 (drain once "
                 "a GPU reaches its slowdown temperature) to 30 (drain that far below it).", id="slowdown-margin"),
    pytest.param({"node_health_active_schedule": "every full moon"},
                 "node_health_active_schedule is every full moon, which systemd cannot read", id="active-schedule"),
    pytest.param({"node_health_active_tolerance": 2},
                 "node_health_active_tolerance must be a fraction from 0.0 to 0.9", id="active-tolerance"),
    pytest.param({"node_health_active_expect": {"H100 SXM": {"matmul": 700}}},
                 "node_health_active_expect['H100 SXM'] names 'matmul': the measured checks are gpu_matmul,",
                 id="active-expect-check"),
    pytest.param({"node_health_active_timeout_s": 10},
                 "node_health_active_timeout_s must be a whole number of seconds from 60 to 86400, not 10",
                 id="active-timeout"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert expected in out, out
