# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A bound on what one call may cost, in CPU time of this process (not wall time: a busy machine cannot fail it).

``bounded(seconds, function, *args)`` runs the call under a SIGPROF timer:
a call that uses more CPU than that is interrupted where it is (the regex
engine checks for signals as it goes, so a pattern that would backtrack for
hours stops too) and the test fails saying so, instead of hanging the run.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import gc
import signal
import threading
import time

import pytest


class OverBudget(BaseException):
    """Raised by the timer inside the call (a BaseException, so that no except Exception in the code swallows it)."""


def _expire(_signum, _frame):
    raise OverBudget()


def bounded(seconds, function, *args, **kwargs):
    """(result, CPU seconds) of function(*args, **kwargs); the test fails once the call has used seconds of CPU.

    The garbage collector is held off meanwhile (its pauses are not the call's cost). Where the
    platform has no SIGPROF timer, or outside the main thread, the call runs unbounded and only its time is
    measured.
    """
    # A signal handler can only be set in the main thread (pytest's, or a forked child's only thread).
    timer = getattr(signal, "ITIMER_PROF", None) if threading.current_thread() is threading.main_thread() else None
    collecting = gc.isenabled()
    gc.disable()
    previous = signal.signal(signal.SIGPROF, _expire) if timer is not None else None
    started = time.process_time()
    try:
        if timer is not None:
            signal.setitimer(timer, seconds)
        try:
            result = function(*args, **kwargs)
        finally:
            if timer is not None:
                signal.setitimer(timer, 0)
    except OverBudget:
        pytest.fail("%s used more than %.2f s of CPU time on one input" % (getattr(function, "__name__", function),
                                                                           seconds), pytrace=False)
    finally:
        if timer is not None:
            signal.signal(signal.SIGPROF, previous)
        if collecting:
            gc.enable()
    return result, time.process_time() - started
