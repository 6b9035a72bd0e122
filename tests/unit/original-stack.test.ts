import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/core/logger.js';
import { originalStack } from '../../lib/core/original-stack.js';
import { errorMapper } from '../../lib/http/error-mapper.js';

// A function bundled the way serverless.yml bundles handlers (minified ESM, linked map without sources),
// run without --enable-source-maps: its stack names only the bundle's line 1 and huge columns.
const SOURCE = [
  'export function outer(n: number): number {',
  '  return inner(n) + 1;',
  '}',
  '',
  'function inner(n: number): number {',
  "  if (n > 0) throw new Error('boom from the bundle');",
  '  return n;',
  '}',
].join('\n');
const THROW_LINE = 6;
const THROW_COLUMN = (SOURCE.split('\n')[THROW_LINE - 1] ?? '').indexOf('new Error') + 1;
const CALL_LINE = 2;

let dir: string;

/** Bundles SOURCE as `<dir>/out/<name>.mjs` (+ `.map`) and returns the bundle's path. */
const bundle = async (name: string): Promise<string> => {
  const outfile = join(dir, 'out', 'functions', `${name}.mjs`);
  await build({
    entryPoints: [join(dir, 'src', 'thrower.ts')],
    outfile,
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'silent',
  });
  return outfile;
};

/**
 * The error the bundle at `file` throws, as plain Node reports it. The bundle runs in a child process: in
 * the test runner, vite would transform the import and map the stack itself.
 */
const thrownBy = (file: string): Error => {
  const script = `import(${JSON.stringify(pathToFileURL(file).href)}).then((m) => {
    try { m.outer(1); } catch (error) { process.stdout.write(error.stack); }
  });`;
  const stack = execFileSync(process.execPath, ['--input-type=module', '--eval', script], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (!stack) throw new Error('the bundle did not throw');
  const error = new Error(stack.split('\n')[0]?.replace(/^Error: /, ''));
  error.stack = stack;
  return error;
};

const frames = (stack: string): string[] => stack.split('\n').filter((line) => /^\s*at /.test(line));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arcadia-original-stack-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'thrower.ts'), SOURCE);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('originalStack', () => {
  it('maps the frames of a minified bundle back to the original source', async () => {
    const error = thrownBy(await bundle('mapped'));
    const [top] = frames(error.stack ?? '');
    expect(top).toMatch(/mapped\.mjs:1:\d+\)?$/);

    const stack = originalStack(error);
    expect(stack).toBeDefined();
    const [first, second] = frames(stack ?? '');
    expect(first).toMatch(new RegExp(`\\bsrc/thrower\\.ts:${THROW_LINE}:${THROW_COLUMN}\\)?$`));
    expect(second).toMatch(new RegExp(`\\bsrc/thrower\\.ts:${CALL_LINE}:\\d+\\)?$`));
    expect(stack?.split('\n')[0]).toBe('Error: boom from the bundle');
    // Frames outside the bundle (the test runner's) are kept as they are.
    expect(frames(stack ?? '').length).toBe(frames(error.stack ?? '').length);
    // The map is read once: a second error maps from the cached map.
    expect(originalStack(error)).toBe(stack);
  });

  it('returns undefined when the bundle has no map', async () => {
    const file = await bundle('unmapped');
    unlinkSync(`${file}.map`);
    const error = thrownBy(file);
    expect(originalStack(error)).toBeUndefined();
  });

  it('returns undefined when the map is not a source map', async () => {
    const file = await bundle('corrupt');
    writeFileSync(`${file}.map`, '{"version": 3, "mappings": "%%%');
    const error = thrownBy(file);
    expect(originalStack(error)).toBeUndefined();
    writeFileSync(`${file}.map`, JSON.stringify({ version: 3, sources: 7, mappings: 12 }));
    expect(originalStack(error)).toBeUndefined();
  });

  it('never throws on values that are not errors', () => {
    const hostile = Object.defineProperty({}, 'stack', {
      get() {
        throw new Error('no stack for you');
      },
    });
    for (const value of [undefined, null, 'boom', 42, {}, { stack: 7 }, hostile, new Error('local')]) {
      expect(() => originalStack(value)).not.toThrow();
    }
    expect(originalStack(new Error('not in a bundle'))).toBeUndefined();
  });
});

describe('errorMapper', () => {
  type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

  const failed = (error: unknown): Request =>
    ({
      event: { rawPath: '/games', requestContext: { requestId: 'req-1', http: { method: 'GET' } } },
      context: { awsRequestId: 'aws-1' } as Context,
      response: undefined,
      error,
      internal: {},
    }) as unknown as Request;

  it('logs the original stack of an unhandled error next to the error', async () => {
    const error = thrownBy(await bundle('handler'));
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      const request = failed(error);
      await errorMapper().onError?.(request);
      expect(request.response?.statusCode).toBe(500);
      expect(logged).toHaveBeenCalledOnce();
      const [message, fields] = logged.mock.calls[0] as unknown as [string, Record<string, unknown>];
      expect(message).toBe('unhandled error');
      expect(fields.error).toBe(error);
      expect(fields.originalStack).toMatch(new RegExp(`src/thrower\\.ts:${THROW_LINE}:`));
    } finally {
      logged.mockRestore();
    }
  });

  it('logs no original stack when there is nothing to map', async () => {
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      await errorMapper().onError?.(failed(new Error('not in a bundle')));
      const [, fields] = logged.mock.calls[0] as unknown as [string, Record<string, unknown>];
      expect(fields.originalStack).toBeUndefined();
    } finally {
      logged.mockRestore();
    }
  });
});
