"""The optional extras (``pip install "silo-gym[<extra>]"``) and the error that names one."""

from __future__ import annotations

__all__ = ["missing_extra"]


def missing_extra(exc: ModuleNotFoundError, needs: str, extra: str) -> ModuleNotFoundError:
    """The error to raise (``from exc``) when ``needs`` (a module or command of silo_gym) cannot
    import a package of the ``extra`` extra: it names the missing module and the install line.
    ``name`` stays the missing module's, so ``pytest.importorskip`` and friends still see it."""
    return ModuleNotFoundError(
        f'{needs} needs the "{extra}" extra ("{exc.name}" is missing): pip install "silo-gym[{extra}]"',
        name=exc.name,
    )
