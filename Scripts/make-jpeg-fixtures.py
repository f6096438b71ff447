#!/usr/bin/env python3
"""Makes the JPEG decoder's test fixtures in Tests/QRCodeTests/Fixtures/jpeg/.

Each fixture NAME.jpg comes with NAME.luma.png: the luminance libjpeg-turbo itself decodes
(Pillow's `draft("L")` asks libjpeg for JCS_GRAYSCALE output, which is the Y component as
decoded, with no RGB round trip; for EXIF-rotated files the expected image is turned upright
with ImageOps.exif_transpose). JPEGDecoderTests compares our decoder against these.

Most fixtures are written by Pillow; the sampling factors Pillow cannot ask for (4:1:1, 4:4:0,
luma not at full resolution) and arithmetic coding come from libjpeg-turbo's `cjpeg`.

Rerun (from the repository root):
    python3 -m venv /tmp/jpeg-venv && /tmp/jpeg-venv/bin/pip install pillow numpy qrcode
    apt-get install -y libjpeg-turbo-progs        # cjpeg
    /tmp/jpeg-venv/bin/python Scripts/make-jpeg-fixtures.py [OUTPUT_DIR]

Everything is deterministic (fixed seeds), and the whole set stays well under 300 KB.
"""
import io
import os
import subprocess
import sys
import tempfile

import numpy as np
import qrcode
from PIL import Image, ImageFilter, ImageOps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Tests", "QRCodeTests", "Fixtures", "jpeg")

# The text of the QR photo fixture; JPEGDecoderTests expects exactly this.
QR_TEXT = "shc:/" + "".join(str((i * 7 + 3) % 10) for i in range(160))


def photo_like(width, height, seed):
    """Smooth shading, hard edges and noise: large and small DCT coefficients in every block."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    r = 128 + 90 * np.sin(x / 9.0) * np.cos(y / 13.0)
    g = 40 + 170 * (x / max(width - 1, 1))
    b = 200 - 150 * (y / max(height - 1, 1))
    # A dark disc and a bright bar with sharp edges.
    disc = (x - width * 0.6) ** 2 + (y - height * 0.4) ** 2 < (min(width, height) * 0.25) ** 2
    bar = (np.abs(x - width * 0.25) < 3)
    rgb = np.stack([r, g, b], axis=-1)
    rgb[disc] = [20, 30, 60]
    rgb[bar] = [250, 250, 240]
    rgb += rng.normal(0, 12, rgb.shape)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")


def expected_luma(path):
    im = Image.open(path)
    im.draft("L", None)  # libjpeg's own Y plane, not RGB converted back
    im = im.convert("L") if im.mode != "L" else im
    im.load()
    return ImageOps.exif_transpose(im)


def save_pair(name, writer):
    path = os.path.join(OUT, name + ".jpg")
    writer(path)
    expected_luma(path).save(os.path.join(OUT, name + ".luma.png"), optimize=True)


def pillow(image, **options):
    return lambda path: image.save(path, "JPEG", **options)


def cjpeg(image, *arguments):
    def write(path):
        with tempfile.NamedTemporaryFile(suffix=".ppm") as source:
            image.save(source.name)
            subprocess.run(["cjpeg", *arguments, "-outfile", path, source.name], check=True)
    return write


def qr_photo():
    """A QR code as a phone might see it: rotated, soft, unevenly lit, saved at quality 40."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_L, box_size=4, border=4)
    code.add_data(QR_TEXT)
    code.make(fit=True)
    im = code.make_image(fill_color="black", back_color="white").get_image().convert("L")
    im = im.rotate(17, resample=Image.BICUBIC, expand=True, fillcolor=230)
    im = im.filter(ImageFilter.GaussianBlur(1.1))
    a = np.asarray(im, dtype=np.float64)
    h, w = a.shape
    y, x = np.mgrid[0:h, 0:w]
    light = 0.75 + 0.25 * (x / w) * (1 - 0.4 * y / h)  # brighter on the right
    a = a * light + np.random.default_rng(7).normal(0, 6, a.shape)
    gray = np.clip(a, 0, 255).astype(np.uint8)
    # A faint colour cast so the file is YCbCr 4:2:0, as a phone writes.
    rgb = np.stack([gray, np.clip(gray * 0.97, 0, 255), np.clip(gray * 0.9, 0, 255)], axis=-1).astype(np.uint8)
    return Image.fromarray(rgb, "RGB")


def main():
    os.makedirs(OUT, exist_ok=True)
    color = photo_like(75, 53, 1)          # odd: neither a multiple of 8 nor of 16
    color_large = photo_like(161, 119, 2)
    gray = photo_like(67, 45, 3).convert("L")
    small = photo_like(48, 30, 4)

    save_pair("gray-baseline-q95", pillow(gray, quality=95))
    save_pair("gray-baseline-q40", pillow(gray, quality=40))
    save_pair("gray-progressive-q40", pillow(gray, quality=40, progressive=True))
    save_pair("gray-progressive-q95-restart", pillow(gray, quality=95, progressive=True, restart_marker_blocks=3))
    for sub, label in [(0, "444"), (1, "422"), (2, "420")]:
        save_pair(f"color-{label}-baseline-q95", pillow(color, quality=95, subsampling=sub))
        save_pair(f"color-{label}-baseline-q40", pillow(color, quality=40, subsampling=sub))
        save_pair(f"color-{label}-progressive-q95", pillow(color, quality=95, subsampling=sub, progressive=True))
        save_pair(f"color-{label}-progressive-q40", pillow(color, quality=40, subsampling=sub, progressive=True))
    save_pair("color-420-baseline-optimized", pillow(color_large, quality=85, subsampling=2, optimize=True))
    save_pair("color-420-progressive-large", pillow(color_large, quality=75, subsampling=2, progressive=True))
    save_pair("color-420-restart-every-mcu", pillow(color, quality=80, subsampling=2, restart_marker_blocks=1))
    save_pair("color-420-restart-rows", pillow(color, quality=80, subsampling=2, restart_marker_rows=1))
    save_pair("color-420-progressive-restart", pillow(color, quality=80, subsampling=2, progressive=True, restart_marker_blocks=2))
    save_pair("color-411-baseline", cjpeg(color, "-quality", "90", "-sample", "4x1,1x1,1x1"))
    save_pair("color-440-baseline", cjpeg(color, "-quality", "90", "-sample", "1x2,1x1,1x1"))
    save_pair("color-411-progressive-restart", cjpeg(color, "-quality", "90", "-sample", "4x1,1x1,1x1", "-progressive", "-restart", "1"))
    save_pair("color-mixed-sampling", cjpeg(color, "-quality", "90", "-sample", "2x2,1x2,2x1"))
    for orientation in (3, 6, 8, 2, 5, 7):
        exif = Image.Exif()
        exif[0x0112] = orientation
        save_pair(f"exif-orientation-{orientation}", pillow(small, quality=90, exif=exif.tobytes()))
    # Expected: the decoded text, not pixels.
    qr_photo().save(os.path.join(OUT, "qr-photo-q40.jpg"), "JPEG", quality=40)
    with open(os.path.join(OUT, "qr-photo-q40.txt"), "w") as f:
        f.write(QR_TEXT)
    # Refused formats: the decoder must answer with a typed error.
    cjpeg(small, "-arithmetic")(os.path.join(OUT, "arithmetic.jpg"))
    small.convert("CMYK").save(os.path.join(OUT, "cmyk.jpg"), "JPEG", quality=80)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"{len(os.listdir(OUT))} files, {total} bytes in {OUT}")


if __name__ == "__main__":
    main()
