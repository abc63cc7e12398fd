"""The gallery cut's contact sheet: one frame from the middle of each chapter, stamped with its time and title.

    python render.py video --cut gallery --size 640x360 --out out/gallery.mp4
    python docs/video/make_gallery_sheet.py out/gallery.mp4 docs/video/gallery_contact_sheet.jpg
"""
import re
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw

from reconstruct.render.encode import ffmpeg_exe
from reconstruct.text.fonts import pil_font


def chapters(path):
    err = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(path)], capture_output=True, text=True).stderr
    starts = [(float(a), float(b)) for a, b in re.findall(r"Chapter #\d+:\d+: start (\S+), end (\S+)", err)]
    titles = re.findall(r"Chapter #.*\n\s+Metadata:\n\s+title\s+: (.*)", err)
    return [(a, b, t) for (a, b), t in zip(starts, titles)]


def frame(path, t, w, h):
    r = subprocess.run([ffmpeg_exe(), "-v", "error", "-ss", f"{t:.3f}", "-i", str(path), "-frames:v", "1",
                        "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True)
    return Image.fromarray(np.frombuffer(r.stdout[: w * h * 3], np.uint8).reshape(h, w, 3))


def main(src, out, w=640, h=360, cols=4):
    ch = chapters(src)
    rows = (len(ch) + cols - 1) // cols
    sheet = Image.new("RGB", (cols * w, rows * h), (20, 17, 14))
    font = pil_font(18)
    for i, (a, b, title) in enumerate(ch):
        t = (a + b) / 2
        im = frame(src, t, w, h)
        d = ImageDraw.Draw(im)
        label = f"{int(t // 60)}:{t % 60:04.1f}  {title}"
        d.rectangle((0, 0, d.textlength(label, font=font) + 12, 28), fill=(20, 17, 14))
        d.text((6, 3), label, font=font, fill=(244, 238, 224))
        sheet.paste(im, ((i % cols) * w, (i // cols) * h))
    sheet.save(out, quality=85) if str(out).endswith(".jpg") else sheet.save(out, optimize=True)
    print(f"wrote {out}: {len(ch)} chapters")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
