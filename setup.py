"""Packages are found, not listed: every package under pvtui/, and themes/ (at the top of the
repository, beside the code, where users look for a theme to copy) installed as pvtui.themes.
Everything else about the project is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["pvtui", "pvtui.*"]), "pvtui.themes"],
    package_dir={"pvtui.themes": "themes"},
)
