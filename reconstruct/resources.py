"""The data shipped inside the package (readings, rite script, seed text, statements, font), found
with :mod:`importlib.resources`, so the installed package works from any folder.

Each file also has a *logical* name — the path it has in the source tree, such as
``layouts/zheng_xuan.toml`` or ``assets/text/xiangshe_li_part2.txt`` — which is what plans and
reports cite (so a plan made from an installed wheel is byte-identical to one made in a checkout).
"""
from __future__ import annotations

from importlib.resources import files
from pathlib import Path

PACKAGE = "reconstruct"


def data_path(*parts: str) -> Path:
    """A file or folder of the package's data, e.g. ``data_path("layouts", "zheng_xuan.toml")``."""
    return Path(str(files(PACKAGE).joinpath(*parts)))


LAYOUTS = data_path("layouts")
ASSETS = data_path("assets")
DEFAULT_LAYOUT = LAYOUTS / "zheng_xuan.toml"
RITE = ASSETS / "rite" / "rite.yaml"
SEED = ASSETS / "text" / "xiangshe_li_part2.txt"
STATEMENTS = ASSETS / "statements.yaml"
FONTS = ASSETS / "fonts"
CUTS = ASSETS / "cuts"


def logical_name(path: str | Path) -> str:
    """The name a packaged file is cited by (``layouts/x.toml``, ``assets/…``); other paths as given."""
    p = Path(path)
    try:
        return p.resolve().relative_to(data_path().resolve()).as_posix()
    except (ValueError, OSError):
        return str(path)
