"""The page's camera presets, framed with the video's own :func:`~reconstruct.scene.shots.fit_pose`
from the plan's landmarks and hall (plan frame), written in glTF's Y-up frame for three.js."""
from __future__ import annotations

import numpy as np

from ..model.defaults import FRAME_SIZE
from ..exchange.frames import to_yup
from ..model.plan import Plan
from ..scene.shots import FOV, fit_pose

SIZE = FRAME_SIZE


def _points(plan: Plan, *names: str) -> list:
    return [plan.landmarks[n].position for n in names if n in plan.landmarks]


def _court(plan: Plan) -> np.ndarray:
    hall = [(x, y, plan.hall_height + 4.0) for x, y in plan.hall.get("footprint") or []]
    pts = [lm.position for lm in plan.landmarks.values()] + hall
    return np.asarray(pts, float).reshape(-1, 3)


def _pose(pts, azimuth: float, elevation: float, fov: float = FOV, min_dist: float = 6.0) -> tuple:
    pose, _ = fit_pose(np.asarray(pts, float), SIZE, azimuth, elevation, fov=fov, min_dist=min_dist)
    return pose.eye, pose.target, fov


def camera_presets(plan: Plan) -> dict[str, dict]:
    """name → {label, eye, target (Y-up metres), fov (degrees)}: overview, hall, range, 物, 侯, plan."""
    court = _court(plan)
    H = plan.hall_height
    hall = [(x, y, z) for x, y in plan.hall.get("footprint") or [] for z in (0.0, H + 3.2)]
    hall = hall or _points(plan, "堂", "东序", "西序", "阼阶", "西阶")
    wu = np.asarray(_points(plan, "上物", "下物") or _points(plan, "堂廉"), float).reshape(-1, 3)
    hou = np.asarray(_points(plan, "左个", "右个", "侯中", "侯") or [(0.0, -50.0, 0.0)], float)
    wu_c, hou_c = wu.mean(0), hou.mean(0)
    views = {
        "overview": ("全景 overview", *_pose(court, 150.0, 28.0)),
        "hall": ("堂 the hall", *_pose(hall, 165.0, 16.0, min_dist=8.0)),
        "range": ("射道 the range", tuple(wu_c + (0.0, 2.0, 1.7)), tuple((hou_c[0], hou_c[1], 1.2)), 24.0),
        # the 物 may stand on the hall: looked at from the south-east, low, under the eaves
        "wu": ("物 the shooting marks", tuple(wu_c + (3.2, -7.5, 1.5)), tuple(wu_c + (0.0, 0.0, 0.9)), 40.0),
        "hou": ("侯 the target", *_pose(np.vstack([hou, hou + (0, 0, 3.0)]), 0.0, 8.0, min_dist=8.0)),
        "plan": ("平面 plan from above", *_pose(np.c_[court[:, :2], np.zeros(len(court))], 180.0, 89.0)),
    }
    # the views of the whole court: the page fits the ground's box into what its panels leave free
    fitted = {"overview", "plan"}
    return {k: {"label": label, "eye": [round(float(v), 4) for v in to_yup(eye)],
                "target": [round(float(v), 4) for v in to_yup(tgt)], "fov": float(fov), "fit": k in fitted}
            for k, (label, eye, tgt, fov) in views.items()}
