// This machine's native sha256 rate from `openssl speed` (OpenSSL's assembly, SHA-NI where the CPU has it).
import { execFileSync } from 'node:child_process';

export interface OpensslRate {
  command: string;
  /** Messages of `bytes` bytes hashed per second. */
  opsPerSecond: number;
  bytesPerSecond: number;
}

/** Runs `openssl speed -evp sha256 -bytes <bytes> -seconds <seconds>`; undefined if openssl is absent. */
export function opensslSha256Rate(bytes: number, seconds = 2): OpensslRate | undefined {
  const args = ['speed', '-evp', 'sha256', '-bytes', String(bytes), '-seconds', String(seconds)];
  let output: string;
  try {
    output = execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return undefined;
  }
  // Last line: "sha256          363253.97k" (1000s of bytes per second).
  const match = /^sha256\s+([\d.]+)k\s*$/m.exec(output);
  if (!match) return undefined;
  const bytesPerSecond = Number(match[1]) * 1000;
  return { command: `openssl ${args.join(' ')}`, opsPerSecond: bytesPerSecond / bytes, bytesPerSecond };
}
