"""pdcc's build: setuptools, configured in setup.cfg, plus one build step.

The pragma grammar lives at the top of the repository (`grammar/pragma.lark`), where it is designed and read
in a checkout. A wheel carries only packages, so the build step copies the grammar into the built package as
`pragmadp/grammar/pragma.lark`, where `pragmadp.directives` looks first. Copying at build time keeps one file
to edit; an editable install reads the checkout's file directly.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

GRAMMAR = Path("grammar") / "pragma.lark"


class BuildWithGrammar(build_py):
    """build_py, then the grammar into the built package (not for an editable install: it reads the checkout)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "pragmadp" / "grammar" / GRAMMAR.name
            self.mkpath(str(target.parent))
            self.copy_file(str(GRAMMAR), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / "pragmadp" / "grammar" / GRAMMAR.name)]


setup(cmdclass={"build_py": BuildWithGrammar})
