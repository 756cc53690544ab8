"""Build hook: ship the repository's top-level environments/ inside the wheel as
silo_gym/environments/ (gym-api.md, "Ids and registration"), and the demo's reference solver as
the mock model server's default plan (silo_gym/mock_model/demo_plan.py). Metadata lives in
pyproject.toml."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithEnvironments(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads both from the repository (see the module docstring)
        src = os.path.join(HERE, "environments")
        dst = os.path.join(self.build_lib, "silo_gym", "environments")
        if os.path.isdir(src):
            shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        solver = os.path.join(HERE, "examples", "agents", "crm_solver.py")
        if os.path.isfile(solver):
            os.makedirs(os.path.join(self.build_lib, "silo_gym", "mock_model"), exist_ok=True)
            shutil.copyfile(solver, os.path.join(self.build_lib, "silo_gym", "mock_model", "demo_plan.py"))


setup(cmdclass={"build_py": BuildPyWithEnvironments})
