// What every bench script needs: its log line, a Basic header, and temporary data folders
// that are removed when it ends.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const log = (...a) => console.error('bench:', ...a);
export const basic = (u, p) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

const dirs = [];

/** A new temporary folder for a store, removed by removeTempDirs(). */
export function tempDir(name) {
  const d = mkdtempSync(path.join(os.tmpdir(), `tessera-bench-${name}-`));
  dirs.push(d);
  return d;
}

export function removeTempDirs() {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
