"""The error-signature catalogue: its schema and loader.

The catalogue is not a knowledge-base file (the KB loader reads every
``gpulane/data/*.yaml``), so it lives here with its own small schema. Each
signature cites a public page where the message appears with its meaning.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gpulane.errors import GpulaneError
from gpulane.model import Layer

__all__ = ["Signature", "SignatureSource", "NameCapture", "Catalogue", "CatalogueError", "load_catalogue",
           "default_catalogue_path"]


class CatalogueError(GpulaneError):
    """The error catalogue file cannot be read; names the file and the problem."""


class SignatureSource(BaseModel):
    """A public page where the message appears with its meaning."""

    model_config = ConfigDict(extra="forbid")

    url: str
    title: str
    reviewed: dt.date

    @field_validator("url")
    @classmethod
    def _web(cls, value: str) -> str:
        if not value.startswith("https://"):
            raise ValueError("expected an https URL")
        return value


class NameCapture(BaseModel):
    """A captured group that names a node: its layer and how to spell the name ('cc {value}')."""

    model_config = ConfigDict(extra="forbid")

    layer: Layer
    format: str = "{value}"


class Signature(BaseModel):
    """One error message: how to match it, the edges it implicates, what to check and ask."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    message: str = Field(description="the error string as programs print it")
    patterns: list[str] = Field(min_length=1, description="case-insensitive regexes; named groups are captured")
    vendor: Optional[str] = None
    edges: list[tuple[Layer, Layer]] = Field(min_length=1)
    meaning: str
    check: list[str] = Field(min_length=1)
    ask: list[str] = Field(min_length=1)
    names: dict[str, NameCapture] = {}
    source: SignatureSource

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, value: list[str]) -> list[str]:
        for p in value:
            try:
                re.compile(p, re.IGNORECASE)
            except re.error as exc:
                raise ValueError(f"pattern {p!r} does not compile: {exc}") from None
        return value

    def compiled(self) -> list[re.Pattern]:
        return [re.compile(p, re.IGNORECASE) for p in self.patterns]


class Catalogue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    signatures: list[Signature]


def default_catalogue_path() -> Path:
    return Path(__file__).resolve().parent / "error-signatures.yaml"


@lru_cache(maxsize=4)
def load_catalogue(path: Path | None = None) -> Catalogue:
    """Read and validate the catalogue; any problem is a CatalogueError naming the file."""
    path = Path(path) if path else default_catalogue_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogueError(f"{path}: cannot read the error catalogue ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise CatalogueError(f"{path}: not valid YAML ({exc})") from None
    try:
        cat = Catalogue.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CatalogueError(f"{path}: {where}: {first['msg']}") from None
    ids = [s.id for s in cat.signatures]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise CatalogueError(f"{path}: duplicate signature id(s): {', '.join(dupes)}")
    return cat
