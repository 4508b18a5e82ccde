# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: preload
type: aggregate
short_description: Import the collection's controller-side plugins once, before the workers fork
description:
  - ansible-playbook runs every task of every host in a worker process forked from the main
    process. A filter, test, lookup or connection plugin that the main process never imported
    is imported again in each worker, and a collection's Python files are compiled from source
    each time (the collection loader keeps no byte code). This callback imports them once, when
    the playbook starts, so that every worker inherits them.
  - It imports the filter, test, lookup and action plugins of gpuops.cluster (and the
    module_utils they use), Ansible's own filters and tests, and the plugins named in O(plugins).
  - It changes nothing a play does; a plugin that fails to import is reported (with -v) and left
    to the worker, as without this callback.
  - Measured on a no-op run of site.yml over 3 hosts through the Docker API connection, 2 cores
    (docs/performance.md).
version_added: 0.3.0
requirements:
  - enable it in C(callbacks_enabled) (ansible.cfg), for example
    C(callbacks_enabled = gpuops.cluster.preload)
options:
  plugins:
    description:
      - More plugins to import, each as C(TYPE:FQCN), for example
        C(connection:community.docker.docker_api) or C(filter:community.general.dict_kv).
      - TYPE is one of connection, filter, test, lookup, action, become, shell.
    type: list
    elements: str
    default: []
    env:
      - name: GPUOPS_PRELOAD_PLUGINS
    ini:
      - section: callback_gpuops_preload
        key: plugins
"""

import importlib
import os
import time

from ansible.plugins.callback import CallbackBase
from ansible.plugins.loader import (
    action_loader,
    become_loader,
    connection_loader,
    filter_loader,
    lookup_loader,
    shell_loader,
    test_loader,
)

COLLECTION = "gpuops.cluster"
PACKAGE = "ansible_collections.gpuops.cluster.plugins"
LOADERS = {
    "connection": connection_loader,
    "lookup": lookup_loader,
    "action": action_loader,
    "become": become_loader,
    "shell": shell_loader,
}
JINJA_LOADERS = {"filter": filter_loader, "test": test_loader}


def own_plugin_modules(root):
    """The collection's plugin files the controller imports (filter, test, lookup, action), as module names."""
    names = []
    for kind in ("filter", "test", "lookup", "action"):
        folder = os.path.join(root, kind)
        if not os.path.isdir(folder):
            continue
        for entry in sorted(os.listdir(folder)):
            stem, ext = os.path.splitext(entry)
            if ext == ".py" and stem != "__init__":
                names.append("%s.%s.%s" % (PACKAGE, kind, stem))
    return names


def parse_extra(entries):
    """[(type, fqcn)] of the plugins option, and the entries it could not read."""
    wanted, bad = [], []
    for entry in entries or []:
        kind, sep, name = str(entry).partition(":")
        kind, name = kind.strip(), name.strip()
        if not sep or not name or (kind not in LOADERS and kind not in JINJA_LOADERS):
            bad.append(str(entry))
        else:
            wanted.append((kind, name))
    return wanted, bad


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpuops.cluster.preload"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display=display)
        self._done = False

    def v2_playbook_on_start(self, playbook):
        if self._done:
            return
        self._done = True
        started = time.time()
        failed = []
        plugins_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for name in own_plugin_modules(plugins_dir):
            try:
                importlib.import_module(name)
            except Exception as exc:  # pylint: disable=broad-except
                failed.append("%s (%s)" % (name, exc))
        for loader in JINJA_LOADERS.values():
            try:
                list(loader.all())  # Ansible's own filters and tests
            except Exception as exc:  # pylint: disable=broad-except
                failed.append("%s (%s)" % (loader.type, exc))
        wanted, bad = parse_extra(self.get_option("plugins"))
        failed.extend("%s (not TYPE:FQCN)" % entry for entry in bad)
        for kind, name in wanted:
            try:
                if kind in JINJA_LOADERS:
                    found = JINJA_LOADERS[kind].get(name)
                else:
                    found = LOADERS[kind].get(name, class_only=True)
                if found is None:
                    failed.append("%s:%s (not found)" % (kind, name))
            except Exception as exc:  # pylint: disable=broad-except
                failed.append("%s:%s (%s)" % (kind, name, exc))
        self._display.vv("gpuops.cluster.preload: plugins imported in %.2f s" % (time.time() - started))
        if failed:
            self._display.v("gpuops.cluster.preload: left to the workers: %s" % "; ".join(failed))
