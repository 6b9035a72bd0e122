// Child processes of the stack: each runs in its own process group, is stopped as a group, and cannot
// outlive the stack (a guard in the group takes it down when the stack's process disappears).
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

// Runs "$@" in the background of a small sh that leads the process group. The sh forwards TERM to the
// command and exits with its code. A guard subshell polls the stack's pid and, once that is gone, sends
// TERM to the whole group, then KILL ten seconds later. `kill 0` addresses the caller's own group.
const GROUP_WRAPPER = `
watched=$1; shift
"$@" &
child=$!
( trap '' TERM; while kill -0 "$watched" 2>/dev/null; do sleep 1; done; kill -TERM 0; sleep 10; kill -KILL 0 ) &
guard=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
wait "$child"; code=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; code=$?; done
kill -KILL "$guard" 2>/dev/null
exit "$code"
`;

const TAIL_CHARS = 8_000;
const live = new Set<number>();
let exitHookInstalled = false;

export interface SpawnGroupOptions {
  /** Short name used in messages. */
  name: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Append stdout and stderr to this file. */
  logFile?: string;
  /** Also forward stdout and stderr to this process's console. */
  console?: boolean;
}

export interface GroupProcess {
  /** Pid of the group leader, which is also the process group id. */
  readonly pgid: number;
  /** Resolves with the exit code (null when killed by a signal) once the group leader exits. */
  readonly exited: Promise<number | null>;
  /** `undefined` while running, else the exit code. */
  exitCode(): number | null | undefined;
  /** The last few thousand characters of output, for error messages. */
  tail(): string;
  /** SIGTERM to the whole group, SIGKILL to whatever is left after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `command args` as the only job of a new process group guarded against orphaning. */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: SpawnGroupOptions,
): GroupProcess {
  installExitHook();
  const child = spawn(
    '/bin/sh',
    ['-c', GROUP_WRAPPER, `stack:${options.name}`, String(process.pid), command, ...args],
    {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`${options.name}: could not spawn ${command}`);
  live.add(pgid);

  const logStream = options.logFile ? openLog(options.logFile) : undefined;
  let tail = '';
  const onData = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
    logStream?.write(chunk);
    if (options.console) target.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
  };
  child.stdout?.on('data', onData(process.stdout));
  child.stderr?.on('data', onData(process.stderr));

  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (exitCode) => {
      code = exitCode;
      resolve(exitCode);
    });
    child.once('error', (error) => {
      tail += `\n${error.message}`;
      code = null;
      resolve(null);
    });
  });
  void exited.then(() => logStream?.end());

  const stop = async (graceMs = 5_000): Promise<void> => {
    if (code === undefined) {
      signalGroup(pgid, 'SIGTERM');
      await Promise.race([exited, sleep(graceMs, undefined, { ref: false })]);
    }
    // Sweep the group even after a clean exit: grandchildren (esbuild, the guard's sleep) may linger.
    signalGroup(pgid, 'SIGKILL');
    await Promise.race([exited, sleep(1_000, undefined, { ref: false })]);
    live.delete(pgid);
  };

  return { pgid, exited, exitCode: () => code, tail: () => tail, stop };
}

/** Whether any process of the group is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function openLog(file: string): WriteStream {
  mkdirSync(dirname(file), { recursive: true });
  return createWriteStream(file, { flags: 'a' });
}

// Last resort when the stack's process exits without stopping its children (e.g. an uncaught error).
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pgid of live) signalGroup(pgid, 'SIGKILL');
  });
}

/**
 * A stand-in run on its own (`npx tsx scripts/<name>/server.ts`): `main` when the file is the entry point, the
 * server stopped on SIGINT/SIGTERM, a failure printed with exit status 1.
 */
export function runStandIn(moduleUrl: string, start: () => Promise<{ stop(): Promise<void> }>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const fail = (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  };
  start().then((server) => {
    const shutdown = () => server.stop().then(() => process.exit(0), fail);
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  }, fail);
}
