"""Write reconstruct/assets/arm_poses.json: the arm angles of every gesture target, solved once.

Run it after changing a gesture target, the arm's chain (scene/figures.py) or the fit (scene/gestures.py):
``.venv/bin/python tools/make_arm_poses.py``.  tests/test_scene_gestures.py fails until the table matches.
"""
import json

from reconstruct.scene.gestures import ARM_POSES, solved_table


def dumps(table: dict) -> str:
    """The table as JSON, one fit a line (floats as Python writes them: read back exactly)."""
    rows = ",\n".join("  " + json.dumps(row) for row in table["poses"])
    return "{\n" + f' "about": {json.dumps(table["about"], ensure_ascii=False)},\n "poses": [\n{rows}\n ]\n}}\n'


if __name__ == "__main__":
    table = solved_table()
    tmp = ARM_POSES.with_suffix(".json.tmp")             # nothing half-written: a temporary name, then renamed
    tmp.write_text(dumps(table), encoding="utf-8")
    tmp.replace(ARM_POSES)
    print(f"wrote {ARM_POSES}: {len(table['poses'])} fits")
