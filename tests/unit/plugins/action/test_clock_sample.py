# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The clock_sample action plugin against a simulated host: slow round trips, a clock that is off, failures."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest.mock import MagicMock

import pytest

from ansible.errors import AnsibleActionFail
from ansible_collections.gpuops.cluster.plugins.action import clock_sample
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._clock import skew


class SimulatedHost(object):
    """A host whose clock is ``offset`` s off the Ansible controller's; each command takes ``legs`` (s there, s back)."""

    def __init__(self, clocks, offset, legs, answer=None):
        self.clocks, self.offset, self.legs, self.answer, self.commands = clocks, offset, list(legs), answer, []

    def run(self, cmd, *_args, **_kwargs):
        self.commands.append(cmd)
        there, back = self.legs.pop(0)
        self.clocks.advance(there)
        stdout = self.answer if self.answer is not None else "%.9f\n" % (self.clocks.wall + self.offset)
        self.clocks.advance(back)
        return {"rc": 0, "stdout": stdout, "stderr": ""}


class Clocks(object):
    """The Ansible controller's wall and monotonic clocks, moved by hand."""

    def __init__(self, wall=1795341600.0):
        self.wall, self.mono = wall, 5000.0

    def advance(self, seconds):
        self.wall += seconds
        self.mono += seconds


def action(monkeypatch, host, clocks, **args):
    task = MagicMock(args=args, async_val=0, check_mode=False, action="gpuops.cluster.clock_sample")
    plugin = clock_sample.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    monkeypatch.setattr(plugin, "_low_level_execute_command", host.run)
    monkeypatch.setattr(clock_sample.time, "time", lambda: clocks.wall)
    monkeypatch.setattr(clock_sample.time, "monotonic", lambda: clocks.mono)
    return plugin


def test_reads_the_clock_over_the_connection_and_keeps_the_shortest_round_trip(monkeypatch):
    clocks = Clocks()
    host = SimulatedHost(clocks, 0.25, [(2.0, 0.1), (0.05, 0.05), (0.3, 3.0)])
    out = action(monkeypatch, host, clocks, samples=3).run(task_vars={})
    assert host.commands == ["date +%s.%N"] * 3
    assert out["changed"] is False and not out.get("failed")
    assert out["clock"] == {"offset_s": 0.25, "rtt_s": 0.1, "samples": 3}


def test_the_default_is_five_reads(monkeypatch):
    clocks = Clocks()
    host = SimulatedHost(clocks, 0.0, [(0.01, 0.01)] * 5)
    assert action(monkeypatch, host, clocks).run(task_vars={})["clock"]["samples"] == 5


def test_a_busy_machine_widens_the_bound_and_a_skewed_clock_still_fails(monkeypatch):
    # Every read takes seconds, lopsided both ways: a good node stays within the bound, a node 30 s ahead does not.
    def sample(offset, legs):
        clocks = Clocks()
        return action(monkeypatch, SimulatedHost(clocks, offset, legs), clocks, samples=len(legs)).run(task_vars={})["clock"]

    controller = sample(0.0, [(0.2, 4.0), (3.5, 0.1)])
    good = sample(0.0, [(0.2, 5.0), (6.0, 0.1)])
    measured, uncertainty = skew(good, controller)
    assert (measured, uncertainty) == (pytest.approx(-4.1), pytest.approx(4.4))  # 4.1 s seen, none of it real
    ahead = sample(30.0, [(0.2, 5.0), (6.0, 0.1)])
    measured, uncertainty = skew(ahead, controller)
    assert (measured, uncertainty) == (pytest.approx(25.9), pytest.approx(4.4))  # at least 21.5 s off: fails


def test_a_wall_clock_step_on_the_ansible_controller_does_not_shorten_the_round_trip(monkeypatch):
    clocks = Clocks()
    host = SimulatedHost(clocks, 0.0, [(0.5, 0.5)])

    def step_back(cmd, *args, **kwargs):
        answer = host.run(cmd, *args, **kwargs)
        clocks.wall -= 10.0  # stepped by NTP while the read was under way
        return answer

    plugin = action(monkeypatch, host, clocks, samples=1)
    monkeypatch.setattr(plugin, "_low_level_execute_command", step_back)
    assert plugin.run(task_vars={})["clock"]["rtt_s"] == 1.0


@pytest.mark.parametrize("answer, message", [
    ({"rc": 127, "stdout": "", "stderr": "/bin/sh: 1: date: not found\n"},
     "date +%s.%N failed on the host (rc 127): /bin/sh: 1: date: not found"),
    ({"rc": 0, "stdout": "1795341600.%N\n", "stderr": ""},
     "date +%s.%N printed '1795341600.%N\\n', not seconds since the epoch (GNU date is needed)"),
])
def test_a_clock_that_cannot_be_read_fails_with_the_reason(monkeypatch, answer, message):
    clocks = Clocks()
    plugin = action(monkeypatch, SimulatedHost(clocks, 0.0, []), clocks, samples=2)
    monkeypatch.setattr(plugin, "_low_level_execute_command", lambda *args, **kwargs: answer)
    out = plugin.run(task_vars={})
    assert out["failed"] is True
    assert out["msg"] == message
    assert "clock" not in out


@pytest.mark.parametrize("samples", [0, 51, -1])
def test_samples_out_of_range(monkeypatch, samples):
    clocks = Clocks()
    out = action(monkeypatch, SimulatedHost(clocks, 0.0, []), clocks, samples=samples).run(task_vars={})
    assert out["failed"] is True
    assert out["msg"] == "samples must be a whole number from 1 to 50, not %d" % samples


def test_unknown_options_and_bad_types_are_refused(monkeypatch):
    clocks = Clocks()
    with pytest.raises(AnsibleActionFail, match="Invalid options"):
        action(monkeypatch, SimulatedHost(clocks, 0.0, []), clocks, count=3).run(task_vars={})
    with pytest.raises(AnsibleActionFail, match="samples"):
        action(monkeypatch, SimulatedHost(clocks, 0.0, []), clocks, samples="many").run(task_vars={})


class FlakyHost(SimulatedHost):
    """A host whose first answers come back empty (rc 0, nothing printed), as the Docker API connection gave once."""

    def __init__(self, clocks, offset, legs, empty):
        super(FlakyHost, self).__init__(clocks, offset, legs)
        self.empty = empty

    def run(self, cmd, *args, **kwargs):
        if self.empty > 0:
            self.empty -= 1
            self.commands.append(cmd)
            return {"rc": 0, "stdout": "", "stderr": ""}
        return super(FlakyHost, self).run(cmd, *args, **kwargs)


def test_an_answer_of_nothing_is_read_again(monkeypatch):
    clocks = Clocks()
    host = FlakyHost(clocks, 0.25, [(0.05, 0.05)], empty=2)
    out = action(monkeypatch, host, clocks, samples=1).run(task_vars={})
    assert not out.get("failed") and out["clock"]["offset_s"] == 0.25
    assert len(host.commands) == 3


def test_nothing_again_and_again_is_still_a_failure(monkeypatch):
    clocks = Clocks()
    host = FlakyHost(clocks, 0.25, [], empty=3)
    out = action(monkeypatch, host, clocks, samples=1).run(task_vars={})
    assert out["failed"] and "printed ''" in out["msg"]
    assert len(host.commands) == 3
