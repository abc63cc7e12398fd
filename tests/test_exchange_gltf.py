"""Export: the GLB parses, ASCII names with Chinese extras, Y-up, validator and Blender (when present)."""
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from reconstruct.exchange.gltf import FORMATS, export_ground, gltf_from_parts, to_yup
from reconstruct.scene.ground import build_ground, node_name
from reconstruct.layout.reading import LAYOUTS, load_reading

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT.parent / "shared" / "tools"


@pytest.fixture(scope="module")
def reading():
    return load_reading(LAYOUTS / "zheng_xuan.toml")


@pytest.fixture(scope="module")
def glb(reading, tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "ground.glb"
    export_ground(reading, path, fmt="glb")
    return path


def test_glb_parses_with_ascii_names_and_chinese_extras(glb, reading):
    g = pygltflib.GLTF2().load(str(glb))
    assert g.asset.version == "2.0"
    names = [n.name for n in g.nodes]
    assert all(n.isascii() for n in names) and len(names) == len(set(names))
    assert all(m.name.isascii() for m in g.meshes)
    extras = {n.name: n.extras for n in g.nodes}
    assert extras["L_xijie"]["landmark"] == "西阶"
    assert extras["L_hou_zhong"]["landmark"] == "侯中"
    assert extras["L_zhong"]["cite"].startswith("经 first half of the chapter:")
    assert extras["L_zhong"]["basis"][0] == {"source": "经", "at": "first half of the chapter",
                                             "quote": "釋獲者坐設中，南當楅，西當西序，東面"}
    assert extras["L_zhong"]["evidence"] == "text" and extras["L_fa"]["evidence"] == "commentary"
    root = next(n for n in g.nodes if n.extras and "bibliography" in n.extras)
    assert root.extras["bibliography"]["郑"]["transcription"] == "kanripo KR1d0026_005"
    assert set(root.extras["evidence_legend"]) == {"text", "commentary", "subcommentary", "later", "excavation", "chosen"}
    assert extras["L_zhong"]["reading"] == reading.name
    assert all(n.matrix is None for n in g.nodes)                      # TRS only
    assert all(v.target in (34962, 34963) for v in g.bufferViews)
    for m in g.materials:
        assert m.pbrMetallicRoughness.metallicFactor == 0 and m.pbrMetallicRoughness.roughnessFactor >= 0.8


def test_y_up_conversion(glb, reading):
    g = pygltflib.GLTF2().load(str(glb))
    pos = {n.name: n.translation for n in g.nodes}
    for ident in ("西阶", "乏", "中", "洗"):
        x, y, z = reading.landmarks[ident].position
        assert np.allclose(pos[node_name(ident)], (x, z, -y), atol=1e-4), ident
    # the POSITION bounds of the 侯's top panel, moved by its node: the 侯 lies south (glTF +z)
    node = next(n for n in g.nodes if n.name == "L_hou_shangshe")
    acc = g.accessors[g.meshes[node.mesh].primitives[0].attributes.POSITION]
    top = acc.max[1] + node.translation[1]
    assert top == pytest.approx(reading.params["hou_top"], abs=1e-3)
    assert node.translation[2] == pytest.approx(-reading.params["hou_y"], abs=1e-4)
    assert np.allclose(to_yup([1.0, 2.0, 3.0]), [1.0, 3.0, -2.0])


def test_gltf_from_parts_is_reusable(reading):
    parts = build_ground(reading)[:3]
    builder, root = gltf_from_parts(parts, reading, finish=False)
    extra = builder.node("P_extra", translation=(0, 1, 0))
    g = builder.finish([root, extra])
    assert [g.nodes[i].name for i in g.scenes[0].nodes] == ["ground", "P_extra"]
    assert len(g.nodes[root].children) == 3


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "glb"])
def test_other_formats(reading, tmp_path, fmt):
    out = export_ground(reading, tmp_path / f"g.{fmt}", fmt=fmt)
    assert out.exists() and out.stat().st_size > 1000
    if fmt == "obj":
        text = out.read_text()
        assert "o L_xijie" in text and "usemtl" in text and (tmp_path / "g.mtl").exists()
    if fmt == "gltf":
        assert json.loads(out.read_text())["buffers"][0]["uri"].startswith("data:")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no temporary left


def test_unknown_format(reading, tmp_path):
    with pytest.raises(ValueError):
        export_ground(reading, tmp_path / "g.fbx", fmt="fbx")
    assert not (tmp_path / "g.fbx").exists()


def test_khronos_validator(glb):
    script = TOOLS / "gltf_validate.sh"
    if not script.exists():
        pytest.skip(f"validator script not found at {script}")
    if not shutil.which("node"):
        pytest.skip("node is not installed: cannot run the Khronos glTF validator")
    r = subprocess.run(["bash", str(script), str(glb)], capture_output=True, text=True, timeout=300)
    if r.returncode == 2:
        pytest.skip("gltf-validator could not be set up (npm install into /tmp/gltfv failed): " + r.stdout[-200:])
    assert r.returncode == 0, r.stdout
    assert "0 errors, 0 warnings" in r.stdout


def test_blender_import(glb, reading):
    script = TOOLS / "blender_import_check.py"
    if not shutil.which("blender"):
        pytest.skip("blender is not installed: cannot check the import")
    if not script.exists():
        pytest.skip(f"Blender check script not found at {script}")
    parts = build_ground(reading)
    r = subprocess.run(["blender", "-b", "--python", str(script), "--", str(glb), "--expect-meshes", str(len(parts))],
                       capture_output=True, text=True, timeout=300)
    if r.returncode == 2 and "numpy" in (r.stdout + r.stderr):
        pytest.skip("Blender's Python lacks numpy (apt-get install python3-numpy)")
    assert r.returncode == 0, r.stdout[-2000:]
    line = [l for l in r.stdout.splitlines() if l.startswith("bbox size")][0]
    lo = np.array([p.mesh.bounds[0] for p in parts]).min(axis=0)
    hi = np.array([p.mesh.bounds[1] for p in parts]).max(axis=0)
    want = f"({hi[0] - lo[0]:.3f}, {hi[1] - lo[1]:.3f}, {hi[2] - lo[2]:.3f})"
    assert want in line, (want, line)
