"""A sequence whose items are made when first read: what the cache reader (the facts' texts and
models) and the graph read back from the cache (its compiled facts and conditions) both use."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MadeOnUse"]


class MadeOnUse(Sequence):
    """A sequence whose item i is made by ``_make(i)`` when first read, then kept (an item is
    never None)."""

    __slots__ = ("_made",)

    def __init__(self, length: int):
        self._made: list = [None] * length

    def _make(self, index: int):
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._made)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._made)))]
        item = self._made[index]  # IndexError past the end, as a list
        if item is None:
            if index < 0:
                index += len(self._made)
            item = self._made[index] = self._make(index)
        return item
