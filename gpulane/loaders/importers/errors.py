"""The one error every importer raises on input it cannot read."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from gpulane.errors import GpulaneError


class ImportFormatError(GpulaneError, ValueError):
    """A published file does not have the shape its importer expects.

    ``line`` is the 1-based line of ``path`` where the problem is (``None`` when
    the problem concerns the file as a whole); ``message`` names the row, the
    column or cell, and what was expected there.
    """

    def __init__(self, path: Union[str, Path], line: Optional[int], message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {message}")
