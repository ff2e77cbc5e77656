"""One file through pdcc: read -> parse -> bind directives -> transform -> apply edits -> text.

The command line (cli.py) runs this for each CUDA input, then nvcc, then the reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pragmadp.cuda import frontend
from pragmadp.report.remarks import Remark
from pragmadp.source import SourceFile
from pragmadp.transforms import rewrite


@dataclass
class Result:
    source: SourceFile
    text: str                      # the transformed file (the input, unchanged, when nothing applies)
    remarks: list[Remark] = field(default_factory=list)
    uses_device_launches: bool = False

    @property
    def changed(self) -> bool:
        return self.text.encode("utf-8") != self.source.data


def transform(source: SourceFile, auto: str | None = None) -> Result:
    """Transforms one CUDA source. Raises PdccError (with its remark) when the input is wrong.

    `auto` is a clause list (e.g. "threshold(128)") applied to every device-side launch that has no
    pragma of its own, as the CGO'22 framework does without pragmas.
    """
    unit = frontend.parse(source)
    if auto is not None:
        frontend.add_auto_sites(unit, auto)
    frontend.name_sites(unit)
    result = rewrite(unit)
    return Result(source, result.edits.render(), result.remarks, result.uses_device_launches)


def transform_path(path: str, display_path: str | None = None, auto: str | None = None) -> Result:
    return transform(SourceFile.read(path, display_path), auto)
