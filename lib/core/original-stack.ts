// Stack traces of unexpected errors, mapped back to the TypeScript sources.
//
// The bundles ship a linked `.mjs.map` but run without `--enable-source-maps`: with the flag Node parses the
// map of every bundle at module load (+20 ms of cold start on a 500 KB bundle). Only a 5xx needs readable
// frames, so the map of a bundle is read on the first such error and kept for the container's lifetime.
// Nothing here touches the file system at import time.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';

/** Frames mapped per stack (V8 records 10 by default): bounds the work done on a runaway stack. */
const MAX_FRAMES = 20;
/** Bundles whose maps are kept: a function runs one bundle, so more is not the Lambda case. */
const MAX_MAPS = 4;

/** Parsed maps by bundle path; `null` remembers a bundle without a readable map, so it is tried once. */
const maps = new Map<string, SourceMap | null>();

/** `    at name (file:///var/task/functions/x/y.mjs:1:2345)` or `    at file:///…/y.mjs:1:2345`. */
const FRAME = /^(\s*at (?:.+? \()?)((?:file:\/\/)?\/[^()]+?\.m?js):(\d+):(\d+)(\)?)$/;

const mapOf = (file: string): SourceMap | null => {
  const known = maps.get(file);
  if (known !== undefined) return known;
  if (maps.size >= MAX_MAPS) return null;
  let map: SourceMap | null = null;
  try {
    map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    // No map next to the bundle, or not a source map: the frames stay as they are.
  }
  maps.set(file, map);
  return map;
};

/** One frame mapped to its original source, or `undefined` when it is not in a mapped bundle. */
const mapFrame = (frame: string): string | undefined => {
  const match = FRAME.exec(frame);
  if (!match) return undefined;
  const [, before = '', location = '', line = '', column = '', after = ''] = match;
  if (location.includes('/node_modules/')) return undefined;
  const file = location.startsWith('file://') ? decodeURIComponent(new URL(location).pathname) : location;
  const line0 = Number(line) - 1;
  const entry = mapOf(file)?.findEntry(line0, Number(column) - 1);
  if (!entry || !('originalSource' in entry) || entry.generatedLine !== line0) return undefined;
  // esbuild writes sources relative to the map (`../../../lib/http/handler.ts`); the build folder is not
  // where the bundle runs, so the repository-relative path is the readable one.
  const source = entry.originalSource.replace(/^(?:\.\.?\/)+/, '');
  return `${before}${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}${after}`;
};

/**
 * The stack of `error` with its bundle frames mapped to the original sources (`lib/…/x.ts:12:5`), or
 * `undefined` when no frame could be mapped (no stack, no map, not a bundle). Never throws.
 */
export const originalStack = (error: unknown): string | undefined => {
  try {
    const stack = (error as Error | undefined)?.stack;
    if (typeof stack !== 'string') return undefined;
    let frames = 0;
    let mapped = 0;
    const lines = stack.split('\n').map((line) => {
      if (frames >= MAX_FRAMES || !/^\s*at /.test(line)) return line;
      frames += 1;
      const original = mapFrame(line);
      if (original === undefined) return line;
      mapped += 1;
      return original;
    });
    return mapped > 0 ? lines.join('\n') : undefined;
  } catch {
    return undefined;
  }
};

/** The log fields of an unexpected error: the error itself and, when the bundle's map resolves it, its source stack. */
export const errorFields = (error: unknown): { error: Error; originalStack?: string } => {
  const mapped = originalStack(error);
  return { error: error as Error, ...(mapped ? { originalStack: mapped } : {}) };
};
