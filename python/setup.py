# SPDX-License-Identifier: MIT
"""The wheel carries libgputracker.so, a native library for one platform, so
it is tagged py3-none-<platform> rather than py3-none-any: any Python 3 (the
library is loaded with ctypes, not built against Python's ABI), this
platform only.  Everything else is in pyproject.toml."""
from setuptools import Distribution, setup

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70: the wheel package's command
    from wheel.bdist_wheel import bdist_wheel


class NativeDistribution(Distribution):
    """Has native code: built and installed as platform-specific."""
    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        _, _, platform = super().get_tag()
        return 'py3', 'none', platform


setup(distclass=NativeDistribution, cmdclass={'bdist_wheel': PlatformWheel})
