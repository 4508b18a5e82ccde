# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Test harness only (the Molecule base config enables it): the Docker API
# connection under load sometimes answers an exec with rc 0 and no output at
# all (community.docker issue #644). A command that cannot print nothing then
# fails the task as unreachable, although the container is fine: seen in
# make test as "Error while determining user and group ID of current user in
# container ...: Got value: b''" (the `id -u && id -g` the connection runs
# before its first file copy). This callback, loaded in the main process
# before the workers fork, wraps the connection's exec so that such an answer
# to a command that only reads (`id -u && id -g`, `echo ~...`) is asked once
# more, with a warning. Every other exec, and every real error, is left as it is.
from __future__ import annotations

DOCUMENTATION = r"""
name: gpuops_exec_retry
type: aggregate
short_description: One more try of a read-only exec the Docker API answered with nothing (test harness)
description:
  - Wraps community.docker.docker_api's exec_command in the main process, before the workers
    fork. A command that only reads and always prints (C(id -u && id -g), C(echo ~...)) and
    was answered with rc 0, no output and no error is run once more, with a warning; so is
    Ansible's creation of a task's remote temporary directory, with C(mkdir -p) for the
    directory (unique per task), which succeeds whether or not the first try made it.
requirements:
  - enable in callbacks_enabled (.config/molecule/config.yml does)
"""

import importlib

from ansible.plugins.callback import CallbackBase
from ansible.utils.display import Display

display = Display()
CONNECTION = "ansible_collections.community.docker.plugins.connection.docker_api"


def reads_and_prints(cmd):
    """True for the commands Ansible and the connection run that only read and always print."""
    text = cmd.decode("utf-8", "replace") if isinstance(cmd, bytes) else str(cmd)
    text = text.strip()
    if text == "id -u && id -g":
        return True
    # Ansible's _remote_expand_user: "echo ~" or "echo ~user", wrapped by the shell plugin.
    return "echo ~" in text and "mkdir" not in text


def ask_again(cmd):
    """The command to run after an empty answer to cmd, or None to keep the answer.

    A read-only command is asked again as it is. Ansible's creation of a task's remote
    temporary directory (``umask 77 && mkdir -p BASE && mkdir TMP && echo NAME=TMP``, TMP
    unique per task) may or may not have run: it is asked again with ``mkdir -p TMP``, which
    succeeds either way and prints the name. Anything else runs once.
    """
    if reads_and_prints(cmd):
        return cmd
    text = cmd.decode("utf-8", "replace") if isinstance(cmd, bytes) else str(cmd)
    if "umask 77 && mkdir -p" in text and "ansible-tmp-" in text and text.count('&& mkdir "') == 1:
        again = text.replace('&& mkdir "', '&& mkdir -p "', 1)
        return again.encode("utf-8") if isinstance(cmd, bytes) else again
    return None


def wrap(connection_class):
    """Wrap connection_class.exec_command once; return whether it was wrapped now."""
    if getattr(connection_class.exec_command, "gpuops_exec_retry", False):
        return False
    original = connection_class.exec_command

    def exec_command(self, cmd, *args, **kwargs):
        rc, out, err = original(self, cmd, *args, **kwargs)
        again = ask_again(cmd) if rc == 0 and not out and not err else None
        if again is not None:
            display.warning("gpuops_exec_retry: the Docker API answered %r with nothing (community.docker #644); "
                            "asking once more" % (cmd,))
            rc, out, err = original(self, again, *args, **kwargs)
        return rc, out, err

    exec_command.gpuops_exec_retry = True
    connection_class.exec_command = exec_command
    return True


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpuops_exec_retry"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        try:
            wrap(importlib.import_module(CONNECTION).Connection)
        except ImportError as exc:
            display.warning("gpuops_exec_retry: %s not importable (%s): nothing wrapped" % (CONNECTION, exc))
