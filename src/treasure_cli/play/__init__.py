"""Games one by one and in batches: the game loop, `run`, `bench`, the executors, the records.
May import `sandbox/` (where an agent that is not built in plays) and all below it: the top modules
(`errors`, `version`, `compiled`), `rules/`, `islands/`, `agents/`, `formats/`; never `grading/`, `view/`,
`gym/` or `cli/`.

Until 0.3.0 this folder also held the sandbox and the grading. Their old module names
(`treasure_cli.play.agent_process`, `...play.tournament`, ...) still import, and still run with
`python -m`, for one more release, with a DeprecationWarning that names the new module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import CodeType, ModuleType

# old name under play/ -> where it lives now (removed in 0.5.0)
MOVED = {
    "sandbox": "treasure_cli.sandbox.levels", "isolation": "treasure_cli.sandbox.launch",
    "agent_process": "treasure_cli.sandbox.process", "agent_host": "treasure_cli.sandbox.agent_host",
    "zygote": "treasure_cli.sandbox.warm_host", "pacing": "treasure_cli.sandbox.pacing",
    "tournament": "treasure_cli.grading.tournament", "store": "treasure_cli.grading.store",
    "similarity": "treasure_cli.grading.similarity", "normalise": "treasure_cli.grading.normalise",
    "submissions": "treasure_cli.grading.submissions", "conformance": "treasure_cli.grading.conformance",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old name as the module that now holds it: the same module object, so its
    state (and `isinstance`) is shared with the new name."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.startswith(__name__ + ".") and fullname.rpartition(".")[2] in MOVED:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def exec_module(self, module: ModuleType) -> None:
        # The import system returns what sys.modules holds for the name once this returns.
        sys.modules[module.__name__] = importlib.import_module(_new_name(module.__name__))

    def get_code(self, fullname: str) -> CodeType | None:
        """For `python -m` with the old name: the new module's code, run as __main__."""
        new = _new_name(fullname)
        spec = importlib.util.find_spec(new)
        loader = spec.loader if spec is not None else None
        return loader.get_code(new) if isinstance(loader, importlib.abc.InspectLoader) else None

    def is_package(self, fullname: str) -> bool:
        return False


def _new_name(old: str) -> str:
    new = MOVED[old.rpartition(".")[2]]
    warnings.warn(f"{old} is now {new}; the old name goes away in treasure-cli 0.5.0",
                  DeprecationWarning, stacklevel=3)
    return new


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())
