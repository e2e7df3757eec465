import { mkdir, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/**
 * Text output of the scaling benchmark: an aligned table and a log-log ASCII plot of one or more series, both
 * returned as text so the same lines go to the console and to the committed file under bench/scaling/.
 */

export interface PlotSeries {
  readonly label: string
  /** One character drawn at each point. */
  readonly mark: string
  readonly points: readonly (readonly [x: number, y: number])[]
}

export function tableText(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n')
}

const shortNumber = (value: number): string => {
  const abs = Math.abs(value)
  if (abs >= 1024 * 1024 && Number.isInteger(Math.log2(abs))) return `${abs / 1024 / 1024}Mi`
  if (abs >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`
  if (abs >= 1e3) return `${+(value / 1e3).toPrecision(3)}k`
  if (abs >= 10) return value.toFixed(0)
  if (abs >= 1) return value.toFixed(1)
  return value.toPrecision(2)
}

/**
 * Both axes logarithmic, so a straight line is a power law and its slope the exponent: a line rising one decade per
 * decade is linear cost, a flat line is constant cost. Points of several series in one cell show the last one's mark.
 */
export function logLogPlot(title: string, xLabel: string, yLabel: string, series: readonly PlotSeries[], width = 64, height = 16): string {
  const points = series.flatMap((one) => one.points).filter(([x, y]) => x > 0 && y > 0 && Number.isFinite(y))
  if (points.length === 0) return `${title}\n(no points)`
  const xs = points.map(([x]) => Math.log10(x))
  const ys = points.map(([, y]) => Math.log10(y))
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)]
  let [yMin, yMax] = [Math.min(...ys), Math.max(...ys)]
  if (yMax - yMin < 0.3) {
    const middle = (yMax + yMin) / 2
    yMin = middle - 0.15
    yMax = middle + 0.15
  }
  const grid = Array.from({ length: height }, () => Array.from({ length: width }, () => ' '))
  const column = (x: number) => (xMax === xMin ? 0 : Math.round(((Math.log10(x) - xMin) / (xMax - xMin)) * (width - 1)))
  const row = (y: number) => height - 1 - Math.round(((Math.log10(y) - yMin) / (yMax - yMin)) * (height - 1))
  for (const one of series) {
    for (const [x, y] of one.points) if (x > 0 && y > 0 && Number.isFinite(y)) grid[row(y)]![column(x)] = one.mark
  }
  const yTop = shortNumber(10 ** yMax)
  const yBottom = shortNumber(10 ** yMin)
  const margin = Math.max(yTop.length, yBottom.length, yLabel.length)
  const lines = [title, `${yLabel.padStart(margin)}`]
  grid.forEach((cells, index) => {
    const tick = index === 0 ? yTop : index === height - 1 ? yBottom : ''
    lines.push(`${tick.padStart(margin)} |${cells.join('')}`)
  })
  lines.push(`${' '.repeat(margin)} +${'-'.repeat(width)}`)
  const xValues = points.map(([x]) => x)
  const left = shortNumber(Math.min(...xValues))
  const right = shortNumber(Math.max(...xValues))
  lines.push(`${' '.repeat(margin + 2)}${left}${right.padStart(width - left.length)}`)
  lines.push(`${' '.repeat(margin + 2)}${xLabel} (log scale; y log scale)`)
  lines.push(series.map((one) => `${one.mark} ${one.label}`).join('   '))
  return lines.join('\n')
}

/** bench/scaling/ in the repository (this file runs as dist/bench/scaling/plot.js). */
const OUTPUT_DIR = fileURLToPath(new URL('../../../bench/scaling/', import.meta.url))

/**
 * Prints `text` and, in a full run, writes it to bench/scaling/<name>.txt (a smoke run's figures mean nothing, so
 * it leaves the committed files alone).
 */
export async function publish(name: string, text: string, write: boolean): Promise<void> {
  console.log(`\n${text}`)
  if (!write) return
  await mkdir(OUTPUT_DIR, { recursive: true })
  const path = `${OUTPUT_DIR}${name}.txt`
  await writeFile(path, `${text}\n`)
  console.log(`(written to bench/scaling/${name}.txt)`)
}

/** Least-squares slope of log(y) on log(x): the exponent of the power law through the points. */
export function logSlope(points: readonly (readonly [number, number])[]): number {
  const usable = points.filter(([x, y]) => x > 0 && y > 0)
  const xs = usable.map(([x]) => Math.log10(x))
  const ys = usable.map(([, y]) => Math.log10(y))
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length
  const my = ys.reduce((a, b) => a + b, 0) / ys.length
  let num = 0
  let den = 0
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my)
    den += (xs[i]! - mx) ** 2
  }
  return den === 0 ? Number.NaN : num / den
}
