"""The search's state on disk: written atomically after every level, read back to resume.

A checkpoint file starts with its header, ``{"format": "abcd search checkpoint"``, by which the
program recognises its own files (it overwrites or removes no other file, ``is_checkpoint``),
and carries the SHA-256 checksum of the rest. A state belongs to one series (a fingerprint of x
and y) and one set of settings; a state made for others, changed after it was written, or
holding values a search cannot have written, is refused with a message saying what to do.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from abcd_cli import __version__
from abcd_cli.arrays import as_2d
from abcd_cli.bounded import read_bounded
from abcd_cli.errors import InputError
from abcd_cli.files import write_output
from abcd_cli.kernel_search.checkpoint_names import refuse_long_names
from abcd_cli.kernel_search.posterior import Weighed
from abcd_cli.kernel_search.records import LevelRecord
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.algebra import count_params
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import bic
from abcd_cli.model_file import TRACE_LEVEL
from abcd_cli.schema import List, check

#: The first key of every checkpoint file: what marks a file as one (see ``is_checkpoint``).
FORMAT = "abcd search checkpoint"
_HEADER = ('{"format": "' + FORMAT + '"').encode("utf-8")


@dataclass
class LevelState:
    """What a search knows after a level; the rest follows from the seed."""

    level: int
    parents: list[Scored]
    best: Scored | None
    seen: set[str]
    trace: list[LevelRecord]
    stale: int
    elapsed: float
    pool: list[Scored] = field(default_factory=list)  # method "posterior": its structures
    weighed: dict[str, Weighed] = field(default_factory=dict)  # those weighed, by kernel text


def fingerprint(x: np.ndarray, y: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(x, dtype=float).tobytes())
    h.update(np.ascontiguousarray(y, dtype=float).tobytes())
    return h.hexdigest()[:16]


def _scored_dict(c: Scored) -> dict[str, object]:
    d: dict[str, object] = {"kernel": c.kernel.to_text(), "nll": c.nll, "bic": c.bic}
    if c.bic_low is not None:
        d["bic_low"] = c.bic_low
    return d


def _scored_from(d: dict) -> Scored:
    low = d.get("bic_low")
    return Scored(
        parse_kernel(d["kernel"]),
        float(d["nll"]),
        float(d["bic"]),
        None if low is None else float(low),
    )


def save_state(
    path: Path, state: LevelState, settings: SearchSettings, x: np.ndarray, y: np.ndarray
) -> None:
    """Write ``state`` to ``path`` atomically (a reader never sees half a file), behind the
    header that marks the file as a checkpoint and with the checksum of everything else."""
    content = {
        "version": __version__,
        "settings": settings.to_dict(),
        "fingerprint": fingerprint(x, y),
        "level": state.level,
        "parents": [_scored_dict(p) for p in state.parents],
        "best": _scored_dict(state.best) if state.best else None,
        "seen": sorted(state.seen),
        "trace": [record.to_dict() for record in state.trace],
        "stale": state.stale,
        "elapsed_seconds": state.elapsed,
    }
    if settings.pool_size:
        content["pool"] = [_scored_dict(c) for c in state.pool]
        content["weighed"] = [w.to_dict() for w in state.weighed.values()]
    doc = {"format": FORMAT, "checksum": content_checksum(content), **content}
    refuse_foreign_checkpoint(path)  # put there while the search ran
    write_output(path, json.dumps(doc))


def content_checksum(content: dict[str, object]) -> str:
    """SHA-256 of the content (every key but the header and the checksum), keys sorted."""
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_checkpoint(path: Path) -> bool:
    """Whether the regular file at ``path`` starts with a checkpoint's header (only its first
    bytes are read; a link, a folder or a special file never is one)."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        with path.open("rb") as f:
            return f.read(len(_HEADER)) == _HEADER
    except OSError:
        return False


def refuse_foreign_checkpoint(path: Path) -> None:
    """InputError when ``path`` holds anything but one of this program's checkpoints (which
    a search would overwrite and then remove)."""
    if not (path.exists() or path.is_symlink()) or is_checkpoint(path):
        return
    what = (
        "a link"
        if path.is_symlink()
        else "a folder"
        if path.is_dir()
        else "a file that is not an abcd search checkpoint (or one of an older version)"
        if path.is_file()
        else "a special file"
    )
    raise InputError(
        f"the checkpoint path {path} already holds {what}; it is left as it is: remove it or"
        " give --checkpoint another path"
    )


def discard(path: Path) -> None:
    """Remove the checkpoint at ``path``; anything else there is left alone."""
    if is_checkpoint(path):
        path.unlink(missing_ok=True)


def load_state(
    path: Path, settings: SearchSettings, x: np.ndarray, y: np.ndarray
) -> LevelState | None:
    """The state saved at ``path`` for these data and settings; None when there is no file;
    ``InputError`` when it cannot be used: not a checkpoint, changed since it was written
    (its checksum), made for other data or settings, or holding values a search cannot have
    reached."""
    content = _content(path, settings, x, y)
    if content is None:
        return None
    try:
        return _state_of(content, settings, x, y)
    except (AttributeError, KeyError, TypeError, ValueError, InputError) as exc:
        raise _damaged(path, exc) from None


def _content(
    path: Path, settings: SearchSettings, x: np.ndarray, y: np.ndarray
) -> dict[str, Any] | None:
    """The content of the checkpoint at ``path`` (every key but the header and the checksum)
    once it is known to be one, unchanged, and made for these data and settings; None when
    there is no file; ``InputError`` saying what to do otherwise."""
    if not path.exists():
        return None
    if not is_checkpoint(path):
        raise InputError(
            f"{path} is not a search checkpoint of this version of abcd; it is left as it is:"
            " remove it or give --checkpoint another path"
        )
    try:
        doc = json.loads(_read(path))
    except (OSError, ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise InputError(f"cannot read checkpoint {path}: {reason}") from None
    content = {k: v for k, v in doc.items() if k not in ("format", "checksum")}
    if doc.get("checksum") != content_checksum(content):
        raise InputError(
            f"checkpoint {path} was changed after the search wrote it (its checksum does not"
            " match); remove it to start anew"
        )
    if content.get("fingerprint") != fingerprint(x, y):
        raise _other_data(path)
    if content.get("settings") != settings.to_dict():
        raise InputError(
            f"checkpoint {path} was made with other settings; use the same options or remove it"
        )
    return content


def _read(path: Path) -> str:
    """The checkpoint's text, read up to the size limit of any file (``bounded.py``)."""
    return read_bounded(path, f"checkpoint {path}", "checkpoint").decode("utf-8")


def _other_data(path: Path) -> InputError:
    return InputError(
        f"checkpoint {path} was made for other data; it is left as it is: give this search"
        " its own file with --checkpoint PATH, or remove it to start anew"
    )


def refuse_other_data(paths: list[Path], x: np.ndarray, y: np.ndarray) -> None:
    """InputError when a search that does not resume would overwrite a checkpoint saved for
    other data (one whose content cannot be read is the search's to replace)."""
    for path in paths:
        if not is_checkpoint(path):
            continue
        try:
            saved = json.loads(_read(path)).get("fingerprint")
        except (OSError, ValueError, RecursionError, AttributeError):
            continue
        if saved != fingerprint(x, y):
            raise _other_data(path)


def _damaged(path: Path, exc: Exception) -> InputError:
    return InputError(f"checkpoint {path} is damaged ({_one_line(exc)}); remove it to start anew")


def _state_of(
    doc: dict[str, Any], settings: SearchSettings, x: np.ndarray, y: np.ndarray
) -> LevelState:
    """The state in a checkpoint's content, every value checked against what a search on
    these data and settings can write; ValueError or TypeError naming the first bad field."""
    n, dims = len(y), as_2d(np.asarray(x)).shape[1]
    level = _whole(doc["level"], "level", 0, settings.depth)
    parents = [_scored(p, f"parents[{i}]", n, dims) for i, p in enumerate(_list(doc, "parents"))]
    best = None if doc["best"] is None else _scored(doc["best"], "best", n, dims)
    if best is None and parents:
        raise ValueError("best is missing though parents are kept")
    seen = _list(doc, "seen")
    if not all(isinstance(key, str) for key in seen):
        raise TypeError("seen must be a list of text")
    trace = _list(doc, "trace")
    check(trace, List(TRACE_LEVEL), "in the file", "trace")  # what the report appendix reads
    for i, entry in enumerate(trace):
        if not isinstance(entry, dict) or _whole(entry.get("level"), "trace level", 0, level) != i:
            raise ValueError(f"trace[{i}] is not the record of level {i}")
    if len(trace) != level + 1:
        raise ValueError(f"trace holds {len(trace)} levels, not {level + 1}")
    elapsed = float(doc["elapsed_seconds"])
    if not math.isfinite(elapsed) or elapsed < 0:
        raise ValueError("elapsed_seconds must be a finite number of seconds")
    pool = [
        _scored(c, f"pool[{i}]", n, dims)
        for i, c in enumerate(_list(doc, "pool") if settings.pool_size else [])
    ]
    if len(pool) > settings.pool_size:
        raise ValueError(f"pool holds {len(pool)} structures, more than {settings.pool_size}")
    weighed = [Weighed.from_dict(w) for w in (_list(doc, "weighed") if settings.pool_size else [])]
    in_pool = {c.kernel.to_text() for c in pool}
    if any(w.kernel.to_text() not in in_pool for w in weighed):
        raise ValueError("weighed holds a structure that is not in the pool")
    return LevelState(
        level=level,
        parents=parents,
        best=best,
        seen=set(seen),
        trace=[LevelRecord.from_dict(t) for t in trace],
        stale=_whole(doc["stale"], "stale", 0, level + 1),
        elapsed=elapsed,
        pool=pool,
        weighed={w.kernel.to_text(): w for w in weighed},
    )


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc[key]
    if not isinstance(value, list):
        raise TypeError(f"{key} must be a list")
    return value


def _whole(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _scored(d: object, what: str, n: int, dims: int) -> Scored:
    """A kept model: its kernel fitted, its inputs among the data's, its numbers finite and
    its BIC the one its NLL gives (BIC = 2·NLL + p·log n)."""
    if not isinstance(d, dict):
        raise TypeError(f"{what} must be an object")
    scored = _scored_from(d)
    kernel = scored.kernel
    if not kernel.is_fitted or any(not 0 <= dim < dims for _, dim in kernel.param_specs()):
        raise ValueError(f"{what}: the kernel does not fit these data")
    numbers = [scored.nll, scored.bic, scored.low]
    if not all(math.isfinite(v) for v in numbers) or scored.low > scored.bic:
        raise ValueError(f"{what}: its scores must be finite, the BIC interval ordered")
    expected = bic(scored.nll, count_params(kernel), n)
    if not math.isclose(scored.bic, expected, rel_tol=1e-9, abs_tol=1e-6):
        raise ValueError(f"{what}: its BIC {scored.bic} is not the one its likelihood gives")
    return scored


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def checkpoint_paths(checkpoint: str | Path, settings: SearchSettings) -> list[Path]:
    """Where each of the settings' searches keeps its state: the path itself for one seed,
    else one file per seed beside it (``NAME.seedK.json`` for ``NAME.json``), and with the
    method "posterior" last the joint weighing's (``NAME.joint.json``: ``save_weighing``);
    InputError for a name too long for its file system (``checkpoint_names``)."""
    path = Path(checkpoint)
    if settings.seeds == 1:
        paths = [path]
    else:
        seeds = range(settings.seed, settings.seed + settings.seeds)
        paths = [path.with_name(f"{path.stem}.seed{k}{path.suffix}") for k in seeds]
        if settings.pool_size:
            paths.append(path.with_name(f"{path.stem}.joint{path.suffix}"))
    refuse_long_names(paths)
    return paths


# ------------------------------------------------------------------------------------------
# The joint weighing of several searches' pools (``joint``)
# ------------------------------------------------------------------------------------------

#: What a joint weighing's checkpoint holds besides the common keys (``stage``'s value).
JOINT_STAGE = "joint weighing"


@dataclass
class WeighingState:
    """What the joint weighing of several searches' pools knows: the structures weighed, by
    kernel text, and the seconds it has taken."""

    weighed: dict[str, Weighed] = field(default_factory=dict)
    elapsed: float = 0.0


def save_weighing(
    path: Path, state: WeighingState, settings: SearchSettings, x: np.ndarray, y: np.ndarray
) -> None:
    """Write the joint weighing's ``state`` to ``path`` atomically, as ``save_state`` does
    (the searches' own states are in their own files)."""
    content = {
        "version": __version__,
        "settings": settings.to_dict(),
        "fingerprint": fingerprint(x, y),
        "stage": JOINT_STAGE,
        "weighed": [w.to_dict() for w in state.weighed.values()],
        "elapsed_seconds": state.elapsed,
    }
    doc = {"format": FORMAT, "checksum": content_checksum(content), **content}
    refuse_foreign_checkpoint(path)
    write_output(path, json.dumps(doc))


def load_weighing(
    path: Path, settings: SearchSettings, x: np.ndarray, y: np.ndarray, pool: list[Scored]
) -> WeighingState | None:
    """The joint weighing saved at ``path`` for these data, settings and joint ``pool``; None
    when there is no file; ``InputError`` when it cannot be used (as ``load_state``), or
    holds a structure that is not in ``pool`` at the same BIC (the searches' checkpoints were
    changed since)."""
    content = _content(path, settings, x, y)
    if content is None:
        return None
    try:
        if content.get("stage") != JOINT_STAGE:
            raise ValueError("it is not a joint weighing's")
        weighed = [Weighed.from_dict(w) for w in _list(content, "weighed")]
        bics = {c.kernel.to_text(): c.bic for c in pool}
        for w in weighed:
            text = w.kernel.to_text()
            if text not in bics or not math.isclose(w.bic, bics[text], rel_tol=1e-12):
                raise ValueError("weighed holds a structure that is not in the searches' pools")
        elapsed = float(content["elapsed_seconds"])
        if not math.isfinite(elapsed) or elapsed < 0:
            raise ValueError("elapsed_seconds must be a finite number of seconds")
    except (AttributeError, KeyError, TypeError, ValueError, InputError) as exc:
        raise _damaged(path, exc) from None
    return WeighingState({w.kernel.to_text(): w for w in weighed}, elapsed)
