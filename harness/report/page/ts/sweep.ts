// The sweep page: each target's latency at a series of fixed rates, as curves (one chart per
// percentile, one line per target), with the SLO and generator-bound points marked.

import { h, s, section } from "./dom";
import * as F from "./format";
import { Box, linear, log10, logTicks, niceDomain, plotH, round, svgRoot, ticks, xGrid, yGrid, axisTitle } from "./chart";
import { environment, footer, reproduce, sessionMasthead, shapeChips, targetColors, warnings } from "./common";
import type { Data, Sweep, SweepPoint } from "./types";

const PCTS: { label: string; get: (p: SweepPoint) => number }[] = [
  { label: "p50", get: (p) => p.run.p50_ms },
  { label: "p99", get: (p) => p.run.p99_ms },
  { label: "p99.9", get: (p) => p.run.p999_ms },
];

export function renderSweep(d: Data, root: HTMLElement): void {
  const sw = d.summary as Sweep;
  const targets = sw.targets ?? [];
  const color = targetColors(targets);
  root.appendChild(sessionMasthead("sweep", sw, color, []));
  root.appendChild(shapeChips(sw.shape ?? {}, {}, "matrix"));
  const w = warnings(sw.warnings, sw.incomplete);
  if (w) root.appendChild(w);
  if (sw.slo_ms) root.appendChild(sloSection(sw));
  const ok = (sw.points ?? []).filter((p) => !p.run.error && p.run.rps > 0);
  root.appendChild(
    section(
      "curves",
      "Latency against the rate",
      h("p", { class: "note" }, "One open-loop run per target and rate; latency counts from each request\u2019s intended send time. Hollow points were generator-bound: the load generator fell behind its schedule, so they measure it as much as the server."),
      ...PCTS.map((q) => h("figure", { class: "figure" }, curve(sw, ok, q, color))),
      pointsTable(sw),
    ),
  );
  root.appendChild(reproduce(sw.shape?.command));
  root.appendChild(environment(d.manifest, sw.started, sw.finished));
  root.appendChild(footer(d.raw));
}

function sloSection(sw: Sweep): HTMLElement {
  const slo = `${sw.slo_ms} ms`;
  return section(
    "slo",
    `Highest rate with p99 under ${slo}`,
    h(
      "ul",
      { "data-testid": "slo" },
      ...(sw.per_target ?? []).map((t) =>
        h("li", { "data-target": t.target, "data-value": t.slo_rate ?? "none" }, `${t.target}: `, h("b", null, t.slo_rate == null ? "none" : `${F.rps(t.slo_rate)} requests/s`)),
      ),
    ),
  );
}

function curve(sw: Sweep, pts: SweepPoint[], q: { label: string; get: (p: SweepPoint) => number }, color: (t: string) => string): SVGElement {
  const b: Box = { w: 1040, h: 280, top: 40, right: 40, bottom: 44, left: 72 };
  const vals = pts.map(q.get).filter((v) => F.finite(v) && v > 0);
  if (q.label === "p99" && sw.slo_ms) vals.push(sw.slo_ms);
  const lo0 = vals.length ? Math.min(...vals) : 0.01, hi0 = vals.length ? Math.max(...vals) : 1;
  const ylo = Math.pow(10, Math.floor(Math.log10(lo0))), yhi = Math.pow(10, Math.ceil(Math.log10(hi0 * 1.05)));
  const y = log10(ylo, yhi, b.h - b.bottom, b.top);
  const rates = pts.map((p) => p.rate);
  const [xlo, xhi] = niceDomain(0, Math.max(1, ...rates) * 1.05, 6);
  const x = linear(xlo, xhi, b.left, b.w - b.right);
  const svg = svgRoot(`sweep-${q.label}`, b, `${q.label} latency against the rate`);
  yGrid(svg, b, y, logTicks(ylo, yhi), (v) => F.short(v));
  xGrid(svg, b, x, ticks(xlo, xhi, 6), (v) => F.short(v));
  axisTitle(svg, `${q.label}, ms (log)`, 16, b.top + plotH(b) / 2, true);
  axisTitle(svg, "rate asked, requests/s", b.left + (b.w - b.left - b.right) / 2, b.h - 4);
  if (q.label === "p99" && sw.slo_ms) {
    const yy = round(y(sw.slo_ms));
    svg.appendChild(s("line", { x1: b.left, x2: b.w - b.right, y1: yy, y2: yy, stroke: "#96211d", "stroke-dasharray": "6 4", "data-slo": sw.slo_ms }));
  }
  for (const t of sw.targets ?? []) {
    const mine = pts.filter((p) => p.target === t && F.finite(q.get(p)) && q.get(p) > 0).sort((a, b2) => a.rate - b2.rate);
    if (mine.length > 1) svg.appendChild(s("path", { d: "M" + mine.map((p) => `${round(x(p.rate))},${round(y(q.get(p)))}`).join("L"), fill: "none", stroke: color(t), "stroke-width": 2 }));
    for (const p of mine) {
      const bound = !!p.run.open_loop?.generator_bound;
      svg.appendChild(
        s("circle", { cx: round(x(p.rate)), cy: round(y(q.get(p))), r: 5, fill: bound ? "#fff" : color(t), stroke: color(t), "stroke-width": 2,
          "data-target": t, "data-rate": p.rate, "data-value": q.get(p), "data-generator-bound": bound ? "true" : null },
          s("title", null, `${t} at ${F.rps(p.rate)} requests/s: ${q.label} ${F.ms(q.get(p))}${bound ? " (generator-bound)" : ""}`)),
      );
    }
  }
  (sw.targets ?? []).forEach((t, i) => {
    const lx = b.left + i * 160;
    svg.appendChild(s("circle", { cx: lx + 6, cy: 14, r: 6, fill: color(t) }));
    svg.appendChild(s("text", { x: lx + 18, y: 14, "dominant-baseline": "middle", class: "tick" }, t));
  });
  return svg;
}

/** Every point as measured: rate asked and achieved, the percentiles, and its status. */
function pointsTable(sw: Sweep): HTMLElement {
  const row = (p: SweepPoint) => {
    const o = p.run.open_loop;
    const status = p.run.error ? `failed: ${p.run.error}` : o?.generator_bound ? "generator-bound" : "ok";
    return h("tr", { "data-target": p.target, "data-rate": p.rate },
      ...[p.target, F.rps(p.rate), p.fraction ? F.pct(p.fraction * 100) : "\u2013", o ? F.rps(o.sent_rps) : "\u2013",
        F.ms(p.run.p50_ms), F.ms(p.run.p99_ms), F.ms(p.run.p999_ms), o ? F.ms(o.lag_p99_ms) : "\u2013", status].map((c) => h("td", null, c)));
  };
  return h("div", { class: "table-scroll" }, h("table", { class: "metrics matrix", "data-testid": "sweep-points" },
    h("thead", null, h("tr", null, ...["target", "rate asked", "of max", "rate achieved", "p50", "p99", "p99.9", "send lag p99", "status"].map((c) => h("th", null, c)))),
    h("tbody", null, ...(sw.points ?? []).map(row))));
}
