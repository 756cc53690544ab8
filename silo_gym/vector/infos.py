"""Infos batched across sub-envs exactly (gym-api.md, "Vectorization"): :class:`ExactInfos`.

Gymnasium batches each info key into an array (plus a ``_key`` mask) made from the first
sub-env's value, casting the others into it. A key whose values differ in type across sub-envs
(answers of different JSON types in ``final_info["result"]["agentOutput"]``, a ``variant`` number
beside ``None``) becomes an object array here instead, holding every value unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["INFO_DTYPES", "OBJECT_DTYPE", "ExactInfos"]


def _fits(array: np.ndarray[Any, Any], value: Any) -> bool:
    """Whether ``value`` can go into ``array`` unchanged (no cast such as 2.5 -> 2 or None -> error)."""
    kind = array.dtype.kind
    if kind == "O":
        return True
    if isinstance(value, np.ndarray):
        return value.dtype == array.dtype and value.shape == array.shape[1:]
    if isinstance(value, np.generic):
        return value.dtype == array.dtype
    if type(value) is bool:
        return kind == "b"
    if type(value) is int:
        return kind == "i" and -(2**63) <= value < 2**63
    if type(value) is float:
        return kind == "f"
    return False


#: The dtypes of a batched info key whose values are all bools, floats or ints.
INFO_DTYPES = {bool: np.dtype(bool), float: np.dtype(float), int: np.dtype(int)}
#: The dtype of a key whose values differ in type (each kept as it is).
OBJECT_DTYPE = np.dtype(object)


def _new_array(value: Any, num_envs: int, object_only: bool = False) -> np.ndarray[Any, Any]:
    """The array Gymnasium would start for ``value``, or an object array when a cast could lose it."""
    if not object_only:
        kind = type(value)
        if kind is bool or kind is float:
            return np.zeros(num_envs, dtype=INFO_DTYPES[kind])
        if kind is int and -(2**63) <= value < 2**63:
            return np.zeros(num_envs, dtype=INFO_DTYPES[int])
        if isinstance(value, np.number):
            return np.zeros(num_envs, dtype=type(value))
        if isinstance(value, np.ndarray):
            return np.zeros((num_envs, *value.shape), dtype=value.dtype)
    return np.empty(num_envs, dtype=OBJECT_DTYPE)  # filled with None


def _unbatch(batched: dict[str, Any], index: int) -> dict[str, Any]:
    """Sub-env ``index``'s dict out of a batched info dict (the keys whose ``_key`` mask is set)."""
    out: dict[str, Any] = {}
    for key, value in batched.items():
        mask = batched.get(f"_{key}")
        if key.startswith("_") or mask is None or not mask[index]:
            continue
        out[key] = _unbatch(value, index) if isinstance(value, dict) else value[index]
    return out


class ExactInfos:
    """Batches infos like Gymnasium (an array per key plus a ``_key`` mask, dicts recursively),
    but never changes a value.

    Gymnasium makes the array from the first sub-env's value and casts the others into it, so an
    ``int`` beside a ``None`` raises, a float answer beside an int answer is truncated
    (2.5 -> 2) and a dict beside a scalar breaks. Here such a key falls back to an object array
    holding each sub-env's value as returned.
    """

    num_envs: int

    def _add_info(self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        for key, value in env_info.items():
            current = vector_infos.get(key)
            if isinstance(value, dict) and (current is None or isinstance(current, dict)) and key != "final_obs":
                array: Any = self._add_info(current if current is not None else {}, value, env_num)
            else:
                if isinstance(current, dict):  # a dict in earlier sub-envs, a scalar here
                    mask = vector_infos[f"_{key}"]
                    array = np.full(self.num_envs, None, dtype=object)
                    for i in np.flatnonzero(mask):
                        array[i] = _unbatch(current, int(i))
                elif current is None:
                    array = _new_array(value, self.num_envs, object_only=key == "final_obs")
                elif not _fits(current, value):
                    array = current.astype(object)
                else:
                    array = current
                array[env_num] = value
            mask = vector_infos.get(f"_{key}")
            if mask is None:
                mask = np.zeros(self.num_envs, dtype=INFO_DTYPES[bool])
            mask[env_num] = True
            vector_infos[key], vector_infos[f"_{key}"] = array, mask
        return vector_infos
