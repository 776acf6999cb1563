"""PCI ids as tools print them → the knowledge base's form ("10de:2684").

``lspci -nn`` prints ``[10de:2684]``; ``nvidia-smi -q`` prints ``Device Id : 0x268410DE``
(device in the high 16 bits, vendor in the low ones) and ``--query-gpu=pci.device_id``
the same number; ``rocminfo`` prints ``Chip ID: 29772(0x744c)`` for a GPU agent (an AMD
device, vendor 1002). Every function here runs in time linear in its input.
"""

from __future__ import annotations

import re

__all__ = ["normalise_pci_id", "pci_ids_in", "VENDOR_IDS"]

VENDOR_IDS = {"nvidia": "10de", "amd": "1002"}

_PAIR = re.compile(r"\b([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\b")
_NVIDIA_SMI = re.compile(r"\b0x([0-9a-fA-F]{4})(10de)\b", re.IGNORECASE)
_ROCMINFO_CHIP = re.compile(r"Chip ID:\s*\d+\s*\(0x([0-9a-fA-F]{1,4})\)")
_GPU_CLASSES = ("vga compatible controller", "3d controller", "display controller")


def normalise_pci_id(text: str, vendor: str | None = None) -> str | None:
    """One id: ``"10DE:2684"``, ``"0x268410DE"``, or a bare device (``"0x744c"``, with ``vendor``)."""
    text = text.strip()
    if m := _PAIR.fullmatch(text.strip("[]")):
        return f"{m.group(1).lower()}:{m.group(2).lower()}"
    if m := _NVIDIA_SMI.fullmatch(text):
        return f"10de:{m.group(1).lower()}"
    if vendor and (m := re.fullmatch(r"(?:0x)?([0-9a-fA-F]{1,4})", text)):
        return f"{VENDOR_IDS.get(vendor, vendor)}:{m.group(1).lower().zfill(4)}"
    return None


def pci_ids_in(text: str) -> list[str]:
    """Every GPU PCI id in pasted tool output (lspci -nn, nvidia-smi -q, rocminfo), in order, once each."""
    out: list[str] = []

    def add(pci: str | None) -> None:
        if pci and pci not in out:
            out.append(pci)

    for line in text.splitlines():
        low = line.lower()
        if any(cls in low for cls in _GPU_CLASSES):
            for m in _PAIR.finditer(line):
                if m.group(1).lower() in VENDOR_IDS.values():
                    add(f"{m.group(1).lower()}:{m.group(2).lower()}")
        for m in _NVIDIA_SMI.finditer(line):
            add(f"10de:{m.group(1).lower()}")
        if m := _ROCMINFO_CHIP.search(line):
            if int(m.group(1), 16):  # CPU agents print Chip ID 0
                add(f"1002:{m.group(1).lower().zfill(4)}")
    if not out:
        single = normalise_pci_id(text)
        if single:
            out.append(single)
    return out
