#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Build the rina_c10d extension (the torch.distributed backend "rina")
with torch.utils.cpp_extension, out of the source tree (python/build.mk).

usage: build.py SOURCE INCLUDE_DIR LIB_DIR OUT_DIR TMP_DIR
Exit 0 with the module in OUT_DIR; 3 (and one line saying why) when torch
or its C++ headers are missing, so that make can skip it."""
import os
import sys


def main():
    src, inc, libdir, out, tmp = [os.path.abspath(a) for a in sys.argv[1:6]]
    try:
        import torch
        from torch.utils import cpp_extension as ce
    except ImportError as e:
        print("rina_c10d: skipped, no torch (%s): install python3-torch" % e)
        return 3
    hdr = [p for p in ce.include_paths()
           if os.path.exists(os.path.join(p, "torch", "csrc", "distributed",
                                          "c10d", "ProcessGroup.hpp"))]
    if not hdr or not os.path.exists("/usr/include/pybind11/pybind11.h"):
        print("rina_c10d: skipped, torch's C++ headers are missing: install "
              "libtorch-dev and pybind11-dev (make deps)")
        return 3
    from setuptools import setup
    os.makedirs(tmp, exist_ok=True)
    os.chdir(tmp)
    ext = ce.CppExtension(
        "rina_c10d", [src], include_dirs=[inc], library_dirs=[libdir],
        libraries=["rina"],
        extra_compile_args=["-O2", "-g0", "-Wall"],
        # the build tree's build/lib, an installed prefix's lib
        extra_link_args=["-Wl,-rpath," + libdir,
                         "-Wl,-rpath,$ORIGIN/../lib",
                         "-Wl,-rpath,$ORIGIN/../../.."])
    setup(name="rina_c10d", ext_modules=[ext],
          cmdclass={"build_ext": ce.BuildExtension.with_options(
              use_ninja=False)},
          script_args=["-q", "build_ext", "--build-lib", out,
                       "--build-temp", tmp])
    print("rina_c10d: built in %s (torch %s)" % (out, torch.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
