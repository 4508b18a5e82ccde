"""The chrony role's preflight (tags preflight, --check) refuses bad settings with a message that names the fix."""

import pytest

from _preflight import REPO, local_host, run_playbook

PLAYBOOK = REPO / "playbooks" / "chrony.yml"


def run(tmp_path, host_vars, controller=True):
    host = local_host(host_vars)
    children = {"slurm_compute": {"hosts": {"node": host}}}
    if controller:
        children["slurm_controller"] = {"hosts": {"ctl": host}}
    return run_playbook(tmp_path, PLAYBOOK, {"children": children})


@pytest.mark.parametrize("host_vars", [
    pytest.param({"chrony_allow": ["10.0.0.0/16"]}, id="controller-serves"),
    pytest.param({"chrony_servers": ["ntp1.example.com iburst", {"host": "10.1.2.3", "options": ["prefer"]}]},
                 id="site-servers"),
])
def test_good_settings_pass(tmp_path, host_vars):
    rc, out = run(tmp_path, host_vars)
    assert rc == 0, out
    assert "failed=0" in out


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"chrony_servers": ["ntp_1.example.com iburst"]},
                 "chrony: chrony_servers[1]: ntp_1.example.com is not a host name or an IP address", id="bad-name"),
    pytest.param({"chrony_servers": ["ntp1.example.com iburts"]},
                 "chrony_servers[1] (ntp1.example.com): iburts is not a chrony source option", id="bad-option"),
    pytest.param({"chrony_allow": ["10.0.0.1/16"]},
                 "chrony: chrony_allow[1] 10.0.0.1/16 is not a network: write it as address/prefix with the host bits "
                 "zero (10.0.0.0/16, fd00::/64), a single address, or all", id="allow-host-bits"),
    pytest.param({"chrony_allow": ["cluster"]}, "chrony_allow[1] cluster is not a network", id="allow-not-a-network"),
    pytest.param({"chrony_serve": "sometimes", "chrony_allow": ["10.0.0.0/16"]},
                 "chrony_serve must be auto, true or false, not sometimes", id="serve"),
    pytest.param({"chrony_makestep": "1", "chrony_allow": ["10.0.0.0/16"]},
                 "chrony_makestep must be '<threshold seconds> <limit of updates>'", id="makestep"),
    pytest.param({"chrony_local_stratum": 20, "chrony_allow": ["10.0.0.0/16"]},
                 "chrony_local_stratum must be 1 to 15", id="stratum"),
    pytest.param({"chrony_servers": "ntp1.example.com"}, "chrony_servers", id="servers-not-a-list"),
    pytest.param({"chrony_server_host": "elsewhere"},
                 "chrony_servers is empty and there is no time server: chrony_server_host is \"elsewhere\"",
                 id="server-host-unknown"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert expected in out, out


def test_no_time_source_is_refused(tmp_path):
    rc, out = run(tmp_path, {}, controller=False)
    assert rc != 0, out
    assert ("chrony_servers is empty and there is no time server: chrony_server_host is \"\" and the group "
            "slurm_controller (slurm_controller_group) has 0 hosts. Set chrony_servers to your site NTP servers, or "
            "chrony_server_host to an inventory host") in out, out
