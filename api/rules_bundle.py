"""The installed rulesets as one zip for a browser's Python (Pyodide): the rules' package, the package of every
ruleset installed from elsewhere, and a distribution's metadata naming their entry points, so that the rulesets
are found there as they are here (`evo_ledger.rules.registry`). The rules import the standard library alone, so
nothing else is needed to run them."""

from __future__ import annotations

import hashlib
import io
import zipfile
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path

import evo_ledger
from evo_ledger.rules.registry import GROUP

RULES_PACKAGE = "evo_ledger.rules"
# Only what a ruleset reads at run time: its code, kits and rulings.
SHIPPED_SUFFIXES = (".py", ".json", ".toml")
DIST_INFO = f"evo_ledger_rulesets-{evo_ledger.__version__}.dist-info"


@cache
def rules_bundle() -> tuple[bytes, str]:
    """The zip, and its digest (an entity tag: it changes only when the installed rulesets do)."""
    written = io.BytesIO()
    with zipfile.ZipFile(written, "w", zipfile.ZIP_DEFLATED) as bundle:
        add_package(bundle, RULES_PACKAGE)
        elsewhere = {ruleset_package(entry.module) for entry in entry_points(group=GROUP)}
        for package in sorted(name for name in elsewhere if name is not None):
            add_package(bundle, package)
        metadata = f"Metadata-Version: 2.1\nName: evo-ledger-rulesets\nVersion: {evo_ledger.__version__}\n"
        bundle.writestr(f"{DIST_INFO}/METADATA", metadata)
        bundle.writestr(f"{DIST_INFO}/entry_points.txt", entry_points_text())
    data = written.getvalue()
    return data, hashlib.sha256(data).hexdigest()[:32]


def ruleset_package(module: str) -> str | None:
    """The package a ruleset installed from elsewhere is shipped with: its module's own (a ruleset keeps to its
    package); None for the rules' own rulesets, shipped with their package."""
    if module.startswith(f"{RULES_PACKAGE}."):
        return None
    return module.rpartition(".")[0] or module


def add_package(bundle: zipfile.ZipFile, name: str) -> None:
    """A package's files (or a module's one file) at their import paths, with the packages above it (once, where
    another package shares them)."""
    module = import_module(name)
    depth = len(name.split("."))
    path = Path(module.__file__ or "")
    base = path.parents[depth] if hasattr(module, "__path__") else path.parents[depth - 1]
    for above in range(1, depth):
        init = Path(base, *name.split(".")[:above], "__init__.py")
        if init.is_file() and init.relative_to(base).as_posix() not in bundle.namelist():
            bundle.write(init, init.relative_to(base).as_posix())
    if not hasattr(module, "__path__"):
        bundle.write(path, path.relative_to(base).as_posix())
        return
    for found in sorted(path.parent.rglob("*")):
        if found.suffix in SHIPPED_SUFFIXES and "__pycache__" not in found.parts:
            bundle.write(found, found.relative_to(base).as_posix())


def entry_points_text() -> str:
    lines = [f"{entry.name} = {entry.value}" for entry in entry_points(group=GROUP)]
    return f"[{GROUP}]\n" + "\n".join(sorted(lines)) + "\n"
