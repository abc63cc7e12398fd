"""Set up the Village Archery Ceremony (鄉射禮) in Blender from the rigged GLB (``render.py export --rig``).

Written by ``render.py export --blender-script F.py``; uses Blender's own Python API only (3.4 or later).

    blender -b --python F.py -- scene.glb [--out scene.blend] [--still MARKER --still-out F.png [--size WxH]]
    blender -b yours.blend --python F.py -- scene.glb --out yours_with_the_rite.blend

or open F.py in Blender's text editor and press Run (the GLB is the one named in SETTINGS below).  It
imports the GLB at 25 fps (headless without a .blend: into an empty scene; otherwise into the open one); gives every person's armature, every prop and the camera
its own action (Blender's importer leaves all but the first glTF animation muted on NLA tracks); sets
the frame range of the export; adds a timeline marker per event of the text (``88 p2.feng.ming``: the
footnote and the clause's id) and one per camera cut (``cut archery:target``, bound to the film's
camera); keys the hall's roof hidden in the shots the video films with the roof cut away; adds the
video's sun and sky, matte materials and the Standard view transform; and saves a .blend.  With
``--still`` it renders one Workbench still at a marker (name, event id or footnote).
"""
import json
import math
import struct
import sys
import time

SETTINGS = {"glb": None, "fps": 25, "size": [1280, 720], "sun_dir": [0.6, -0.45, 0.7], "sun_rgb": "#fff0d6",
            "sky": ["#c9d3d6", "#8fa6b8"], "roughness": 0.9, "roof": []}


def glb_json(path):
    """The JSON of a GLB (its first chunk) or a .gltf (the scene's extras: events, shots, the range), read
    with the standard library."""
    with open(path, "rb") as f:
        magic, _version, _length = struct.unpack("<4sII", f.read(12))
        if magic != b"glTF":
            f.seek(0)
            return json.loads(f.read().decode("utf-8"))
        n, kind = struct.unpack("<I4s", f.read(8))
        if kind != b"JSON":
            raise ValueError(f"{path}: no JSON chunk first")
        return json.loads(f.read(n).decode("utf-8"))


def linear(hex_rgb):
    """sRGB '#rrggbb' → linear (r, g, b), as Blender's colour properties want them."""
    c = [int(hex_rgb.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    return tuple(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c)


def parse(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="blender -b --python setup.py --")
    ap.add_argument("glb", nargs="?", default=SETTINGS["glb"])
    ap.add_argument("--out", default=None, help="the .blend (default: beside the GLB)")
    ap.add_argument("--still", default=None, metavar="MARKER", help="render a Workbench still at this marker")
    ap.add_argument("--still-out", default=None, metavar="F.png")
    ap.add_argument("--size", default=None, metavar="WxH", help="the still's size (default the film's)")
    a = ap.parse_args(argv)
    if not a.glb:
        ap.error("no GLB: give one after -- or write it in SETTINGS")
    return a


def activate_actions(objects):
    """Each animated object plays its own action: the importer stashes every glTF animation on a muted NLA
    track (and makes only the first one active); one animation per person means one track per object."""
    n = 0
    for obj in objects:
        ad = obj.animation_data
        if ad is None:
            continue
        tracks = [t for t in ad.nla_tracks if t.strips]
        if ad.action is None and tracks:
            ad.action = tracks[0].strips[0].action
        for t in list(ad.nla_tracks):
            ad.nla_tracks.remove(t)
        n += ad.action is not None
    return n


def setup(a):
    import bpy
    from mathutils import Vector
    try:                                  # Blender 3.4's importer calls np.bool (removed in numpy 1.24)
        import numpy
        if "bool" not in vars(numpy):
            numpy.bool = bool
    except ImportError:
        pass
    fps = int(SETTINGS["fps"])
    meta = glb_json(a.glb)
    extras = (meta.get("scenes") or [{}])[meta.get("scene", 0)].get("extras", {})
    if bpy.app.background and not bpy.data.filepath:
        bpy.ops.wm.read_factory_settings(use_empty=True)        # blender -b --python: an empty scene, no cube
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = fps, 1.0          # before the import: seconds → frames
    before = set(bpy.data.objects)
    t = time.perf_counter()
    bpy.ops.import_scene.gltf(filepath=a.glb)
    import_s = time.perf_counter() - t
    new = [o for o in bpy.data.objects if o not in before]      # into an open .blend: only what came in
    actions = activate_actions(new)

    start, end = float(extras.get("start_s", 0.0)), float(extras.get("end_s", extras.get("duration_s", 0.0)))
    scene.frame_start, scene.frame_end = int(math.floor(start * fps)), int(math.ceil(end * fps))
    scene.frame_current = scene.frame_start
    w, h = SETTINGS["size"]
    scene.render.resolution_x, scene.render.resolution_y, scene.render.resolution_percentage = w, h, 100

    # the film's camera and its cuts
    cams = [o for o in new if o.type == "CAMERA"]
    cam = cams[0] if cams else None
    shots = extras.get("shots", [])
    if cam is not None:
        scene.camera = cam
        cam.data.sensor_fit = "VERTICAL"
        cam.data.angle_y = math.radians(shots[0]["yfov_deg"] if shots else 38.0)
        cam.data.clip_start, cam.data.clip_end = 0.1, 500.0
    for s in shots:
        if s["cut"] or s is shots[0]:
            m = scene.timeline_markers.new(f"cut {s['kind']}"[:63], frame=int(round(s["t0"] * fps)))
            m.camera = cam
    # the roof, cut away in the shots of the hall as the video does
    roof = [o for o in new if o.name.split(".")[0] in set(SETTINGS["roof"])]
    for o in roof:
        for s in shots:
            f = int(round(s["t0"] * fps))
            o.hide_render = o.hide_viewport = bool(s["cutaway"])
            o.keyframe_insert("hide_render", frame=f)
            o.keyframe_insert("hide_viewport", frame=f)
    # the events of the text
    for e in extras.get("events", []):
        scene.timeline_markers.new(f"{e['footnote']} {e['id']}"[:63], frame=int(round(max(e["start"], start) * fps)))

    # the video's sun and sky, matte materials
    sun = bpy.data.lights.new("sun", type="SUN")
    sun.energy, sun.color, sun.angle = 3.0, linear(SETTINGS["sun_rgb"]), math.radians(1.0)
    sun_obj = bpy.data.objects.new("sun", sun)
    scene.collection.objects.link(sun_obj)
    sun_dir = Vector(SETTINGS["sun_dir"]).normalized()            # towards the sun (x east, y north, z up)
    sun_obj.rotation_euler = sun_dir.to_track_quat("Z", "Y").to_euler()
    world = bpy.data.worlds.new("sky")
    scene.world = world
    world.use_nodes = True
    lo, hi = linear(SETTINGS["sky"][0]), linear(SETTINGS["sky"][1])
    world.color = tuple((x + y) / 2 for x, y in zip(lo, hi))
    bg = world.node_tree.nodes["Background"]
    bg.inputs[0].default_value = (*world.color, 1.0)
    bg.inputs[1].default_value = 1.0
    for mat in bpy.data.materials:
        if mat.node_tree:
            for node in mat.node_tree.nodes:
                if node.type == "BSDF_PRINCIPLED":
                    node.inputs["Roughness"].default_value = SETTINGS["roughness"]
                    node.inputs["Specular"].default_value = 0.2
        mat.roughness = SETTINGS["roughness"]
    scene.view_settings.view_transform = "Standard"
    shading = scene.display.shading
    shading.light, shading.color_type, shading.show_shadows = "STUDIO", "MATERIAL", True
    shading.background_type = "WORLD"
    scene.display.light_direction = sun_dir

    arms = [o for o in new if o.type == "ARMATURE"]
    out = a.out or (a.glb.rsplit(".", 1)[0] + ".blend")
    bpy.ops.wm.save_as_mainfile(filepath=out)
    print(f"setup: imported {a.glb} in {import_s:.1f} s; {len(arms)} armatures, {len(bpy.data.actions)} actions "
          f"({actions} active), {len(scene.timeline_markers)} markers "
          f"({sum(1 for m in scene.timeline_markers if m.name.startswith('cut '))} cuts), "
          f"frames {scene.frame_start}..{scene.frame_end} at {fps} fps; saved {out}")
    if a.still:
        still(bpy, scene, a)
    return 0


def still(bpy, scene, a):
    """A Workbench still at a marker: its name, or an event id or footnote it starts with."""
    marks = list(scene.timeline_markers)
    m = next((m for m in marks if m.name == a.still), None) or next(
        (m for m in marks if not m.name.startswith("cut ") and a.still in m.name.split(" ")), None)
    if m is None:
        raise SystemExit(f"no marker {a.still!r}")
    scene.frame_set(m.frame + 1)                 # just after the marker: the cut or the clause has begun
    scene.render.engine = "BLENDER_WORKBENCH"
    if a.size:
        w, h = (int(v) for v in a.size.lower().split("x"))
        scene.render.resolution_x, scene.render.resolution_y = w, h
    scene.render.filepath = a.still_out or (a.glb.rsplit(".", 1)[0] + f"_{m.frame}.png")
    bpy.ops.render.render(write_still=True)
    print(f"still: marker {m.name!r} at frame {m.frame} → {scene.render.filepath}")


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    return setup(parse(argv))


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    import bpy
    if bpy.app.background:               # blender -b: the exit status; from the text editor: keep Blender open
        sys.exit(code)
