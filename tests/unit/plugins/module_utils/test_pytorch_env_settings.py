# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch_env role's settings (module_utils/site/_pytorch_env_settings.py): every message, all problems at once,
pip's environment and the directories."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.site._pytorch_env_settings import (
    PytorchEnvError,
    directories,
    pip_env,
    settings_errors,
)

DEFAULTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "pytorch_env", "defaults",
                        "main.yml")
KEYS = ("version", "build", "root", "offline", "index_url", "extra_index_url", "find_links", "pip_cert",
        "base_packages", "extra_packages", "system_packages", "system_packages_dir")
INDEX = "https://download.pytorch.org/whl/cpu"


def settings(**change):
    """The settings the role passes with its defaults."""
    with open(DEFAULTS) as handle:
        defaults = yaml.safe_load(handle)
    value = dict((key, defaults["pytorch_env_" + key]) for key in KEYS)
    value.update(change)
    return value


OFFLINE_FIX = ("Fix: pytorch_env_offline needs pytorch_env_find_links (a wheelhouse on the hosts) or "
               "pytorch_env_index_url (a local index).")
PACKAGES_FIX = ("Fix: pytorch_env_system_packages is a list of Python package names (such as mpi4py, not "
                "python3-mpi4py).")
BAD = [
    ({"version": "latest"}, 'pytorch_env: pytorch_env_version is "latest". Fix: pytorch_env_version is a release such '
                            'as 2.13.0.'),
    ({"version": 2}, "pytorch_env: pytorch_env_version is 2. Fix: pytorch_env_version is a release such as 2.13.0."),
    ({"build": "cuda12"}, 'pytorch_env: pytorch_env_build is "cuda12". Fix: pytorch_env_build is cpu or a CUDA '
                          'flavour such as cu124.'),
    ({"root": "opt/pytorch"}, 'pytorch_env: pytorch_env_root is "opt/pytorch". Fix: pytorch_env_root is an absolute '
                              'path.'),
    ({"index_url": None}, "pytorch_env: pytorch_env_index_url is null. Fix: pytorch_env_index_url is a URL, or empty "
                          "for PyTorch's index for the build."),
    ({"extra_index_url": 3}, "pytorch_env: pytorch_env_extra_index_url is 3. Fix: pytorch_env_extra_index_url is a "
                             "URL, or empty for none."),
    ({"pip_cert": []}, "pytorch_env: pytorch_env_pip_cert is []. Fix: pytorch_env_pip_cert is the path of a CA bundle "
                       "on the hosts, or empty for pip's own."),
    ({"find_links": "/opt/wheelhouse"}, 'pytorch_env: pytorch_env_find_links is "/opt/wheelhouse". Fix: '
                                        'pytorch_env_find_links is a list of strings.'),
    ({"base_packages": "numpy"}, 'pytorch_env: pytorch_env_base_packages is "numpy". Fix: pytorch_env_base_packages '
                                 'is a list of strings.'),
    ({"extra_packages": {"a": 1}}, 'pytorch_env: pytorch_env_extra_packages is {"a": 1}. Fix: '
                                   'pytorch_env_extra_packages is a list of strings.'),
    ({"find_links": ["/srv/wheels", 5]}, 'pytorch_env: pytorch_env_find_links is ["/srv/wheels", 5]. Fix: '
                                         'pytorch_env_find_links is a list of strings.'),
    ({"system_packages": ["python3-mpi4py"]}, 'pytorch_env: pytorch_env_system_packages is ["python3-mpi4py"]. '
                                              + PACKAGES_FIX),
    ({"system_packages": "mpi4py"}, 'pytorch_env: pytorch_env_system_packages is "mpi4py". ' + PACKAGES_FIX),
    ({"system_packages_dir": "dist-packages"}, 'pytorch_env: pytorch_env_system_packages_dir is "dist-packages". '
                                               'Fix: pytorch_env_system_packages_dir is an absolute path.'),
    ({"offline": True}, "pytorch_env: pytorch_env_offline is true with pytorch_env_find_links [] and "
                        'pytorch_env_index_url "". ' + OFFLINE_FIX),
    ({"offline": "yes"}, "pytorch_env: pytorch_env_offline is true with pytorch_env_find_links [] and "
                         'pytorch_env_index_url "". ' + OFFLINE_FIX),
]


def test_the_defaults_have_no_errors():
    assert settings_errors(settings()) == []


@pytest.mark.parametrize("good", [
    {"version": "2.13"}, {"version": 2.13}, {"build": "cu124"}, {"build": "rocm6.2"},
    {"offline": True, "find_links": ["/srv/wheels"]}, {"offline": True, "index_url": "http://pypi.local/simple"},
    {"offline": "no"}, {"system_packages": []}, {"system_packages": ["mpi4py", "_x"]},
])
def test_good_settings_have_no_errors(good):
    assert settings_errors(settings(**good)) == []


@pytest.mark.parametrize("change, message", BAD, ids=[str(index) for index in range(len(BAD))])
def test_each_bad_setting_gives_its_message(change, message):
    assert settings_errors(settings(**change)) == [message]


def test_several_bad_settings_give_every_message():
    chosen = [BAD[index] for index, (change, _message) in enumerate(BAD)
              if change in ({"version": "latest"}, {"build": "cuda12"}, {"root": "opt/pytorch"},
                            {"find_links": "/opt/wheelhouse"}, {"system_packages": ["python3-mpi4py"]},
                            {"system_packages_dir": "dist-packages"})]
    assert len(chosen) == 6
    change = {}
    for one, _message in chosen:
        change.update(one)
    change["offline"] = True
    offline = ('pytorch_env: pytorch_env_offline is true with pytorch_env_find_links "/opt/wheelhouse" and '
               'pytorch_env_index_url "". ')
    errors = settings_errors(settings(**change))
    # A wheelhouse given as text is still given: only its type is wrong.
    assert errors == [message for _change, message in chosen]
    change["find_links"] = ""
    errors = settings_errors(settings(**change))
    assert errors[-1] == offline.replace('"/opt/wheelhouse"', '""') + OFFLINE_FIX
    assert len(errors) == len(chosen) + 1


@pytest.mark.parametrize("value", [None, [], "x", 3, {"version": object()}])
def test_garbage_gives_messages(value):
    errors = settings_errors(value)
    assert errors and all(message.startswith("pytorch_env: ") and "pytorch_env_" in message for message in errors)


@pytest.mark.parametrize("change, expected", [
    ({}, {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_INDEX_URL": INDEX}),
    ({"offline": True, "find_links": ["/srv/a", "/srv/b"], "pip_cert": "/etc/ssl/ca.pem"},
     {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "/srv/a /srv/b",
      "PIP_CERT": "/etc/ssl/ca.pem"}),
    ({"offline": True, "index_url": "http://pypi.local/simple", "extra_index_url": "http://extra.local/simple"},
     {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_INDEX_URL": INDEX,
      "PIP_EXTRA_INDEX_URL": "http://extra.local/simple"}),
])
def test_pip_env(change, expected):
    assert pip_env(settings(**change), INDEX + "\n") == expected


def test_pip_env_of_bad_settings_says_what_is_wrong():
    with pytest.raises(PytorchEnvError, match="pytorch_env_build"):
        pip_env(settings(build="cuda"), INDEX)


def test_directories_parents_first_each_once():
    assert directories(["/opt/gpuops/pytorch/2.13.0-cpu", "/opt/gpuops/modulefiles/pytorch",
                        "/opt/gpuops/examples/ddp"]) == [
        "/opt/gpuops", "/opt/gpuops/pytorch", "/opt/gpuops/pytorch/2.13.0-cpu", "/opt/gpuops/modulefiles",
        "/opt/gpuops/modulefiles/pytorch", "/opt/gpuops/examples", "/opt/gpuops/examples/ddp"]
    assert directories(["/srv"]) == []


@pytest.mark.parametrize("value", [None, "/opt/x", ["opt/x"], [3]])
def test_directories_of_garbage(value):
    with pytest.raises(PytorchEnvError):
        directories(value)
