"""Keep what collection built out of the garbage collector's way for the rest of the run.

Everything alive when collection ends (imported modules, the projects, the items) lives
until the run ends, yet every full collection walks it again: the automatic ones during
the run, which hold up the model calls too, and the five pytest makes when the session
ends. `gc.freeze()` moves those objects where the collector never looks; what the tests
allocate afterwards is collected as usual. They are unfrozen after pytest's own last
collections, before the interpreter's, whose finalizers must still see them.

Collecting arena cases allocates almost only such long-lived objects (a few hundred are
garbage at its end), so the collector is paused from the first `arena.yaml` until the
freeze.
"""

from __future__ import annotations

import gc

import pytest

INI = "arena_gc_freeze"
_WANTED = pytest.StashKey[bool]()
_PAUSED = pytest.StashKey[bool]()
_FROZEN = pytest.StashKey[bool]()


def add_ini(parser: pytest.Parser) -> None:
    parser.addini(
        INI,
        type="bool",
        default=True,
        help="freeze the objects alive after collecting arena cases out of the garbage"
        " collector's scans for the run (gc.freeze); false turns it off",
    )


def prepare(config: pytest.Config) -> None:
    """Read the setting and arrange the unfreeze. Call from pytest_configure before pytest's
    unraisable-exception plugin registers its cleanup: cleanups run last-in first-out, so
    this one runs after pytest's final gc.collect() passes, which then skip the frozen
    objects."""
    try:
        config.stash[_WANTED] = bool(config.getini(INI))
    except ValueError:
        where = f"{config.inipath}: " if config.inipath else ""
        raise pytest.UsageError(
            f"{where}{INI} = {config.inicfg.get(INI)!r} is neither true nor false;"
            f" write '{INI} = false' to turn the freeze off"
        ) from None
    config.add_cleanup(lambda: _unfreeze(config))


def pause(config: pytest.Config) -> None:
    """Pause the collector for the rest of collection (see `freeze`, and `resume`)."""
    if _may_freeze(config) and gc.isenabled():
        gc.disable()
        config.stash[_PAUSED] = True


def resume(config: pytest.Config) -> None:
    """Undo `pause`; called once collection ends, whichever way it ends."""
    if config.stash.get(_PAUSED, False):
        del config.stash[_PAUSED]
        gc.enable()


def _may_freeze(config: pytest.Config) -> bool:
    return config.stash.get(_WANTED, True) and hasattr(gc, "freeze") and not gc.get_freeze_count()


def freeze(config: pytest.Config) -> None:
    """Freeze now, unless turned off or something else already froze objects (a conftest
    of the user's, or an arena run around this one under pytester): only that one's owner
    may unfreeze them."""
    if _may_freeze(config):
        gc.freeze()
        config.stash[_FROZEN] = True
    resume(config)


def _unfreeze(config: pytest.Config) -> None:
    resume(config)  # a collection run without pytest_collection (pytester's getitems) ends here
    if config.stash.get(_FROZEN, False):
        gc.unfreeze()
        del config.stash[_FROZEN]
