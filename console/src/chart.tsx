// A line chart (uPlot: small, canvas) with a text alternative: the series as a table for screen readers. uPlot is
// loaded with the first chart, so the pages without one never download it.
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  /** null: no value there (a gap: e.g. days not reached yet). */
  values: Array<number | null>;
  color: string;
}

export const LineChart = ({
  title,
  x,
  series,
  xLabel,
  format,
  timeAxis = true,
}: {
  title: string;
  /** Unix seconds when `timeAxis`, else plain numbers. */
  x: number[];
  series: Series[];
  xLabel: (x: number) => string;
  format: (y: number) => string;
  timeAxis?: boolean;
}) => {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | undefined;
    let gone = false;
    const resize = () => plot?.setSize({ width: Math.max(280, el.clientWidth), height: 240 });
    void import('uplot').then(({ default: UPlot }) => {
      if (gone) return;
      plot = new UPlot(
        {
          width: Math.max(280, el.clientWidth),
          height: 240,
          scales: { x: { time: timeAxis } },
          series: [
            {},
            ...series.map((s) => ({
              label: s.label,
              stroke: s.color,
              width: 2,
              value: (_: uPlot, v: number | null) => (v === null ? '–' : format(v)),
            })),
          ],
          axes: [{}, { values: (_: uPlot, ticks: number[]) => ticks.map(format), size: 110 }],
        },
        [x, ...series.map((s) => s.values)],
        el,
      );
      addEventListener('resize', resize);
    });
    return () => {
      gone = true;
      removeEventListener('resize', resize);
      plot?.destroy();
    };
  }, [x, series, timeAxis]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} aria-hidden="true" />
      <table class="visually-hidden">
        <caption>{title} (data)</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            {series.map((s) => (
              <th scope="col" key={s.label}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {x.map((at, i) => (
            <tr key={at}>
              <td>{xLabel(at)}</td>
              {series.map((s) => (
                <td key={s.label}>{s.values[i] === null ? '–' : format(s.values[i] ?? 0)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
};
