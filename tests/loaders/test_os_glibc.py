"""The os-glibc importer: glibc versions per OS release, from pinned pep600_compliance readings."""

from __future__ import annotations

import json

import pytest
import yaml

from gpulane.loaders.importers import DATA_DIR, INPUTS_DIR, OS_FILE, ImportFormatError, os_glibc


def test_pinned_input_gives_os_nodes_with_glibc_and_its_citation():
    kb = os_glibc.parse(INPUTS_DIR / "os-glibc.json")
    by_id = {n.id: n for n in kb.nodes}
    # values as pep600_compliance measured them in the distributions' images
    assert by_id["centos-7.9"].glibc == "2.17"
    assert by_id["ubuntu-22.04"].glibc == "2.35"
    assert by_id["ubuntu-24.04"].glibc == "2.39"
    assert by_id["debian-12"].glibc == "2.36"
    sources = {s.id for s in kb.sources}
    assert all(n.attribute_sources["glibc"] in sources for n in kb.nodes)


def test_shipped_os_file_carries_glibc_with_its_own_citation():
    data = yaml.safe_load((DATA_DIR / OS_FILE).read_text(encoding="utf-8"))
    centos = next(n for n in data["nodes"] if n["id"] == "centos-7.9")
    assert centos["glibc"] == "2.17"
    assert centos["attribute_sources"]["glibc"].startswith("pep600-compliance-")
    assert centos["source"] != centos["attribute_sources"]["glibc"]  # the node keeps AMD's citation


@pytest.mark.parametrize("row, message", [
    ({"os": "Ubuntu 24.04", "source": "pep600-compliance-3ccd8f8", "glibc": "two"}, "expected a glibc version"),
    ({"os": "Plan 9", "source": "pep600-compliance-3ccd8f8", "glibc": "2.39"}, "must name one OS release"),
    ({"os": "Ubuntu 24.04", "source": "elsewhere", "glibc": "2.39"}, "is not in 'sources'"),
])
def test_bad_rows_are_named(tmp_path, row, message):
    path = tmp_path / "os-glibc.json"
    path.write_text(json.dumps({"releases": [row]}), encoding="utf-8")
    with pytest.raises(ImportFormatError) as exc:
        os_glibc.parse(path)
    assert message in str(exc.value) and "release 1" in str(exc.value)
