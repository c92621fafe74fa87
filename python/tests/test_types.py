"""The package is typed (py.typed): the installed copy passes mypy --strict for Python 3.9 (returns of the
simulators' JSON are Any by design, and requests has no stubs in Debian: its import is not checked)."""

import subprocess
import sys
from pathlib import Path

import sims


def test_the_installed_package_passes_mypy_strict():
    package = Path(sims.__file__).parent
    assert (package / "py.typed").exists()
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-warn-return-any", "--disable-error-code", "import",
         "--python-version", "3.9", "--no-incremental", str(package)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
