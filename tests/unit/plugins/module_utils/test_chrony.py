# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site import _chrony
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import parse_chronyc_tracking

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "chronyc"))
BASE = ["keyfile /etc/chrony/chrony.keys", "driftfile /var/lib/chrony/chrony.drift", "rtcsync"]
HEADER = _chrony.HEADER


def _settings(**kwargs):
    settings = {"servers": [], "server_options": ["iburst"], "time_server": False, "time_server_address": "10.0.0.1",
                "serve": "auto", "allow": [], "default_interface": {"address": "10.0.3.7", "netmask": "255.255.0.0"},
                "local_stratum": 10, "clock_control": "auto", "container": False, "makestep": "1.0 3",
                "base_lines": BASE, "extra_lines": [], "daemon_options": "-F 1", "time_server_known": True,
                "server_host": "", "server_group": "slurm_controller", "server_group_hosts": 1, "distribution": "Debian"}
    settings.update(kwargs)
    return settings


def test_node_uses_the_time_server():
    result = _chrony.config(_settings())
    assert result == {
        "lines": [HEADER, "server 10.0.0.1 iburst"] + BASE + ["makestep 1.0 3"],
        "daemon_options": "-F 1", "serve": False, "clock_control": True, "sources": ["server 10.0.0.1 iburst"],
        "errors": [],
    }


def test_time_server_serves_its_network_from_its_own_clock():
    result = _chrony.config(_settings(time_server=True))
    assert result["errors"] == []
    assert result["lines"] == [HEADER] + BASE + ["makestep 1.0 3", "allow 10.0.0.0/16", "local stratum 10"]
    assert result["serve"] is True


def test_given_allow_wins_and_stratum_zero_means_no_local_line():
    result = _chrony.config(_settings(time_server=True, allow=["172.16.0.0/12", "fd00::/64", "192.168.1.5", "all"],
                                      local_stratum=0))
    assert result["errors"] == []
    assert result["lines"][-4:] == ["allow 172.16.0.0/12", "allow fd00::/64", "allow 192.168.1.5/32", "allow all"]


def test_site_servers_for_every_host_and_no_local_clock():
    servers = ["ntp1.example.com", "ntp2.example.com iburst prefer",
               {"host": "pool.example.org", "pool": True, "options": ["iburst", "maxsources", 4]},
               {"host": "2001:db8::123", "options": ["minpoll", "4", "maxpoll", "6"]}]
    for time_server in (True, False):
        result = _chrony.config(_settings(servers=servers, time_server=time_server))
        assert result["errors"] == []
        assert result["sources"] == ["server ntp1.example.com iburst", "server ntp2.example.com iburst prefer",
                                     "pool pool.example.org iburst maxsources 4",
                                     "server 2001:db8::123 minpoll 4 maxpoll 6"]
        assert result["serve"] is False
        assert not [line for line in result["lines"] if line.startswith(("allow", "local"))]


def test_serving_beside_site_servers_has_no_local_clock():
    result = _chrony.config(_settings(servers=["ntp1.example.com"], time_server=True, serve=True))
    assert result["errors"] == []
    assert "allow 10.0.0.0/16" in result["lines"]
    assert not [line for line in result["lines"] if line.startswith("local")]


def test_container_runs_with_x_and_without_rtcsync():
    result = _chrony.config(_settings(container=True))
    assert result["daemon_options"] == "-F 1 -x"
    assert result["clock_control"] is False
    assert "rtcsync" not in result["lines"]
    forced = _chrony.config(_settings(container=True, clock_control=True))
    assert forced["daemon_options"] == "-F 1" and "rtcsync" in forced["lines"]
    off = _chrony.config(_settings(clock_control=False, daemon_options="-F 1 -x"))
    assert off["daemon_options"] == "-F 1 -x"


def test_extra_lines_and_no_makestep():
    result = _chrony.config(_settings(extra_lines=["log tracking", "hwtimestamp *"], makestep=""))
    assert result["errors"] == []
    assert result["lines"][-2:] == ["log tracking", "hwtimestamp *"]
    assert not [line for line in result["lines"] if line.startswith("makestep")]


@pytest.mark.parametrize("kwargs, message", [
    pytest.param({"servers": ["ntp_1.example.com"]},
                 "chrony_servers[1]: ntp_1.example.com is not a host name or an IP address", id="underscore"),
    pytest.param({"servers": ["-ntp.example.com"]}, "chrony_servers[1]: -ntp.example.com is not a host name",
                 id="leading-dash"),
    pytest.param({"servers": ["10.0.0.300"]}, "chrony_servers[1]: 10.0.0.300 is not a host name", id="bad-ipv4"),
    pytest.param({"servers": ["ntp1; rm -rf /"]}, "chrony_servers[1]: ntp1; is not a host name", id="shell"),
    pytest.param({"servers": ["ntp1.example.com iburts"]},
                 "chrony_servers[1] (ntp1.example.com): iburts is not a chrony source option (flags: auto_offline",
                 id="typo-option"),
    pytest.param({"servers": ["ntp1.example.com maxpoll"]},
                 "chrony_servers[1] (ntp1.example.com): option maxpoll needs a whole number after it, not None",
                 id="option-without-value"),
    pytest.param({"servers": ["ntp1.example.com maxdelay x"]}, "option maxdelay needs a number after it, not x",
                 id="float-option-bad"),
    pytest.param({"servers": ["ntp1.example.com", "NTP1.example.com"]},
                 "chrony_servers lists NTP1.example.com twice: keep one entry", id="duplicate"),
    pytest.param({"servers": [{"host": "ntp1", "opts": ["iburst"]}]},
                 "chrony_servers[1] has unknown keys opts: the keys are host, options, pool", id="typo-key"),
    pytest.param({"servers": [{"host": "ntp1", "options": "iburst"}]},
                 "chrony_servers[1]: options must be a list such as [iburst], not iburst", id="options-string"),
    pytest.param({"servers": [{"host": "ntp1", "pool": "yes"}]}, "chrony_servers[1]: pool must be true or false",
                 id="pool-not-bool"),
    pytest.param({"servers": "ntp1.example.com"}, "chrony_servers must be a list of servers", id="servers-string"),
    pytest.param({"servers": [["ntp1"]]}, "chrony_servers[1] must be 'host [options]' or {host, options, pool}",
                 id="server-list"),
    pytest.param({"server_options": ["fast"]}, "chrony_server_options: fast is not a chrony source option",
                 id="bad-default-option"),
    pytest.param({"time_server": True, "allow": ["10.0.0.1/16"]},
                 "chrony_allow[1] 10.0.0.1/16 is not a network: write it as address/prefix with the host bits zero",
                 id="allow-host-bits"),
    pytest.param({"time_server": True, "allow": ["cluster-net"]}, "chrony_allow[1] cluster-net is not a network",
                 id="allow-name"),
    pytest.param({"time_server": True, "allow": "10.0.0.0/8"}, "chrony_allow must be a list of networks",
                 id="allow-string"),
    pytest.param({"time_server": True, "default_interface": {}},
                 "chrony_allow is empty and the time server's network is unknown", id="no-network"),
    pytest.param({"time_server_address": ""}, "no NTP source for this host: chrony_servers is empty and the time "
                 "server's address (empty) is not a host name or address", id="no-time-server"),
    pytest.param({"serve": "yes"}, "chrony_serve must be auto, true or false, not yes", id="serve-not-bool"),
    pytest.param({"clock_control": "no"}, "chrony_clock_control must be auto, true or false", id="clock-not-bool"),
    pytest.param({"time_server": True, "local_stratum": 16}, "chrony_local_stratum must be 1 to 15", id="stratum"),
    pytest.param({"makestep": "1.0"}, "chrony_makestep must be '<threshold seconds> <limit of updates>'",
                 id="makestep"),
    pytest.param({"extra_lines": ["log tracking\nallow all"]}, "chrony_extra_config must be a list of single",
                 id="extra-multiline"),
])
def test_errors(kwargs, message):
    errors = _chrony.config(_settings(**kwargs))["errors"]
    assert any(message in error for error in errors), errors


def test_not_a_mapping():
    assert _chrony.config(None)["errors"] == ["chrony_*: the chrony settings must be a mapping of the chrony_ variables, "
                                              "not None"]


# What the role's first check was (a time source, and chrony data for the OS), now in the one settings check.
NO_TIME_SERVER = ('chrony_servers is empty and there is no time server: chrony_server_host is "" and the group '
                  "slurm_controller (slurm_controller_group) has 0 hosts. Set chrony_servers to your site NTP servers, "
                  "or chrony_server_host to an inventory host")


@pytest.mark.parametrize("changes, errors", [
    pytest.param({"time_server_known": False, "server_group_hosts": 0, "time_server_address": ""}, [NO_TIME_SERVER],
                 id="no-time-server"),
    pytest.param({"time_server_known": False, "server_host": "elsewhere", "time_server_address": "elsewhere"},
                 ['chrony_servers is empty and there is no time server: chrony_server_host is "elsewhere" and the group '
                  "slurm_controller (slurm_controller_group) has 1 hosts. Set chrony_servers to your site NTP "
                  "servers, or chrony_server_host to an inventory host"], id="server-host-unknown"),
    pytest.param({"time_server_known": False, "servers": ["ntp1.example.com"]}, [], id="site-servers-need-none"),
    pytest.param({"base_lines": None, "distribution": "Gentoo"}, ["no chrony settings for Gentoo (roles/chrony/vars)"],
                 id="os-unknown"),
    pytest.param({"base_lines": None, "distribution": "Gentoo", "time_server_known": False, "server_group_hosts": 0,
                  "makestep": "1"},
                 [NO_TIME_SERVER, "no chrony settings for Gentoo (roles/chrony/vars)",
                  "chrony_makestep must be '<threshold seconds> <limit of updates>' such as '1.0 3' (empty: never "
                  "step), not 1"], id="all-of-them"),
])
def test_time_source_and_os_data(changes, errors):
    assert _chrony.config(_settings(**changes))["errors"] == errors


@pytest.mark.parametrize("name, valid", [
    ("ntp1.example.com", True), ("ntp1.example.com.", True), ("10.1.2.3", True), ("fe80::1", True), ("a" * 63, True),
    ("a" * 64, False), ("", False), (None, False), ("1.2.3", False), ("ntp..example", False), ("ntp-.x", False),
])
def test_valid_host(name, valid):
    assert _chrony.valid_host(name) is valid


def test_interface_network():
    assert _chrony.interface_network("172.31.241.2", "255.255.255.0") == "172.31.241.0/24"
    assert _chrony.interface_network(None, None) == ""


# What validate's clock check reads (parse_chronyc_tracking) from chronyd as this role configures it, captured in
# containers (tests/fixtures/chronyc/SOURCES.md): a node is synchronized to the controller; the controller, serving
# its own clock (local stratum 10, reference 7F7F0101) without site servers, is not synchronized to a real source.
@pytest.mark.parametrize("name, reference, synchronized", [
    ("tracking-4.3-client.txt", "AC1FF102 (172.31.241.2)", True),
    ("tracking-4.6-client.txt", "AC1FF105 (172.31.241.5)", True),
    ("tracking-4.3-local-server.txt", "7F7F0101 ()", False),
    ("tracking-4.6-local-server.txt", "7F7F0101 ()", False),
])
def test_validate_reads_the_captured_tracking(name, reference, synchronized):
    with open(os.path.join(FIXTURES, name)) as handle:
        track = parse_chronyc_tracking(handle.read())
    assert track["reference"] == reference
    assert track["synchronized"] is synchronized
    assert track["leap_status"] == "Normal"
    assert abs(track["offset_s"]) < 0.01
