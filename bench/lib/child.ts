// Runs a benchmark case in a fresh Node process (same loader flags, so .ts works under tsx; --expose-gc so the
// child can collect its input's garbage before measuring), so that peak RSS and JIT state belong to one
// implementation. The child prints one JSON line prefixed with RESULT_TAG.
import { spawn } from 'node:child_process';

export const RESULT_TAG = '@@bench-result ';

export type ChildOutcome<T> =
  | { ok: true; result: T; wallMs: number }
  | { ok: false; reason: string; wallMs: number };

export function runChild<T>(
  script: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<ChildOutcome<T>> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', ...process.execArgv, script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // own process group, stopped as a group on timeout
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      if (timedOut) return resolve({ ok: false, reason: 'timeout', wallMs });
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_TAG));
      if (code !== 0 || !line) {
        return resolve({
          ok: false,
          reason: `exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`,
          wallMs,
        });
      }
      resolve({ ok: true, result: JSON.parse(line.slice(RESULT_TAG.length)) as T, wallMs });
    });
  });
}

export function reportToParent(result: unknown): void {
  process.stdout.write(`${RESULT_TAG}${JSON.stringify(result)}\n`);
}
