#!/usr/bin/env python3
"""Degraded "photos" of real card QR codes, read by our reader, zxing-cpp and zbarimg.

Makes a seeded, deterministic corpus in .build/qr-photos/ from the SMART Health Card QR codes
(the spec's and the HL7 IG's SVGs, rendered to pixels, and the real PNGs in ../shared/vectors/shc)
and a sample of EU DCC QR codes, each degraded like a phone photo of a card: rotation, perspective,
blur, uneven light, noise, scale, paper margin and JPEG. Single-factor sweeps show where each reader
breaks; a random mix shows how they do on photos that go wrong in several ways at once.

A read counts only when the decoded text equals the expected text exactly. The expected text is what
our reader reads from the clean image, and zxing-cpp must agree on it.

Usage (normally through Scripts/qr-photos.sh): qr-photos.py [BINARY] [--seed N] [--mix N]
Exits 1 when our overall read rate is below zxing-cpp's, 2 when the corpus cannot be made.
"""

import argparse
import base64
import glob
import io
import json
import math
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SHARED = os.path.join(ROOT, "..", "shared", "vectors")
OUT = os.path.join(ROOT, ".build", "qr-photos")

# The neutral photo every sweep starts from: sharp, square-on, evenly lit, high JPEG quality, with
# the contrast of print on paper (not pure black on pure white).
NEUTRAL = {
    "angle": 0.0, "jitter": 0.0, "blur": 0.0, "light": "none", "light_strength": 0.0,
    "noise": 0.0, "ppm": 5.0, "margin": 4.0, "quality": 95, "black": 25.0, "paper": 228.0,
}

# One factor at a time, the rest neutral. Each value is a bucket in the table.
SWEEPS = {
    "rotation": [("angle", v) for v in (5, 15, 25, 35, 45)],
    "perspective": [("jitter", v) for v in (0.03, 0.06, 0.09, 0.12, 0.15)],
    "blur": [("blur", v) for v in (0.5, 1.0, 1.5, 2.0, 2.5)],
    "light": [("light", v) for v in ("linear", "radial", "shadow", "linear+shadow")],
    "noise": [("noise", v) for v in (5, 10, 15, 20)],
    "scale": [("ppm", v) for v in (2.5, 3.0, 4.0, 6.0, 8.0)],
    "margin": [("margin", v) for v in (1.0, 2.0, 8.0)],
    "jpeg": [("quality", v) for v in (40, 55, 70, 85)],
}
SOURCES_PER_SWEEP_VALUE = 4

# Where each factor counts as "strong" in the random mix (the table's mix rows).
MIX_STRONG = {
    "rotation": lambda p: abs(p["angle"]) >= 30,
    "perspective": lambda p: p["jitter"] >= 0.10,
    "blur": lambda p: p["blur"] >= 1.5,
    "light": lambda p: p["light"] != "none" and p["light_strength"] >= 0.4,
    "noise": lambda p: p["noise"] >= 12,
    "scale": lambda p: p["ppm"] < 3.5,
    "margin": lambda p: p["margin"] < 2,
    "jpeg": lambda p: p["quality"] < 60,
}


# ---------------------------------------------------------------- sources

def svg_modules(path):
    """The dark modules of a spec QR SVG: a viewBox of N×N units and one stroked path of
    `M x y.5 h n m dx dy …` runs, one unit per module (quiet zone included)."""
    text = open(path, encoding="utf-8").read()
    n = int(re.search(r'viewBox="0 0 (\d+) \d+"', text).group(1))
    d = re.search(r'<path stroke="#000000" d="([^"]+)"', text).group(1)
    grid = np.zeros((n, n), dtype=bool)
    x = y = 0.0
    for cmd, args in re.findall(r"([MmHhVv])([^MmHhVv]*)", d):
        nums = [float(v) for v in args.replace(",", " ").split()]
        if cmd == "M":
            x, y = nums
        elif cmd == "m":
            x, y = x + nums[0], y + nums[1]
        elif cmd == "h":
            grid[int(math.floor(y)), int(x):int(x + nums[0])] = True
            x += nums[0]
        else:
            raise ValueError(f"{path}: unexpected path command {cmd}")
    return grid


def render_modules(grid, ppm):
    img = np.where(grid, 0, 255).astype(np.uint8)
    return Image.fromarray(img, "L").resize((grid.shape[1] * ppm, grid.shape[0] * ppm), Image.NEAREST)


def load_sources(seed):
    """(name, clean image path, crisp) for every source; crisp sources are drawn module-exact."""
    clean_dir = os.path.join(OUT, "clean")
    os.makedirs(clean_dir, exist_ok=True)
    sources = []
    seen_svgs = set()
    for folder in ("shc-spec", "shc-hl7-ig"):
        for svg in sorted(glob.glob(os.path.join(SHARED, folder, "*.svg"))):
            grid = svg_modules(svg)
            key = grid.tobytes()
            if key in seen_svgs:
                continue
            seen_svgs.add(key)
            name = f"{folder}-{os.path.basename(svg)[:-4]}"
            path = os.path.join(clean_dir, name + ".png")
            render_modules(grid, 6).save(path)
            sources.append((name, path, True))
    for png in sorted(glob.glob(os.path.join(SHARED, "shc", "*", "*.png"))):
        sources.append((f"shc-{os.path.basename(png)[:-4]}", png, False))
    dcc = sorted(glob.glob(os.path.join(SHARED, "eu-dcc", "*", "2DCode", "raw", "*.json")))
    picked = []
    for path in random.Random(seed).sample(dcc, len(dcc)):
        try:
            b64 = json.load(open(path, encoding="utf-8")).get("2DCODE")
        except (ValueError, UnicodeDecodeError):
            continue
        if not b64:
            continue
        parts = path.split(os.sep)
        name = f"dcc-{parts[-4]}-{os.path.basename(path)[:-5]}"
        out = os.path.join(clean_dir, name + ".png")
        try:
            Image.open(io.BytesIO(base64.b64decode(b64))).save(out)
        except Exception:  # a malformed vector (some are negative tests) is simply skipped
            continue
        picked.append((name, out, True))
        if len(picked) == 20:
            break
    return sources + sorted(picked)


def as_rgb_on_white(img):
    if img.mode in ("RGBA", "LA", "P"):
        img = img.convert("RGBA")
        white = Image.new("RGBA", img.size, (255, 255, 255, 255))
        img = Image.alpha_composite(white, img)
    return img.convert("RGB")


# ---------------------------------------------------------------- readers

def zbar_read(path):
    try:
        r = subprocess.run(["zbarimg", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", path],
                           capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return []
    # --raw ends each symbol with a newline.
    return [t for t in r.stdout.decode("utf-8", "replace").split("\n") if t]


def zxing_read(path):
    img = Image.open(path)
    img.load()
    try:
        return [b.text for b in zxingcpp.read_barcodes(img) if b.valid]
    except Exception:
        return []


def ours_read(binary, path):
    try:
        r = subprocess.run([binary, "qr", "decode", "--json", path], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return []
    try:
        return [entry["text"] for entry in json.loads(r.stdout.decode("utf-8"))]
    except (ValueError, KeyError, TypeError):
        return []


# ---------------------------------------------------------------- degradations

def perspective_coefficients(dst, src):
    """PIL's PERSPECTIVE coefficients: output pixel (x, y) ← input pixel of the map taking
    quadrilateral dst onto src."""
    a = []
    b = []
    for (x, y), (u, v) in zip(dst, src):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b += [u, v]
    return np.linalg.solve(np.array(a, dtype=float), np.array(b, dtype=float)).tolist()


def smooth_field(rng, w, h, cells, amplitude):
    """Low-frequency texture: a coarse random grid upsampled bicubically."""
    coarse = rng.uniform(-amplitude, amplitude, size=(cells, cells)).astype(np.float32)
    img = Image.fromarray(coarse, "F").resize((w, h), Image.BICUBIC)
    return np.asarray(img, dtype=np.float32)


def light_field(rng, w, h, kind, strength):
    """A multiplicative brightness map: 1 is full light."""
    field = np.ones((h, w), dtype=np.float32)
    if kind == "none" or strength <= 0:
        return field
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = xx / max(w - 1, 1), yy / max(h - 1, 1)
    if "linear" in kind:
        theta = rng.uniform(0, 2 * math.pi)
        t = (xn - 0.5) * math.cos(theta) + (yn - 0.5) * math.sin(theta)
        t = (t - t.min()) / max(float(t.max() - t.min()), 1e-6)
        field *= 1 - strength * t
    if "radial" in kind:
        cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        r2 = ((xn - cx) ** 2 + (yn - cy) ** 2) / 0.5
        field *= 1 - strength * np.clip(r2, 0, 1)
    if "shadow" in kind:
        # A soft-edged band, like the shadow of a phone or a hand across the card.
        theta = rng.uniform(0, math.pi)
        t = (xn - 0.5) * math.cos(theta) + (yn - 0.5) * math.sin(theta)
        centre, half, soft = rng.uniform(-0.25, 0.25), rng.uniform(0.08, 0.2), rng.uniform(0.02, 0.08)
        inside = np.clip((half - np.abs(t - centre)) / soft + 0.5, 0, 1)
        field *= 1 - 0.85 * strength * inside
    return field


def degrade(master, p, rng):
    """One photo of `master` (see Master) with parameters p; returns an RGB PIL image."""
    # Paper: the QR and `margin` modules around it, cropped from the source (white beyond it).
    m = p["margin"] * master.ppm
    x0, y0 = master.box[0] - m, master.box[1] - m
    x1, y1 = master.box[2] + m, master.box[3] + m
    crop = master.image.crop((int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))))
    # crop() fills outside the source with black; the code is printed on white paper.
    mask = Image.new("L", master.image.size, 255).crop((int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))))
    crop = Image.composite(crop, Image.new("RGB", crop.size, (255, 255, 255)), mask)
    scale = p["ppm"] / master.ppm
    pw, ph = max(8, int(round(crop.width * scale))), max(8, int(round(crop.height * scale)))
    paper = crop.resize((pw, ph), Image.LANCZOS)

    # Ink and paper levels and a slight warm tint, as printed cards photograph.
    arr = np.asarray(paper, dtype=np.float32) / 255.0
    tint = np.array([1.0, 0.98, 0.93], dtype=np.float32)
    arr = p["black"] + (p["paper"] - p["black"]) * arr
    arr = arr * tint
    paper = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")

    # Geometry: rotate the paper's corners about its centre, jitter them for perspective.
    cx, cy = pw / 2, ph / 2
    a = math.radians(p["angle"])
    side = max(pw, ph)
    dst = []
    for (x, y) in ((0, 0), (pw, 0), (pw, ph), (0, ph)):
        dx, dy = x - cx, y - cy
        rx, ry = dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)
        jx, jy = rng.uniform(-1, 1, size=2) * p["jitter"] * side
        dst.append((rx + jx, ry + jy))
    border = 0.06 * side + 12
    minx, miny = min(q[0] for q in dst), min(q[1] for q in dst)
    dst = [(x - minx + border, y - miny + border) for x, y in dst]
    w = int(math.ceil(max(q[0] for q in dst) + border))
    h = int(math.ceil(max(q[1] for q in dst) + border))
    coeffs = perspective_coefficients(dst, [(0, 0), (pw, 0), (pw, ph), (0, ph)])
    warped = paper.transform((w, h), Image.PERSPECTIVE, coeffs, Image.BICUBIC)
    mask = Image.new("L", paper.size, 255).transform((w, h), Image.PERSPECTIVE, coeffs, Image.BILINEAR)

    # The table under the card: a darker, mottled surface.
    base = rng.uniform(50, 150)
    table = base + smooth_field(rng, w, h, 6, 25)
    table = np.stack([table * 1.0, table * 0.95, table * 0.88], axis=-1)
    photo = Image.composite(warped, Image.fromarray(np.clip(table, 0, 255).astype(np.uint8), "RGB"), mask)

    if p["blur"] > 0:
        photo = photo.filter(ImageFilter.GaussianBlur(p["blur"]))
    arr = np.asarray(photo, dtype=np.float32)
    arr = arr * light_field(rng, w, h, p["light"], p["light_strength"])[..., None]
    if p["noise"] > 0:
        # Luminance noise, as a phone sensor's is mostly.
        arr = arr + rng.normal(0, p["noise"], size=(h, w))[..., None]
    return Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8), "RGB")


class Master:
    """A source ready to be photographed: an RGB image, the QR's bounding box in it and its
    pixels per module. Crisp (module-exact) sources are redrawn at 8 px per module so any
    target scale is a downscale."""

    def __init__(self, path, crisp, zx):
        img = as_rgb_on_white(Image.open(path))
        pts = [(zx.position.top_left.x, zx.position.top_left.y), (zx.position.top_right.x, zx.position.top_right.y),
               (zx.position.bottom_right.x, zx.position.bottom_right.y), (zx.position.bottom_left.x, zx.position.bottom_left.y)]
        modules = 17 + 4 * int(zx.extra["Version"])
        # zxing's corners are the outer corners of the corner modules, inclusive.
        xs, ys = [q[0] for q in pts], [q[1] for q in pts]
        box = [min(xs), min(ys), max(xs) + 1, max(ys) + 1]
        ppm = (box[2] - box[0]) / modules
        if crisp and ppm < 8:
            k = int(math.ceil(8 / round(ppm)))
            img = img.resize((img.width * k, img.height * k), Image.NEAREST)
            box = [v * k for v in box]
            ppm *= k
        self.image, self.box, self.ppm = img, box, ppm
        self.modules = modules


_JOBS, _SEED = [], 0


def make_photo(index):
    """Makes photo `index` of the plan: the .jpg, and a PNG of the pixels it decodes to."""
    name, s, buckets, p = _JOBS[index]
    rng = np.random.default_rng([_SEED, index])
    img = degrade(s["master"], p, rng)
    jpg = os.path.join(OUT, "photos", f"{index:03d}-{name}.jpg")
    img.save(jpg, quality=int(p["quality"]))
    # The exact pixels a JPEG decoder gives back, for a reader that takes only PNG.
    png = jpg[:-4] + ".png"
    Image.open(jpg).convert("RGB").save(png, compress_level=1)
    return {"file": jpg, "png": png, "source": s["name"], "expected": s["expected"],
            "buckets": buckets, "params": p, "size": list(img.size)}


def plan(sources, seed, mix_count):
    """Every photo to make: (name, bucket list, params), deterministic in seed."""
    rng = random.Random(seed)
    jobs = []
    for i, s in enumerate(sources):
        jobs.append((f"clean-{i:02d}", s, ["clean"], dict(NEUTRAL)))
    k = 0
    for factor, values in SWEEPS.items():
        for key, value in values:
            for j in range(SOURCES_PER_SWEEP_VALUE):
                s = sources[k % len(sources)]
                k += 1
                p = dict(NEUTRAL)
                p[key] = value
                if key == "light":
                    p["light_strength"] = 0.6
                if key == "angle" and j % 2:
                    p["angle"] = -value
                jobs.append((f"{factor}-{value}-{j}".replace("+", "_"), s, [f"{factor} {value}"], p))
    for i in range(mix_count):
        s = sources[rng.randrange(len(sources))]

        def pick(lo, hi):
            # Each factor is off in about a third of the mix, so easy and hard photos both occur.
            return rng.uniform(lo, hi) if rng.random() < 0.65 else None

        p = dict(NEUTRAL)
        p["angle"] = rng.uniform(-45, 45)
        p["jitter"] = pick(0, 0.15) or 0.0
        p["blur"] = pick(0, 2.5) or 0.0
        kind = rng.choice(["none", "linear", "radial", "shadow", "linear+shadow", "radial+shadow"])
        p["light"], p["light_strength"] = kind, (rng.uniform(0.2, 0.6) if kind != "none" else 0.0)
        p["noise"] = pick(0, 20) or 0.0
        p["ppm"] = rng.uniform(2.5, 8)
        p["margin"] = rng.choice([1.0, 2.0, 4.0, 4.0, 6.0, 10.0])
        p["quality"] = rng.randint(40, 95)
        p["black"], p["paper"] = rng.uniform(10, 70), rng.uniform(170, 245)
        buckets = ["mix"] + [f"mix, strong {f}" for f, strong in MIX_STRONG.items() if strong(p)]
        jobs.append((f"mix-{i:03d}", s, buckets, p))
    return jobs


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build", "debug", "healthrecords"))
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--mix", type=int, default=150, help="how many randomly mixed photos (default 150)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--show-losses", action="store_true", help="list photos zxing-cpp reads and we do not")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"no executable reader at {binary}")

    started = time.monotonic()
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(os.path.join(OUT, "photos"))

    # Sources and their expected texts.
    sources = []
    for name, path, crisp in load_sources(args.seed):
        ours = ours_read(binary, path)
        zx = [b for b in zxingcpp.read_barcodes(as_rgb_on_white(Image.open(path))) if b.valid]
        zx_texts = [b.text for b in zx]
        if len(ours) != 1 or len(zx) != 1:
            print(f"skip {name}: clean image reads as {len(ours)} code(s) here and {len(zx)} in zxing-cpp", file=sys.stderr)
            continue
        if ours[0] != zx_texts[0]:
            print(f"skip {name}: our reader and zxing-cpp disagree on the clean image", file=sys.stderr)
            continue
        sources.append({"name": name, "path": path, "expected": ours[0], "master": Master(path, crisp, zx[0])})
    if len(sources) < 10:
        print(f"only {len(sources)} usable sources; is ../shared/vectors there?", file=sys.stderr)
        sys.exit(2)

    jobs = plan(sources, args.seed, args.mix)
    global _JOBS, _SEED
    _JOBS, _SEED = jobs, args.seed
    # Each photo has its own RNG (seed, index), so making them in parallel changes nothing.
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        photos = pool.map(make_photo, range(len(jobs)))
    made = time.monotonic() - started

    # Does our reader take JPEG yet? Ask it about the cleanest photo.
    probe = photos[0]
    ours_takes_jpeg = probe["expected"] in ours_read(binary, probe["file"])
    print(f"{len(sources)} sources, {len(photos)} photos made in {made:.0f}s; our reader reads "
          + ("the .jpg files" if ours_takes_jpeg else "PNG copies of the decoded .jpg pixels (it does not take JPEG yet)"))

    timings = {"ours": 0.0, "zxing-cpp": 0.0, "zbarimg": 0.0}

    def read_one(photo):
        out = {}
        for reader, fn in (("ours", lambda: ours_read(binary, photo["file"] if ours_takes_jpeg else photo["png"])),
                           ("zxing-cpp", lambda: zxing_read(photo["file"])),
                           ("zbarimg", lambda: zbar_read(photo["file"]))):
            t = time.monotonic()
            texts = fn()
            timings[reader] += time.monotonic() - t
            out[reader] = photo["expected"] in texts
        return out

    read_started = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for photo, result in zip(photos, pool.map(read_one, photos)):
            photo["read"] = result
    read_time = time.monotonic() - read_started

    readers = ["ours", "zxing-cpp", "zbarimg"]
    order = ["clean"] + [f"{f} {v}" for f, values in SWEEPS.items() for _, v in values] \
        + ["mix"] + [f"mix, strong {f}" for f in MIX_STRONG]
    table = []
    for bucket in order + ["overall"]:
        members = photos if bucket == "overall" else [ph for ph in photos if bucket in ph["buckets"]]
        if not members:
            continue
        row = {"bucket": bucket, "photos": len(members)}
        for r in readers:
            row[r] = sum(ph["read"][r] for ph in members) / len(members)
        table.append(row)

    print(f"\n{'bucket':<26}{'photos':>7}{'ours':>9}{'zxing-cpp':>11}{'zbarimg':>9}")
    for row in table:
        if row["bucket"] in ("mix", "overall"):
            print("-" * 62)
        print(f"{row['bucket']:<26}{row['photos']:>7}" + "".join(f"{100 * row[r]:>{w}.1f}%" for r, w in zip(readers, (8, 10, 8))))
    total = time.monotonic() - started
    print(f"\nreading took {read_time:.0f}s ({args.jobs} at a time); reader time per photo: "
          + ", ".join(f"{r} {1000 * timings[r] / len(photos):.0f} ms" for r in readers) + f"; whole run {total:.0f}s")

    losses = [ph for ph in photos if ph["read"]["zxing-cpp"] and not ph["read"]["ours"]]
    wins = [ph for ph in photos if ph["read"]["ours"] and not ph["read"]["zxing-cpp"]]
    print(f"zxing-cpp reads {len(losses)} photo(s) we do not; we read {len(wins)} it does not")
    if args.show_losses:
        for ph in losses:
            print("  lost:", os.path.relpath(ph["file"], ROOT))

    overall = table[-1]
    summary = {
        "seed": args.seed, "binary": binary, "oursInput": "jpeg" if ours_takes_jpeg else "png-of-decoded-jpeg",
        "zxingCpp": getattr(zxingcpp, "__version__", None), "sources": [s["name"] for s in sources],
        "expected": {s["name"]: s["expected"] for s in sources},
        "table": table, "seconds": {"make": made, "read": read_time, "total": total,
                                    "perPhoto": {r: timings[r] / len(photos) for r in readers}},
        "photos": [{k: v for k, v in ph.items() if k not in ("expected",)} for ph in photos],
    }
    with open(os.path.join(OUT, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(f"summary: {os.path.relpath(os.path.join(OUT, 'summary.json'), ROOT)}")
    if overall["ours"] < overall["zxing-cpp"]:
        print(f"FAIL: our read rate {100 * overall['ours']:.1f}% is below zxing-cpp's {100 * overall['zxing-cpp']:.1f}%")
        sys.exit(1)
    print(f"ok: our read rate {100 * overall['ours']:.1f}% ≥ zxing-cpp's {100 * overall['zxing-cpp']:.1f}%")


if __name__ == "__main__":
    main()
