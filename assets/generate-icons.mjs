// Generates Windeck's icons from one shape list, with no dependencies and no downloads:
//   assets/icon.svg                 the vector source (for docs and the web host)
//   assets/icons/<N>x<N>.png        16..1024, Linux (AppImage/deb) and macOS (dmg) icons
//   assets/icon.ico                 Windows (NSIS, portable): PNG-compressed entries 16..256
// Run: node assets/generate-icons.mjs   (outputs are committed; rerun after changing SHAPES)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const VIEW = 512;

/** The icon on a 512 grid, painted in order: a deep-blue tile, four window panes, and the deck bar below. */
export const SHAPES = [
  { x: 0, y: 0, w: 512, h: 512, r: 112, color: '#15336e' },
  { x: 112, y: 88, w: 134, h: 134, r: 18, color: '#5cc8ff' },
  { x: 266, y: 88, w: 134, h: 134, r: 18, color: '#5cc8ff' },
  { x: 112, y: 242, w: 134, h: 134, r: 18, color: '#5cc8ff' },
  { x: 266, y: 242, w: 134, h: 134, r: 18, color: '#9be0ff' },
  { x: 112, y: 404, w: 288, h: 26, r: 13, color: '#ffffff' },
];
export const PNG_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];

export function svg() {
  const rects = SHAPES.map((s) => `  <rect x="${s.x}" y="${s.y}" width="${s.w}" height="${s.h}" rx="${s.r}" fill="${s.color}"/>`).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${VIEW} ${VIEW}" width="${VIEW}" height="${VIEW}">\n  <title>Windeck</title>\n${rects}\n</svg>\n`;
}

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function insideRoundedRect(px, py, s) {
  if (px < s.x || py < s.y || px > s.x + s.w || py > s.y + s.h) return false;
  const cx = Math.min(Math.max(px, s.x + s.r), s.x + s.w - s.r);
  const cy = Math.min(Math.max(py, s.y + s.r), s.y + s.h - s.r);
  return (px - cx) ** 2 + (py - cy) ** 2 <= s.r ** 2;
}

/** RGBA pixels at `size`, anti-aliased by 4x4 supersampling (premultiplied while summing). */
export function rasterize(size) {
  const samples = 4;
  const out = Buffer.alloc(size * size * 4);
  const colors = SHAPES.map((s) => rgb(s.color));
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < samples; sy += 1) {
        for (let sx = 0; sx < samples; sx += 1) {
          const px = ((x + (sx + 0.5) / samples) * VIEW) / size;
          const py = ((y + (sy + 0.5) / samples) * VIEW) / size;
          let color = null;
          for (let i = 0; i < SHAPES.length; i += 1) if (insideRoundedRect(px, py, SHAPES[i])) color = colors[i];
          if (color) {
            r += color[0];
            g += color[1];
            b += color[2];
            a += 1;
          }
        }
      }
      const o = (y * size + x) * 4;
      const n = samples * samples;
      out[o] = a ? Math.round(r / a) : 0;
      out[o + 1] = a ? Math.round(g / a) : 0;
      out[o + 2] = a ? Math.round(b / a) : 0;
      out[o + 3] = Math.round((a / n) * 255);
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG (RGBA, 8 bit) of the given pixels. */
export function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y += 1) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** An .ico whose entries are PNGs (valid since Windows Vista; electron-builder needs a 256 entry). */
export function encodeIco(pngs) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  const entries = [];
  let offset = 6 + 16 * pngs.length;
  for (const { size, png } of pngs) {
    const e = Buffer.alloc(16);
    e[0] = size >= 256 ? 0 : size;
    e[1] = size >= 256 ? 0 : size;
    e.writeUInt16LE(1, 4); // planes
    e.writeUInt16LE(32, 6); // bits per pixel
    e.writeUInt32LE(png.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += png.length;
    entries.push(e);
  }
  return Buffer.concat([header, ...entries, ...pngs.map((p) => p.png)]);
}

export function generate(outDir = here) {
  fs.mkdirSync(path.join(outDir, 'icons'), { recursive: true });
  fs.writeFileSync(path.join(outDir, 'icon.svg'), svg());
  const pngs = new Map();
  for (const size of PNG_SIZES) {
    const png = encodePng(size, rasterize(size));
    pngs.set(size, png);
    fs.writeFileSync(path.join(outDir, 'icons', `${size}x${size}.png`), png);
  }
  fs.writeFileSync(path.join(outDir, 'icon.png'), pngs.get(512));
  fs.writeFileSync(path.join(outDir, 'icon.ico'), encodeIco(ICO_SIZES.map((size) => ({ size, png: pngs.get(size) }))));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  generate();
  process.stdout.write(`icons written to ${here}\n`);
}
