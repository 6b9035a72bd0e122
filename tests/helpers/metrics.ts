// Reading the metrics a handler invoked in the test process prints: embedded-metric-format JSON lines on stdout,
// which Lambda sends to CloudWatch. The test file must import ./enable-metrics.js first.
import { vi } from 'vitest';

/** What `run` wrote to stdout, as the JSON records among it. */
export const stdoutRecords = async (run: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> => {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .flatMap((line) => {
      try {
        return line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
};

/** The sum of metric `name` over the EMF records among `records` (a record may hold a value or a list). */
export const metricTotal = (records: Array<Record<string, unknown>>, name: string): number =>
  records
    .filter((record) => '_aws' in record)
    .flatMap((record) => [record[name] ?? []].flat())
    .reduce<number>((sum, value) => sum + Number(value), 0);
