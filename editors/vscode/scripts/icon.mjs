// Draws the extension's icon, images/icon.png: 128x128 RGBA, a dark rounded
// square with three bars (metrics) and the derived line over them. No
// image library: shapes are sampled 4x4 per pixel and written with a
// minimal PNG encoder (zlib from node). Run "node scripts/icon.mjs" after
// changing it; the PNG is committed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const size = 128;
const sub = 4; // samples per pixel and axis

const background = [0x1b, 0x2b, 0x41];
const bar = [0x3d, 0x8e, 0xc9];
const line = [0xf5, 0xa6, 0x23];

function inRoundedSquare(x, y, r) {
  const cx = Math.min(Math.max(x, r), size - r);
  const cy = Math.min(Math.max(y, r), size - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

const bars = [
  { x0: 26, x1: 44, y0: 70 },
  { x0: 55, x1: 73, y0: 52 },
  { x0: 84, x1: 102, y0: 36 },
];
const barBottom = 104;
const points = [
  [22, 84],
  [50, 60],
  [78, 66],
  [106, 24],
];
const lineWidth = 7;

function distanceToSegment(x, y, [ax, ay], [bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - ax - t * dx, y - ay - t * dy);
}

/** The colour at a point, or null outside the icon. */
function colourAt(x, y) {
  if (!inRoundedSquare(x, y, 22)) {
    return null;
  }
  for (let i = 1; i < points.length; i++) {
    if (distanceToSegment(x, y, points[i - 1], points[i]) <= lineWidth / 2) {
      return line;
    }
  }
  for (const p of points) {
    if (Math.hypot(x - p[0], y - p[1]) <= 6.5) {
      return line;
    }
  }
  for (const b of bars) {
    if (x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= barBottom) {
      return bar;
    }
  }
  return background;
}

const raw = Buffer.alloc(size * (1 + size * 4));
for (let y = 0; y < size; y++) {
  const row = y * (1 + size * 4);
  raw[row] = 0; // filter: none
  for (let x = 0; x < size; x++) {
    const acc = [0, 0, 0, 0];
    for (let sy = 0; sy < sub; sy++) {
      for (let sx = 0; sx < sub; sx++) {
        const c = colourAt(x + (sx + 0.5) / sub, y + (sy + 0.5) / sub);
        if (c) {
          acc[0] += c[0];
          acc[1] += c[1];
          acc[2] += c[2];
          acc[3] += 1;
        }
      }
    }
    const o = row + 1 + x * 4;
    if (acc[3] > 0) {
      raw[o] = Math.round(acc[0] / acc[3]);
      raw[o + 1] = Math.round(acc[1] / acc[3]);
      raw[o + 2] = Math.round(acc[2] / acc[3]);
    }
    raw[o + 3] = Math.round((255 * acc[3]) / (sub * sub));
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) {
    c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) {
    c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(size, 0);
ihdr.writeUInt32BE(size, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = path.join(root, 'images', 'icon.png');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, png);
console.log(`icon: ${path.relative(process.cwd(), out)}: ${size}x${size}, ${png.length} bytes`);
