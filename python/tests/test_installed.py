"""`cmake --install` of the build tree (component python) into a staging prefix: the package
imports from there, in a fresh interpreter that does not see the build tree, and runs."""
import os
import pathlib
import subprocess
import sys

import pytest

BUILD = os.environ.get("CLAW_PYTHON_BUILD_DIR")


@pytest.mark.skipif(not BUILD, reason="CLAW_PYTHON_BUILD_DIR (set by ctest) names the build tree")
def test_the_installed_package_imports_and_runs(tmp_path):
    destdir = tmp_path / "stage"
    subprocess.run(["cmake", "--install", BUILD, "--component", "python"], check=True,
                   env={**os.environ, "DESTDIR": str(destdir)}, stdout=subprocess.DEVNULL)
    packages = [p.parent.parent for p in destdir.rglob("claw/__init__.py")]
    assert len(packages) == 1, packages
    site = packages[0]
    assert list(site.glob("claw/_claw*.so")) and (site / "claw" / "__init__.pyi").is_file()
    code = ("import claw, numpy as np\n"
            "s = np.zeros((3, 2)); lo = -np.ones((3, 2)); hi = np.ones((3, 2)); s[2] = 1.0\n"
            "assert claw.integrate_zoh(s, lo, hi, 0.01) == claw.Status.Ok\n"
            "assert s[0, 0] == 0.01 * (0.01 * 1.0)\n"
            "print(claw.__file__)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    result = subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path,
                            capture_output=True, text=True)
    assert pathlib.Path(result.stdout.strip()).resolve().is_relative_to(destdir.resolve())
