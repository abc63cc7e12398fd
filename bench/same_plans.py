"""Whether a change keeps the plans byte for byte: the passage (the default plan), the whole chapter on every
shipped reading, and the whole chapter with 9 衆賓 and with 2 大夫, each written by ``render.py plan --json``
of a checkout, compared (bytes) with the same plans of another.  Write the reference from the checkout
before the change, then compare the one after (each plan is a process of its own, as the CLI makes it):

.venv/bin/python bench/same_plans.py --write REF_DIR [--checkout DIR]
.venv/bin/python bench/same_plans.py --against REF_DIR [--checkout DIR] [--out DIR]

Exit 0 when every plan is the same, 1 when one differs (each named), 2 on bad arguments.
"""
from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

LAYOUTS = ("zheng_xuan", "ao_jigong", "yishu_1748", "dashe_fa", "zhou_chi_197", "zheng_xuan_xiang")

CASES = {"passage": [],
         **{f"whole_{name}": [name, "--part", "whole"] for name in LAYOUTS},
         "whole_zb9": ["--part", "whole", "--zhongbin", "9"],
         "whole_dafu2": ["--part", "whole", "--dafu", "2"]}


def write(checkout: Path, out: Path) -> None:
    """The plans of a checkout, one file a case (``CASE.json``)."""
    out.mkdir(parents=True, exist_ok=True)
    for case, args in CASES.items():
        subprocess.run([sys.executable, str(checkout / "render.py"), "plan", *args, "--json", str(out / f"{case}.json")],
                       cwd=checkout, check=True, stdout=subprocess.DEVNULL)
        print(f"{case}: written", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", type=Path, help="write the reference plans here")
    what.add_argument("--against", type=Path, help="compare with the reference plans here")
    ap.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the checkout whose render.py plans (default: this one)")
    ap.add_argument("--out", type=Path, help="keep the compared plans here (default: a temporary folder)")
    a = ap.parse_args()
    if a.write:
        write(a.checkout, a.write)
        return 0
    missing = [c for c in CASES if not (a.against / f"{c}.json").is_file()]
    if missing:
        print(f"{a.against}: no reference plan for {', '.join(missing)} (write it with --write)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or Path(tmp)
        write(a.checkout, out)
        differ = [c for c in CASES if not filecmp.cmp(a.against / f"{c}.json", out / f"{c}.json", shallow=False)]
    for c in CASES:
        print(f"{c}: {'DIFFERS' if c in differ else 'same'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
