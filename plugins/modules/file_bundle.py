#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: file_bundle
short_description: Manage several small files and directories in one call
version_added: 0.1.0
description:
  - Makes a list of directories, small text files (content given inline) and absent paths match what
    is asked, in order, in one remote call. Each file is written atomically and only when its content
    differs; owner, group and mode are set only when they differ.
  - The Slurm roles use it for configuration files that notify the same handler. One call instead of
    three or four per file matters on a first converge, where every file is new.
  - It can first make the local groups and users the files belong to (O(groups), O(users)), with the
    same rules as M(gpuops.cluster.local_accounts), so a fresh host gets its daemon accounts and their
    files in one remote call.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  groups:
    description:
      - Local groups to make first, each with C(name), C(gid) and optionally C(system), as
        M(gpuops.cluster.local_accounts) takes them.
    type: list
    elements: dict
    default: []
  users:
    description:
      - Local users to make first (after O(groups)), each with C(name), C(uid), C(group), C(home),
        C(shell) and optionally C(comment) and C(system), as M(gpuops.cluster.local_accounts) takes them.
      - An id that another account holds stops the module before any file is written.
    type: list
    elements: dict
    default: []
  files:
    description: The entries, applied in order (create a directory before the files in it).
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: Absolute path.
        type: path
        required: true
      state:
        description:
          - V(file) writes O(files[].content) (or, without content, only sets the attributes of an
            existing file); V(directory) creates the directory, and any missing parent as
            C(mkdir -p) does (mode 0755); V(absent) removes a file or an empty
            directory.
        type: str
        choices: [file, directory, absent]
        default: file
      content:
        description: Text the file must hold. Omit it to manage only the attributes of an existing file.
        type: str
      content_b64:
        description:
          - The bytes the file must hold, base64-encoded, for binary content such as a munge key made by
            C(mungekey). Mutually exclusive with O(files[].content).
          - Diff mode shows only the size and checksum of binary content.
        type: str
      owner:
        description: Owner name.
        type: str
      group:
        description: Group name.
        type: str
      mode:
        description: Mode as an octal string such as V(0644).
        type: str
      keep_previous:
        description:
          - When the file exists and its content changes, first keep the old bytes in C(<path>.gpuops-prev)
            (written atomically, with the original's owner, group and mode), so a rollback can put them back.
        type: bool
        default: false
extends_documentation_fragment:
  - gpuops.cluster.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
notes:
  - Use C(no_log) on the task when a content is secret (the munge key), since diff mode shows contents.
"""

EXAMPLES = r"""
- name: Write slurm.conf and cgroup.conf in one call
  gpuops.cluster.file_bundle:
    files:
      - {path: /etc/slurm, state: directory, owner: root, group: root, mode: "0755"}
      - {path: /etc/slurm/slurm.conf, content: "{{ slurm_conf }}", owner: root, group: root, mode: "0644"}
      - {path: /etc/slurm/cgroup.conf, content: "{{ cgroup_conf }}", owner: root, group: root, mode: "0644"}
  notify: reconfigure slurm
"""

RETURN = r"""
account_changes:
  description: One line per group or user created or changed (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
  sample: ["group munge: created with gid 64030"]
previous:
  description: The files whose earlier version was kept (O(files[].keep_previous)) in this call, and where.
  returned: always
  type: list
  elements: dict
  sample: [{"path": "/etc/slurm/slurm.conf", "backup": "/etc/slurm/slurm.conf.gpuops-prev"}]
changed_paths:
  description: The paths that were (or in check mode would be) created, changed or removed.
  returned: always
  type: list
  elements: str
  sample: ["/etc/slurm/slurm.conf"]
"""

import base64
import binascii
import grp
import hashlib
import os
import pwd

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text
from ansible_collections.gpuops.cluster.plugins.module_utils.common._atomic_write import write_atomically
from ansible_collections.gpuops.cluster.plugins.module_utils.site._local_accounts import ensure, host_accounts


def _attrs(module, entry, path):
    return module.load_file_common_arguments(
        dict(path=path, owner=entry.get("owner"), group=entry.get("group"), mode=entry.get("mode"))
    )


def _make_parents(path):
    """Missing parent directories, as mkdir -p makes them (root's, mode 0755)."""
    if path and not os.path.isdir(path):
        _make_parents(os.path.dirname(path.rstrip("/")))
        os.mkdir(path, 0o755)
        os.chmod(path, 0o755)


def _write_file(module, path, data):
    directory = os.path.dirname(path) or "/"
    if not os.path.isdir(directory):
        module.fail_json(msg="file_bundle: %s: directory %s does not exist; list it before the file" % (path, directory))
    write_atomically(module, path, data, ".file_bundle.")


def _summary(data):
    return "binary, %d bytes, sha1 %s\n" % (len(data), hashlib.sha1(data).hexdigest())


def _keep_previous(module, path, before, previous):
    backup = path + ".gpuops-prev"
    write_atomically(module, backup, before, ".file_bundle.")
    status = os.stat(path)
    os.chown(backup, status.st_uid, status.st_gid)
    os.chmod(backup, status.st_mode & 0o7777)
    previous.append(dict(path=path, backup=backup))


def _apply(module, entry, diffs, previous):
    path = entry["path"]
    state = entry["state"]
    check = module.check_mode
    changed = False
    if state == "absent":
        if os.path.lexists(path):
            diffs.append(dict(before_header=path, after_header=path, before="present\n", after="absent\n"))
            if not check:
                if os.path.isdir(path) and not os.path.islink(path):
                    os.rmdir(path)
                else:
                    os.unlink(path)
            return True
        return False
    if state == "directory":
        if not os.path.isdir(path):
            if os.path.lexists(path):
                module.fail_json(msg="file_bundle: %s exists and is not a directory" % path)
            diffs.append(dict(before_header=path, after_header=path, before="absent\n", after="directory\n"))
            changed = True
            if check:
                return True
            _make_parents(os.path.dirname(path.rstrip("/")))
            os.mkdir(path)
    else:
        content = entry.get("content")
        binary = entry.get("content_b64") is not None
        if binary:
            if content is not None:
                module.fail_json(msg="file_bundle: %s: give content or content_b64, not both" % path)
            try:
                content = base64.b64decode(to_bytes(entry["content_b64"]), validate=True)
            except (TypeError, ValueError, binascii.Error):
                module.fail_json(msg="file_bundle: %s: content_b64 is not valid base64" % path)
        exists = os.path.exists(path)
        if exists and not os.path.isfile(path):
            module.fail_json(msg="file_bundle: %s exists and is not a regular file" % path)
        if content is None:
            if not exists:
                module.fail_json(msg="file_bundle: %s does not exist and no content was given for it" % path)
        else:
            data = content if binary else to_bytes(content, errors="surrogate_or_strict")
            before = b""
            if exists:
                with open(path, "rb") as handle:
                    before = handle.read()
            if not exists or before != data:
                if binary:
                    diffs.append(dict(before_header=path, after_header=path, before=_summary(before) if exists else "",
                                      after=_summary(data)))
                else:
                    diffs.append(dict(before_header=path, after_header=path,
                                      before=to_text(before, errors="surrogate_or_replace"),
                                      after=to_text(data, errors="surrogate_or_replace")))
                changed = True
                if check and not exists:
                    return True
                if not check:
                    if exists and entry.get("keep_previous"):
                        _keep_previous(module, path, before, previous)
                    _write_file(module, path, data)
    return module.set_fs_attributes_if_different(_attrs(module, entry, path), changed)


def _accounts(module):
    """Make the wanted groups and users (before any file); the lines of what changed."""
    if not (module.params["groups"] or module.params["users"]):
        return []
    return ensure(module, "file_bundle", module.params["groups"], module.params["users"],
                  host_accounts(grp.getgrall, pwd.getpwall))["changes"]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            groups=dict(type="list", elements="dict", default=[]),
            users=dict(type="list", elements="dict", default=[]),
            files=dict(
                type="list", elements="dict", required=True,
                options=dict(
                    path=dict(type="path", required=True),
                    state=dict(type="str", default="file", choices=["file", "directory", "absent"]),
                    content=dict(type="str"),
                    content_b64=dict(type="str", no_log=True),
                    owner=dict(type="str"),
                    group=dict(type="str"),
                    mode=dict(type="str"),
                    keep_previous=dict(type="bool", default=False),
                ),
            ),
        ),
        supports_check_mode=True,
    )
    account_changes = _accounts(module)
    changed_paths = []
    diffs = []
    if account_changes:
        diffs.append(dict(before_header="accounts", after_header="accounts", before="",
                          after="".join(line + "\n" for line in account_changes)))
    previous = []
    for entry in module.params["files"]:
        try:
            if _apply(module, entry, diffs, previous):
                changed_paths.append(entry["path"])
        except (IOError, OSError) as exc:
            module.fail_json(msg="file_bundle: %s: %s" % (entry["path"], to_native(exc)), changed_paths=changed_paths)
    result = dict(changed=bool(changed_paths or account_changes), changed_paths=changed_paths, previous=previous,
                  account_changes=account_changes)
    if module._diff:
        result["diff"] = diffs
    module.exit_json(**result)


if __name__ == "__main__":
    main()
