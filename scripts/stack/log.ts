// Loggers for the stack's own messages: the console for `npm run dev`, a file for tests.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** Where the stack writes its own progress messages (here, not in ./types.ts: the provisioners log too). */
export interface StackLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

/** Logs to the console with a `[stack]` prefix; debug lines only when `debug` is set. */
export function consoleLogger({ debug = false }: { debug?: boolean } = {}): StackLogger {
  return {
    info: (message) => console.log(`[stack] ${message}`),
    warn: (message) => console.warn(`[stack] ${message}`),
    error: (message) => console.error(`[stack] ${message}`),
    debug: (message) => {
      if (debug) console.log(`[stack] ${message}`);
    },
  };
}

/** Appends every line (debug included) to `file`, with a timestamp and level. */
export function fileLogger(file: string): StackLogger {
  mkdirSync(dirname(file), { recursive: true });
  const write = (level: string) => (message: string) => {
    appendFileSync(file, `${new Date().toISOString()} ${level} ${message}\n`);
  };
  return { info: write('INFO'), warn: write('WARN'), error: write('ERROR'), debug: write('DEBUG') };
}
