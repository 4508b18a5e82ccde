"""docs/settings.md and roles/*/README.md are what tools/settings-doc.py makes of the argument specs.

The first test runs the script's ``--check`` on the checkout, so a spec
changed without the documentation fails here; the others pin the table
rendering on a small spec of their own.
"""

import importlib.util
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "settings-doc.py"

_SPEC = importlib.util.spec_from_file_location("settings_doc", SCRIPT)
settings_doc = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(settings_doc)


def test_the_generated_files_match_the_specs():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_role_has_a_page_and_a_section():
    files = settings_doc.generate()
    roles = sorted(path.parent.parent.name for path in ROOT.glob("roles/*/meta/argument_specs.yml"))
    assert sorted(path.split("/")[1] for path in files if path.startswith("roles/")) == roles
    for role in roles:
        assert f'<a id="{role}"></a>' in files["docs/settings.md"], role
    assert "## `gpuops.cluster._slurm_common` (private)" in files["docs/settings.md"]
    assert "### Entry point `model`" in files["docs/settings.md"]


def test_the_output_is_deterministic():
    assert settings_doc.generate() == settings_doc.generate()


def test_check_names_a_missing_or_changed_file(tmp_path):
    (tmp_path / "same.md").write_text("a\n", encoding="utf-8")
    (tmp_path / "changed.md").write_text("old\n", encoding="utf-8")
    files = {"same.md": "a\n", "changed.md": "new\n", "missing.md": "x\n"}
    assert settings_doc.stale(files, root=tmp_path) == ["changed.md", "missing.md"]


SMALL_SPEC = {
    "demo_filter": {
        "type": "str",
        "default": "{{ groups['x'] | default([]) | first }}",
        "description": "A Jinja default with pipes; see C(a|b) and O(demo_mode).",
    },
    "demo_mode": {
        "type": "str",
        "default": "auto",
        "choices": ["auto", "on|off"],
        "description": ["First paragraph, I(emphasised) and B(bold).", "Second: C((hpcadmins)) and <version>."],
    },
    "demo_list": {"type": "list", "elements": "str", "default": ["root"], "description": "V(x) * y."},
    "demo_secret": {"type": "str", "default": "", "no_log": True, "description": "A key."},
    "demo_nested": {
        "type": "dict",
        "default": {},
        "description": "Nested.",
        "options": {"inner": {"type": "int", "default": 3, "description": "Inner."}},
    },
}


def test_table_rendering_of_a_small_spec():
    assert settings_doc.table(SMALL_SPEC) == [
        "| variable | type | default | description |",
        "|---|---|---|---|",
        "| `demo_filter` | str | `{{ groups['x'] \\| default([]) \\| first }}` "
        "| A Jinja default with pipes; see `a\\|b` and `demo_mode`. |",
        "| `demo_mode` | str | `auto` | First paragraph, *emphasised* and **bold**.<br>"
        "Second: `(hpcadmins)` and &lt;version&gt;.<br>Choices: `auto`, `on\\|off`. |",
        "| `demo_list` | list of str | `[\"root\"]` | `x` \\* y. |",
        "| `demo_secret` | str | `\"\"` | A key.<br>Kept out of logs (`no_log`). |",
        "| `demo_nested` | dict | `{}` | Nested. |",
        "| `demo_nested.inner` | int | `3` | Inner. |",
    ]


def test_no_settings_and_defaults_of_every_shape():
    assert settings_doc.table({}) == ["No settings."]
    assert settings_doc.render_default(True) == "`true`"
    assert settings_doc.render_default(None) == "`null`"
    assert settings_doc.render_default(" padded ") == '`" padded "`'
    assert settings_doc.render_default("two\nlines") == '`"two\\nlines"`'
    assert settings_doc.render_default("a`b") == "``a`b``"
    assert settings_doc.render_default({"k": [1, "v"]}) == '`{"k": [1, "v"]}`'


def test_every_relative_link_in_the_docs_points_at_a_file_and_anchor():
    # README.md, docs/ and the role pages: a page moved or a heading renamed fails here.
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "doc-links.py")], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
