"""The build step of `pip install .` (pyproject.toml): the package's one compiled module,
llmtrafficlens._core, is built by CMake, offline, not by setuptools' compiler. Its build directory
is $LTL_CMAKE_BUILD_DIR, else build/ in the clone (the README's first command configures it, so
the stage libraries already built there are reused). A directory configured before keeps its
options (a test build keeps its tests); only the Python module is switched on, for this
interpreter. Where the tokenizer vocabularies are (--data-dir's default) is $LTL_DATA_DIR, else the
build directory's data/ (scripts/fetch-vocab.sh fills it)."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def cmake_build_dir():
    return os.path.abspath(os.environ.get("LTL_CMAKE_BUILD_DIR") or os.path.join(ROOT, "build"))


class CMakeBuild(build_ext):
    """Builds llmtrafficlens._core with CMake and copies it where setuptools packs extensions."""

    def build_extension(self, ext):
        build_dir = cmake_build_dir()
        cmake = shutil.which("cmake")
        if cmake is None:
            raise SystemExit("cmake not found: run scripts/install-deps.sh (or "
                             "scripts/install-python.sh, which installs what it needs)")
        if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call([os.path.join(ROOT, "scripts", "configure.sh"), "example",
                                   build_dir])
        configure = [cmake, "-S", ROOT, "-B", build_dir, "-DLTL_BUILD_PYTHON=ON",
                     f"-DLTL_PYTHON={sys.executable}"]
        if os.environ.get("LTL_DATA_DIR"):
            configure.append(f"-DLTL_DATA_DIR={os.environ['LTL_DATA_DIR']}")
        subprocess.check_call(configure, stdout=subprocess.DEVNULL)
        jobs = os.environ.get("LTL_BUILD_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call([cmake, "--build", build_dir, "-j", jobs, "--target", "ltl_python"])
        built = glob.glob(os.path.join(build_dir, "python", "llmtrafficlens", "_core*.so"))
        if len(built) != 1:
            raise SystemExit(f"expected one llmtrafficlens/_core*.so in {build_dir}/python, "
                             f"found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


# setuptools' own staging goes inside the CMake build directory, not a second build/ beside it.
setup(ext_modules=[Extension("llmtrafficlens._core", sources=[])],
      cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": os.path.join(cmake_build_dir(), "setuptools")}})
