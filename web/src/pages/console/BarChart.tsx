// A small bar chart drawn as SVG: one bar per bucket, stacked when there are several series. The picture is for
// the eye; its accessible name summarises it, and the overview's table (StatsTable.tsx) holds every number.
import './overview.css';

export interface Series {
  key: string;
  label: string;
  /** A fill colour with at least 3:1 contrast against white (WCAG 1.4.11). */
  color: string;
}

export interface ChartBar {
  label: string;
  values: Record<string, number>;
}

const HEIGHT = 100;

export function BarChart({
  id,
  title,
  series,
  bars,
  summary,
}: {
  id: string;
  title: string;
  series: Series[];
  bars: ChartBar[];
  /** One sentence with the total and the peak: the chart's accessible name. */
  summary: string;
}) {
  const totals = bars.map((b) => series.reduce((sum, s) => sum + (b.values[s.key] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const width = Math.max(bars.length, 1) * 10;
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div class="chart-plot">
        <span class="chart-max" aria-hidden="true">
          {max}
        </span>
        <svg
          viewBox={`0 0 ${width} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={summary}
          data-testid={`${id}-chart`}
        >
          <line class="chart-baseline" x1="0" y1={HEIGHT} x2={width} y2={HEIGHT} />
          {bars.map((bar, i) => {
            let top = HEIGHT;
            return series.map((s) => {
              const value = bar.values[s.key] ?? 0;
              if (value === 0) return null;
              const height = (value / max) * HEIGHT;
              top -= height;
              return (
                <rect key={`${bar.label}-${s.key}`} x={i * 10 + 1} y={top} width="8" height={height} fill={s.color}>
                  <title>{`${bar.label}: ${value}${series.length > 1 ? ` ${s.label}` : ''}`}</title>
                </rect>
              );
            });
          })}
        </svg>
        <div class="chart-axis" aria-hidden="true">
          <span>{bars[0]?.label}</span>
          <span>{bars.at(-1)?.label}</span>
        </div>
      </div>
      {series.length > 1 && (
        <ul class="chart-legend" aria-hidden="true">
          {series.map((s) => (
            <li key={s.key}>
              <svg viewBox="0 0 10 10" class="chart-swatch" aria-hidden="true">
                <rect width="10" height="10" fill={s.color} />
              </svg>
              {s.label}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
