"""Real Blender for the tests: the built extension installed as a user would.

Blender's user folders point at a fresh temporary directory *before* ``bpy``
is imported, so the tests never read or write the developer's own Blender
settings. The extension zip is built with Blender's own builder and installed
with ``extensions.package_install_files`` (Install from Disk), then enabled.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
USER_DIR = tempfile.mkdtemp(prefix="orogen-blender-user-")
os.environ["BLENDER_USER_RESOURCES"] = USER_DIR

try:
    import bpy
except ImportError:
    if os.environ.get("OROGEN_REQUIRE_BLENDER") == "1":
        raise
    pytest.skip("the bpy module is not installed (run scripts/test.sh)", allow_module_level=True)

MODULE = "bl_ext.user_default.orogen"


@pytest.fixture(scope="session")
def extension_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_extension.py"), "--output-dir", str(out)],
        check=True,
        capture_output=True,
    )
    (zip_path,) = out.glob("orogen-*.zip")
    return zip_path


@pytest.fixture(scope="session")
def orogen(extension_zip):
    """The installed and enabled extension's package."""
    assert Path(bpy.utils.user_resource("EXTENSIONS")).is_relative_to(USER_DIR)
    bpy.ops.extensions.package_install_files(filepath=str(extension_zip), repo="user_default", enable_on_install=True)
    assert MODULE in bpy.context.preferences.addons, "the extension did not install and enable"
    yield sys.modules[MODULE]


@pytest.fixture(scope="session")
def user_dir():
    """The temporary folder that holds Blender's user config and extensions for this run."""
    return USER_DIR


@pytest.fixture
def scene(orogen):
    """An empty scene (the extension stays enabled).

    After the test the module-level ``bpy.context`` must still belong to no ID. Blender 4.2 keeps the scene
    of ``context.layer_collection`` on the context object it was read through (``object_data_add`` reads it);
    on the global one that scene is freed by the next file load, and a later ``context.window.scene = ...``
    (the glTF exporter's) crashes Blender. Operators get a context of their own from Blender; a test that
    calls operator code itself must pass that one (see ``test_background_ops.send``).
    """
    bpy.ops.wm.read_homefile(use_empty=True)
    assert MODULE in bpy.context.preferences.addons
    yield bpy.context.scene
    if not _context_owned:  # (once owned it stays so, and reading it after a file load may crash)
        _context_owned.append(bpy.context.id_data is not None)
        assert not _context_owned[0], "this test left an ID on the global bpy.context (see the fixture)"
        _context_owned.clear()


_context_owned = []


_status = {}


def pytest_sessionfinish(session, exitstatus):
    _status["exit"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """The bpy 4.2 and 4.5 modules can crash while Python tears them down after the run (a segfault at exit,
    after every test has reported). The result is known by then: leave with it, skipping the teardown."""
    if bpy.app.version < (5, 0, 0) and "exit" in _status:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_status["exit"])


@pytest.hookimpl(tryfirst=True)
def pytest_warning_recorded(warning_message, when, nodeid, location):
    """Under pytest-xdist (``scripts/test.sh`` runs two workers) a worker sends each warning to the controller by
    its class's module, which only the worker can import (the installed extension, ``bl_ext...``): send such a
    warning as a ``UserWarning`` that keeps its class's name in its text."""
    category = warning_message.category
    if category is not None and category.__module__.startswith("bl_ext."):
        warning_message.message = UserWarning(f"{category.__name__}: {warning_message.message}")
        warning_message.category = UserWarning
