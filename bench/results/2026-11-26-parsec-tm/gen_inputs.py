#!/usr/bin/env python3
"""Generate inputs for the PARSEC TM runs (no PARSEC input archives needed).

gen_inputs.py OUTDIR writes:
  fluid.fluid  fluidanimate input: a block of water on a lattice of spacing
               1/restParticlesPerMeter in the lower part of the PARSEC domain
               (-0.065,-0.08,-0.065)..(0.065,0.1,0.065), tiny deterministic jitter.
  video.y4m    x264 input: 640x360 4:2:0 YUV4MPEG2, moving gradients and a moving box.
  doc.tar      dedup input: a tar of /usr/share/doc (dereferenced symlinks skipped),
               capped at about 40 MB, in a fixed file order.
"""
import os, struct, sys, tarfile, random

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def fluid(path, rppm=200.0):
    rnd = random.Random(7)
    s = 1.0 / rppm
    pts = []
    x0, y0, z0 = -0.065 + s / 2, -0.08 + s / 2, -0.065 + s / 2
    nx, ny, nz = int(0.13 / s), int(0.09 / s), int(0.13 / s)
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                if i > nx * 0.6 and j > ny * 0.3:  # a step, so the fluid moves
                    continue
                px = x0 + i * s + rnd.uniform(-1e-4, 1e-4)
                py = y0 + j * s + rnd.uniform(-1e-4, 1e-4)
                pz = z0 + k * s + rnd.uniform(-1e-4, 1e-4)
                pts.append((px, py, pz))
    with open(path, "wb") as f:
        f.write(struct.pack("<fi", rppm, len(pts)))
        for (px, py, pz) in pts:
            f.write(struct.pack("<9f", px, py, pz, 0, 0, 0, 0, 0, 0))
    return len(pts)

def video(path, w=640, h=360, frames=48):
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (w, h))
        ybase = bytearray(w * h)
        for y in range(h):
            for x in range(w):
                ybase[y * w + x] = (x * 255 // w + y * 97 // h) & 0xff
        for t in range(frames):
            f.write(b"FRAME\n")
            sh = (t * 5) % w
            yp = bytearray(w * h)
            for y in range(h):
                row = ybase[y * w:(y + 1) * w]
                yp[y * w:(y + 1) * w] = row[sh:] + row[:sh]
            bx, by = (t * 9) % (w - 80), (t * 4) % (h - 60)
            for y in range(by, by + 60):
                for x in range(bx, bx + 80):
                    yp[y * w + x] = (200 + ((x ^ y) & 31)) & 0xff
            f.write(bytes(yp))
            cw, chh = w // 2, h // 2
            f.write(bytes(((x + t * 3) & 0xff) for y in range(chh) for x in range(cw)))
            f.write(bytes(((y * 2 + t) & 0xff) for y in range(chh) for x in range(cw)))
    return frames

def doctar(path, cap=40 << 20):
    total = 0
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tf:
        for root, dirs, files in os.walk("/usr/share/doc"):
            dirs.sort()
            for fn in sorted(files):
                p = os.path.join(root, fn)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                ti = tf.gettarinfo(p)
                ti.mtime = 0; ti.uid = ti.gid = 0; ti.uname = ti.gname = ""
                with open(p, "rb") as fh:
                    tf.addfile(ti, fh)
                total += ti.size
                if total > cap:
                    return total
    return total

print("fluid particles", fluid(os.path.join(out, "fluid.fluid")))
print("video frames", video(os.path.join(out, "video.y4m")))
print("doc.tar bytes", doctar(os.path.join(out, "doc.tar")))
