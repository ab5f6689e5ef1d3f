// Number formatting for people: thousands separators, a real minus sign, signed deltas. It does
// not depend on the viewer's locale, so the page reads the same everywhere (and tests can match it).

export const MINUS = "\u2212";
const NBSP = "\u00a0";

function finite(n: unknown): n is number {
  return typeof n === "number" && isFinite(n);
}

/** 1234567.891, 2 -> "1,234,567.89" (negative with U+2212). */
export function group(n: number, decimals = 0): string {
  if (!finite(n)) return "\u2014";
  const neg = n < 0;
  const fixed = Math.abs(n).toFixed(decimals);
  const [int, frac] = fixed.split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const body = frac !== undefined ? grouped + "." + frac : grouped;
  return (neg && Number(fixed) !== 0 ? MINUS : "") + body;
}

/** Signed: "+12.71", "−3.20", "0.00". */
export function signed(n: number, decimals = 2): string {
  if (!finite(n)) return "\u2014";
  const t = group(n, decimals);
  return Number(Math.abs(n).toFixed(decimals)) === 0 || n < 0 ? t : "+" + t;
}

/** A signed percentage delta: "+12.71%". */
export function pctDelta(n: number | undefined, decimals = 2): string {
  return finite(n) ? signed(n, decimals) + "%" : "\u2014";
}

/** A plain percentage: "98.3%". */
export function pct(n: number | undefined, decimals = 1): string {
  return finite(n) ? group(n, decimals) + "%" : "\u2014";
}

/** Responses per second, whole: "481,759". */
export function rps(n: number | undefined): string {
  return finite(n) ? group(Math.round(n)) : "\u2014";
}

/** Short axis label: 480k, 1.25M. */
export function short(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e6) return trim((n / 1e6).toFixed(a >= 1e7 ? 1 : 2)) + "M";
  if (a >= 1e3) return trim((n / 1e3).toFixed(a >= 1e5 ? 0 : 1)) + "k";
  return trim(n.toFixed(a >= 10 ? 0 : a >= 1 ? 1 : 2));
}

function trim(t: string): string {
  return t.indexOf(".") >= 0 ? t.replace(/\.?0+$/, "") : t;
}

/** Milliseconds with the precision a latency deserves: 0.412 ms, 4.05 ms, 12.3 ms, 145 ms. */
export function ms(n: number | undefined): string {
  if (!finite(n)) return "\u2014";
  const a = Math.abs(n);
  const d = a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0;
  return group(n, d) + NBSP + "ms";
}

/** Just the number part of ms(). */
export function msNum(n: number): string {
  const a = Math.abs(n);
  return group(n, a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0);
}

export function mib(n: number | undefined): string {
  return finite(n) ? group(n, n < 10 ? 2 : 1) + NBSP + "MiB" : "\u2014";
}

export function bytes(n: number | undefined): string {
  if (!finite(n) || n <= 0) return "\u2014";
  if (n >= 1 << 20) return group(n / (1 << 20), 1) + NBSP + "MiB";
  if (n >= 1 << 10) return group(n / (1 << 10), 1) + NBSP + "KiB";
  return group(n) + NBSP + "B";
}

/** A counter per response: 9,177.5; small values keep more digits (IPC 1.234). */
export function count(n: number | undefined): string {
  if (!finite(n)) return "\u2014";
  const a = Math.abs(n);
  if (a !== 0 && a < 1) {
    // keep two significant digits: 0.0021, 0.00040 -> 0.0004
    const d = Math.min(8, 1 - Math.floor(Math.log10(a)));
    return (n < 0 ? MINUS : "") + trim(a.toFixed(d));
  }
  return group(n, a >= 1000 ? 1 : a >= 10 ? 2 : 3);
}

/** A confidence level: 0.975 -> "97.5%". */
export function level(x: number | undefined | null): string {
  if (!finite(x)) return "\u2014";
  return `${trim((x * 100).toFixed(2))}%`;
}

/** A confidence interval, compact: "+10.90 … +12.80%". */
export function interval(ci: [number, number] | undefined | null, decimals = 2): string {
  if (!ci || !finite(ci[0]) || !finite(ci[1])) return "\u2014";
  return `${signed(ci[0], decimals)} \u2026 ${signed(ci[1], decimals)}%`;
}

export function seconds(n: number | undefined): string {
  if (!finite(n)) return "\u2014";
  return trim(n.toFixed(n < 10 ? 1 : 0)) + NBSP + "s";
}

/** Correlation: "+0.09". */
export function corr(n: number | undefined): string {
  return finite(n) ? signed(n, 2) : "\u2014";
}

/** A timestamp from JSON as "2026-11-03 14:05 UTC". */
export function when(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (isNaN(d.getTime()) || d.getUTCFullYear() < 2000) return "";
  const p = (x: number) => (x < 10 ? "0" : "") + x;
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} UTC`;
}

/** Shell-quote one argument (POSIX sh): bare when safe, else single quotes. */
export function shellQuote(arg: string): string {
  if (arg === "") return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return "'" + arg.replace(/'/g, "'\\''") + "'";
}

export function shellJoin(args: string[]): string {
  return args.map(shellQuote).join(" ");
}

/** Direction-aware class of a delta: "good", "bad" or "flat". */
export function tone(delta: number | undefined, higherIsBetter: boolean, flat = 0.5): string {
  if (!finite(delta) || Math.abs(delta) < flat) return "flat";
  return (delta > 0) === higherIsBetter ? "good" : "bad";
}

export { finite };
