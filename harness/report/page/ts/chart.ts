// Hand-drawn SVG charts: scales, ticks, axes. Each chart is one <svg data-chart="…"> with one
// <circle> or <rect> per data point carrying data-value, so tests can count and read them.

import { s } from "./dom";
import { short } from "./format";

export interface Box {
  w: number;
  h: number;
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export function plotW(b: Box): number {
  return b.w - b.left - b.right;
}
export function plotH(b: Box): number {
  return b.h - b.top - b.bottom;
}

export type Scale = (v: number) => number;

export function linear(d0: number, d1: number, r0: number, r1: number): Scale {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

export function log10(d0: number, d1: number, r0: number, r1: number): Scale {
  const l0 = Math.log10(d0), l1 = Math.log10(d1);
  const k = l1 === l0 ? 0 : (r1 - r0) / (l1 - l0);
  return (v) => r0 + (Math.log10(Math.max(v, d0)) - l0) * k;
}

/** "Nice" ticks covering [lo, hi], about n of them. */
export function ticks(lo: number, hi: number, n = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / mag;
  const step = (f >= 5 ? 10 : f >= 2 ? 5 : f >= 1 ? 2 : 1) * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** Extend [lo, hi] outwards to tick boundaries. */
export function niceDomain(lo: number, hi: number, n = 5): [number, number] {
  if (!(hi > lo)) {
    const pad = Math.abs(hi) * 0.1 || 1;
    return [lo - pad, hi + pad];
  }
  const t = ticks(lo, hi, n);
  const step = t.length > 1 ? t[1] - t[0] : hi - lo;
  return [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
}

export function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * Math.pow(10, e);
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(Number(v.toPrecision(6)));
    }
  }
  return out;
}

export function svgRoot(name: string, b: Box, label: string): SVGElement {
  return s("svg", {
    "data-chart": name,
    viewBox: `0 0 ${b.w} ${b.h}`,
    width: "100%",
    role: "img",
    "aria-label": label,
    class: "chart",
    preserveAspectRatio: "xMidYMid meet",
  });
}

/** Horizontal grid lines with labels on the left. */
export function yGrid(svg: SVGElement, b: Box, y: Scale, values: number[], fmt: (v: number) => string = short): void {
  const g = s("g", { class: "grid" });
  for (const v of values) {
    const yy = round(y(v));
    g.appendChild(s("line", { x1: b.left, x2: b.w - b.right, y1: yy, y2: yy }));
    g.appendChild(s("text", { x: b.left - 10, y: yy, "text-anchor": "end", "dominant-baseline": "middle", class: "tick" }, fmt(v)));
  }
  svg.appendChild(g);
}

/** Vertical grid lines with labels below. */
export function xGrid(svg: SVGElement, b: Box, x: Scale, values: number[], fmt: (v: number) => string = short): void {
  const g = s("g", { class: "grid" });
  for (const v of values) {
    const xx = round(x(v));
    g.appendChild(s("line", { x1: xx, x2: xx, y1: b.top, y2: b.h - b.bottom }));
    g.appendChild(s("text", { x: xx, y: b.h - b.bottom + 18, "text-anchor": "middle", class: "tick" }, fmt(v)));
  }
  svg.appendChild(g);
}

export function axisTitle(svg: SVGElement, text: string, x: number, y: number, rotate = false): void {
  svg.appendChild(
    s("text", { x, y, class: "axis-title", "text-anchor": "middle", transform: rotate ? `rotate(-90 ${x} ${y})` : null }, text),
  );
}

export function round(v: number): number {
  return Math.round(v * 10) / 10;
}

/** A legend entry row drawn inside the SVG. */
export function legend(svg: SVGElement, x: number, y: number, items: { label: string; cls: string; shape?: "dot" | "dash" | "bar" }[]): void {
  const g = s("g", { class: "legend" });
  let cx = x;
  for (const it of items) {
    if (it.shape === "dash") g.appendChild(s("line", { x1: cx, x2: cx + 18, y1: y, y2: y, class: it.cls }));
    else if (it.shape === "bar") g.appendChild(s("rect", { x: cx, y: y - 6, width: 16, height: 12, rx: 2, class: it.cls }));
    else g.appendChild(s("circle", { cx: cx + 8, cy: y, r: 6, class: it.cls }));
    const t = s("text", { x: cx + 24, y, "dominant-baseline": "middle" }, it.label);
    g.appendChild(t);
    cx += 24 + 7.3 * it.label.length + 24;
  }
  svg.appendChild(g);
}
