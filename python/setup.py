"""Builds the Go shared library (go build -buildmode=c-shared) into the
package; the Python code itself compiles nothing, so one build serves every
Python 3. Needs the Go toolchain and the C compiler cgo uses:

    pip install --no-build-isolation ./python        # install
    pip wheel --no-build-isolation --no-deps ./python -w dist   # a wheel
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = "libsparsetag.so"


def build_library(dest_dir):
    go = os.environ.get("GO") or shutil.which("go")
    if not go:
        raise SystemExit("sparsetag: building the package needs the Go toolchain (go) on PATH, or GO=/path/to/go")
    os.makedirs(dest_dir, exist_ok=True)
    out = os.path.join(dest_dir, LIB)
    env = dict(os.environ, CGO_ENABLED="1")
    cmd = [go, "build", "-trimpath", "-buildmode=c-shared", "-o", out, "./libsparsetag"]
    print("sparsetag: " + " ".join(cmd))
    subprocess.check_call(cmd, cwd=HERE, env=env)
    header = os.path.join(dest_dir, "libsparsetag.h")
    if os.path.exists(header):
        os.remove(header)


class BuildPy(build_py):
    def run(self):
        build_py.run(self)
        build_library(os.path.join(self.build_lib, "sparsetag"))


class BinaryDistribution(Distribution):
    """The package carries a compiled library: its wheel is per platform."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildPy}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        def finalize_options(self):
            bdist_wheel.finalize_options(self)
            self.root_is_pure = False

        def get_tag(self):
            # ctypes, not the CPython C API: any Python 3 on this platform.
            _, _, plat = bdist_wheel.get_tag(self)
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:
    pass

setup(
    name="sparsetag",
    version="0.1.0",
    description="Linear-chain CRFs with a certified elastic net: python-crfsuite and sklearn-crfsuite drop-ins",
    packages=["sparsetag", "sparsetag.sklearn_crfsuite"],
    python_requires=">=3.7",
    cmdclass=cmdclass,
    distclass=BinaryDistribution,
    zip_safe=False,
)
