"""Installs the llmtrafficlens package assembled by the CMake build (build/python/: the .py files
next to the compiled _core module) with Debian's setuptools, offline. Run by
scripts/install-python.sh from that directory; nothing is compiled or downloaded here."""
import glob
import os

from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    """The package holds a compiled module: a platform (not pure-Python) install."""

    def has_ext_modules(self):
        return True


here = os.path.dirname(os.path.abspath(__file__))
modules = [os.path.basename(p) for p in glob.glob(os.path.join(here, "llmtrafficlens", "_core*.so"))]
if not modules:
    raise SystemExit("llmtrafficlens/_core*.so missing: build the ltl_python target first "
                     "(scripts/install-python.sh does)")

setup(
    name="llmtrafficlens",
    version=os.environ.get("LTL_VERSION", "0.1.0"),
    description="Profile LLM gateway logs for prefix (KV) cache reuse (C++ core, pybind11)",
    packages=["llmtrafficlens"],
    package_data={"llmtrafficlens": modules},
    distclass=BinaryDistribution,
    zip_safe=False,
)
