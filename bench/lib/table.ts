// Plain-text table printer for benchmark output (GitHub-markdown compatible, so it can be pasted into docs).

export type Cell = string | number | undefined;

export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${formatNumber(ms / 1000, 1)} s`;
  if (ms >= 1000) return `${formatNumber(ms / 1000, 2)} s`;
  if (ms >= 10) return `${formatNumber(ms, 0)} ms`;
  return `${formatNumber(ms, 2)} ms`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${formatNumber(bytes / 1024 ** 3, 2)} GiB`;
  return `${formatNumber(bytes / 1024 ** 2, 0)} MiB`;
}

export function formatRatio(ratio: number): string {
  return `${formatNumber(ratio, ratio >= 10 ? 0 : ratio >= 1 ? 1 : 2)}×`;
}

/** Renders a markdown table; numbers are right-aligned, missing cells print as "–". */
export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => headers.map((_, i) => (row[i] === undefined ? '–' : String(row[i]))));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] as string).length)));
  const numeric = headers.map((_, i) =>
    rows.every((r) => r[i] === undefined || /^[\d.,]+\D{0,4}$/.test(String(r[i]))),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (numeric[i] ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(headers), rule, ...text.map(line)].join('\n');
}

export function printTable(
  title: string,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
): void {
  console.log(`\n${title}\n\n${renderTable(headers, rows)}`);
}
