// The scale page: each target's throughput and efficiency at each server thread count.

import { h, s, section } from "./dom";
import * as F from "./format";
import { Box, linear, niceDomain, plotH, plotW, round, svgRoot, ticks, xGrid, yGrid, axisTitle } from "./chart";
import { environment, footer, reproduce, sessionMasthead, shapeChips, targetColors, warnings } from "./common";
import type { Data, Scale, ScalePoint } from "./types";

export function renderScale(d: Data, root: HTMLElement): void {
  const m = d.summary as Scale;
  const shape = m.shape ?? {};
  const targets = m.targets ?? [];
  const points = m.points ?? [];
  const color = targetColors(targets);
  root.appendChild(sessionMasthead("scale", m, color, [` \u00b7 threads ${(m.threads ?? []).join(", ")}`]));
  root.appendChild(shapeChips(shape, {}, "matrix"));
  const w = warnings(m.warnings, m.incomplete);
  if (w) root.appendChild(w);
  const unit = m.unit || "responses/s";
  root.appendChild(
    section(
      "scaling",
      "Throughput by server threads",
      h("p", { class: "note" }, `Median ${unit} of each point's runs; a hollow dot is a marked point (client-bound, or server CPUs shared with the load generator).`),
      h("figure", { class: "figure" }, curve("scale-rps", points, targets, color, (p) => p.rps ?? 0, unit)),
      h("figure", { class: "figure" }, curve("scale-efficiency", points, targets, color, (p) => p.efficiency_pct ?? 0, `efficiency vs ${m.base_threads ?? 1} thread(s), %`)),
      pointTable(points),
    ),
  );
  root.appendChild(reproduce(shape.command));
  root.appendChild(environment(d.manifest, m.started, m.finished));
  root.appendChild(footer(d.raw));
}

function marks(p: ScalePoint): string {
  const out: string[] = [];
  if (!p.runs) out.push("no valid run");
  if (p.client_bound) out.push("client-bound");
  if (p.shared_cpus) out.push("shares client CPUs");
  if (p.server_unsaturated && p.runs) out.push("server unsaturated");
  return out.join(", ");
}

function curve(name: string, points: ScalePoint[], targets: string[], color: (t: string) => string, val: (p: ScalePoint) => number, title: string): SVGElement {
  const b: Box = { w: 1040, h: 320, top: 24, right: 160, bottom: 48, left: 90 };
  const threads = [...new Set(points.map((p) => p.threads))].sort((a, c) => a - c);
  const [, hi] = niceDomain(0, Math.max(1, ...points.map(val)) * 1.05, 5);
  const x = linear(threads[0] ?? 1, threads[threads.length - 1] ?? 1, b.left + 30, b.w - b.right - 30);
  const y = linear(0, hi, b.h - b.bottom, b.top);
  const svg = svgRoot(name, b, title);
  yGrid(svg, b, y, ticks(0, hi, 5));
  xGrid(svg, b, x, threads, (v) => String(v));
  axisTitle(svg, title, 18, b.top + plotH(b) / 2, true);
  axisTitle(svg, "server threads", b.left + plotW(b) / 2, b.h - 4);
  for (const t of targets) {
    const ps = points.filter((p) => p.target === t && (p.runs ?? 0) > 0);
    if (ps.length > 1) svg.appendChild(s("path", { d: ps.map((p, i) => `${i ? "L" : "M"}${round(x(p.threads))},${round(y(val(p)))}`).join(""), stroke: color(t), fill: "none", "stroke-width": 2.5 }));
    for (const p of ps) {
      const mk = marks(p);
      svg.appendChild(
        s("circle", { cx: round(x(p.threads)), cy: round(y(val(p))), r: 6, fill: mk ? "#fff" : color(t), stroke: color(t), "stroke-width": 2, "data-target": t, "data-threads": p.threads, "data-value": val(p) },
          s("title", null, `${t}, ${p.threads} thread(s): ${F.group(val(p), 0)}${mk ? ` (${mk})` : ""}`)),
      );
    }
    const last = ps[ps.length - 1];
    if (last) svg.appendChild(s("text", { x: round(x(last.threads)) + 12, y: round(y(val(last))), "dominant-baseline": "middle", fill: color(t), class: "value-label" }, t));
  }
  return svg;
}

function pointTable(points: ScalePoint[]): HTMLElement {
  const head = ["Target", "Threads", "Server CPUs", "Resp/s", "Per server CPU-s", "Speed-up", "Efficiency", "Server CPU", "Client CPU", "p99", "Marks"];
  return h(
    "div",
    { class: "table-scroll" },
    h(
      "table",
      { class: "metrics matrix", "data-testid": "scale-table" },
      h("thead", null, h("tr", null, head.map((c, i) => h("th", { scope: "col", class: i ? "num" : null }, c)))),
      h(
        "tbody",
        null,
        points.map((p) =>
          h(
            "tr",
            { "data-testid": "point-row", "data-target": p.target, "data-threads": p.threads },
            h("th", { scope: "row" }, p.target),
            h("td", { class: "num" }, String(p.threads)),
            h("td", { class: "num" }, p.cpus_server ?? ""),
            h("td", { class: "num strong" }, F.rps(p.rps)),
            h("td", { class: "num" }, F.rps(p.rps_per_cpu_second)),
            h("td", { class: "num" }, p.speed_up ? `${F.group(p.speed_up, 2)}\u00d7` : "\u2014"),
            h("td", { class: "num" }, F.pct(p.efficiency_pct)),
            h("td", { class: "num" }, F.pct(p.server_cpu_pct)),
            h("td", { class: "num" }, F.pct(p.client_cpu_pct)),
            h("td", { class: "num" }, F.ms(p.p99_ms)),
            h("td", null, marks(p)),
          ),
        ),
      ),
    ),
  );
}
