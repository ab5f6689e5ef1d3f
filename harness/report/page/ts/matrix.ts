// The matrix page: N targets, shuffled order per round, and the position-bias check.

import { h, s, section } from "./dom";
import * as F from "./format";
import { Box, linear, niceDomain, plotH, plotW, round, svgRoot, ticks, xGrid, yGrid, axisTitle } from "./chart";
import { environment, footer, reproduce, sessionMasthead, shapeChips, targetColors, warnings } from "./common";
import type { Data, Matrix, Run, TargetStats } from "./types";

/** |r| under this reads as "no meaningful position bias" (a reading guide, not a gate). */
const BIAS_R = 0.3;

export function renderMatrix(d: Data, root: HTMLElement): void {
  const m = d.summary as Matrix;
  const shape = m.shape ?? {};
  const targets = m.targets ?? (m.per_target ?? []).map((t) => t.target);
  const runs = m.runs ?? [];
  const stats = statsOf(m, targets);
  const color = targetColors(targets);

  root.appendChild(
    sessionMasthead("matrix", { ...m, targets }, color, [
      shape.profile ? [" \u00b7 profile ", h("b", null, shape.profile)] : null,
      ` \u00b7 ${m.orders?.length ?? shape.rounds ?? 0} rounds, seed ${m.seed ?? shape.seed ?? 0}`,
    ]),
  );

  const r = m.slot_correlation;
  const biased = F.finite(r) && Math.abs(r) >= BIAS_R;
  root.appendChild(
    h(
      "section",
      { class: `verdict ${!F.finite(r) ? "incomplete" : biased ? "inconclusive" : "pass"}`, "data-testid": "verdict", "data-verdict": biased ? "BIASED" : "OK", role: "status" },
      h("div", { class: "badge" }, `r = ${F.corr(r)}`),
      h(
        "div",
        { class: "verdict-body" },
        h("p", { class: "verdict-title", "data-testid": "verdict-text" }, !F.finite(r) ? "Position bias not measured" : biased ? "Position bias: the slot a target ran in moved its throughput" : "No meaningful position bias"),
        h("p", { class: "verdict-headline" }, `Correlation of normalized throughput (run \u00f7 its target\u2019s mean) with the run\u2019s slot in its round; |r| under ${BIAS_R} reads as no meaningful bias.`),
      ),
    ),
  );

  const best = stats.find((t) => t.vs_best_pct === 0 && (t.mean_rps ?? 0) > 0);
  if (best) {
    root.appendChild(
      h(
        "section",
        { class: "headline-wrap single" },
        h(
          "div",
          { class: "headline", "data-testid": "headline", "data-value": best.mean_rps ?? "" },
          h("div", { class: "headline-delta flat", style: `color:${color(best.target)}` }, best.target),
          h("p", { class: "headline-text" }, "served the most responses per second: ", h("b", { class: "num" }, F.rps(best.mean_rps)), ` mean over ${best.runs || "its"} runs`),
        ),
      ),
    );
  }
  root.appendChild(shapeChips(shape, {}, "matrix"));

  const w = warnings(m.warnings, m.incomplete, runs);
  if (w) root.appendChild(w);

  root.appendChild(
    section(
      "targets",
      "Throughput per target",
      h("p", { class: "note" }, "Mean of every round \u00b1 one standard deviation; bars start at zero."),
      h("figure", { class: "figure" }, barChart(stats, color)),
      targetTable(stats),
    ),
  );
  root.appendChild(
    section(
      "position-bias",
      "Position bias",
      h("p", { class: "note" }, "Each dot is one run: its throughput divided by its target\u2019s mean, placed at the slot it ran in. A flat cloud means the order of a round did not matter; a slope means early or late slots were favoured (thermal drift, caches)."),
      h("figure", { class: "figure" }, biasChart(m, runs, targets, color, r)),
    ),
  );
  root.appendChild(ordersSection(m, runs, targets));
  root.appendChild(reproduce(shape.command));
  root.appendChild(environment(d.manifest, m.started, m.finished));
  root.appendChild(footer(d.raw));
}

// statsOf is each target's row as stats stored it in summary.json, in the targets' order.
function statsOf(m: Matrix, targets: string[]): TargetStats[] {
  const given = m.per_target ?? [];
  return targets.map((t) => given.find((x) => x.target === t) ?? { target: t });
}

function barChart(stats: TargetStats[], color: (t: string) => string): SVGElement {
  const rowH = 44;
  const b: Box = { w: 1040, h: 16 + rowH * stats.length + 40, top: 8, right: 170, bottom: 40, left: 170 };
  const hi0 = Math.max(...stats.map((t) => (t.mean_rps ?? 0) + (t.stddev_rps ?? 0)), 1);
  const [, hi] = niceDomain(0, hi0 * 1.02, 5);
  const x = linear(0, hi, b.left, b.w - b.right);
  const svg = svgRoot("targets", b, "Mean throughput per target with one standard deviation");
  xGrid(svg, b, x, ticks(0, hi, 5));
  axisTitle(svg, "responses/s", b.left + plotW(b) / 2, b.h - 2);
  stats.forEach((t, i) => {
    const yc = b.top + 8 + rowH * i + rowH / 2;
    const mean = t.mean_rps ?? 0, sd = t.stddev_rps ?? 0;
    svg.appendChild(s("text", { x: b.left - 12, y: yc, "text-anchor": "end", "dominant-baseline": "middle", class: "bar-label" }, t.target));
    svg.appendChild(
      s("rect", { x: b.left, y: round(yc - 13), width: Math.max(1, round(x(mean) - b.left)), height: 26, rx: 3, fill: color(t.target), class: "bar", "data-target": t.target, "data-value": mean, "data-stddev": sd }, s("title", null, `${t.target}: ${F.rps(mean)} \u00b1 ${F.rps(sd)} responses/s`)),
    );
    if (sd > 0) {
      const x0 = round(x(Math.max(0, mean - sd))), x1 = round(x(mean + sd));
      svg.appendChild(s("path", { d: `M${x0},${yc}H${x1}M${x0},${yc - 7}V${yc + 7}M${x1},${yc - 7}V${yc + 7}`, class: "whisker" }));
    }
    svg.appendChild(s("text", { x: round(x(mean + sd)) + 10, y: yc, "dominant-baseline": "middle", class: "value-label" }, `${F.rps(mean)} \u00b1 ${F.rps(sd)}`));
  });
  return svg;
}

function targetTable(stats: TargetStats[]): HTMLElement {
  return h(
    "div",
    { class: "table-scroll" },
    h(
    "table",
    { class: "metrics matrix", "data-testid": "matrix-table" },
    h(
      "thead",
      null,
      h("tr", null, ["Target", "Runs", "Mean resp/s", "\u00b1 stddev", "CV", "vs best", "Median", "Min", "Max", "p99", "CPU", "RSS", "Errors"].map((c, i) => h("th", { scope: "col", class: i ? "num" : null }, c))),
    ),
    h(
      "tbody",
      null,
      stats.map((t) =>
        h(
          "tr",
          { "data-testid": "target-row", "data-target": t.target, "data-mean": t.mean_rps ?? "", "data-stddev": t.stddev_rps ?? "" },
          h("th", { scope: "row" }, t.target),
          h("td", { class: "num" }, String(t.runs ?? 0)),
          h("td", { class: "num strong" }, F.rps(t.mean_rps)),
          h("td", { class: "num" }, F.rps(t.stddev_rps)),
          h("td", { class: "num" }, F.pct(t.cv_pct, 2)),
          h("td", { class: `num delta ${F.tone(t.vs_best_pct ?? NaN, true)}` }, t.vs_best_pct === 0 ? "best" : F.pctDelta(t.vs_best_pct ?? NaN, 1)),
          h("td", { class: "num" }, F.rps(t.median_rps)),
          h("td", { class: "num" }, F.rps(t.min_rps)),
          h("td", { class: "num" }, F.rps(t.max_rps)),
          h("td", { class: "num" }, F.ms(t.median_p99_ms)),
          h("td", { class: "num" }, F.pct(t.median_server_cpu_pct)),
          h("td", { class: "num" }, F.mib(t.median_rss_mib)),
          h("td", { class: "num" }, F.group(t.errors ?? 0)),
        ),
      ),
    ),
    ),
  );
}

function biasChart(m: Matrix, runs: Run[], targets: string[], color: (t: string) => string, r: number | undefined): SVGElement {
  const b: Box = { w: 1040, h: 340, top: 44, right: 24, bottom: 48, left: 72 };
  const pts = (m.normalized ?? []).map((p) => ({ run: p, v: p.normalized }));
  const slots = Math.max(targets.length, ...runs.map((x) => x.slot + 1), 1);
  const vs = pts.map((p) => p.v);
  const dev = Math.max(0.02, ...vs.map((v) => Math.abs(v - 1))) * 1.15;
  const [lo, hi] = niceDomain(1 - dev, 1 + dev, 6);
  const y = linear(lo, hi, b.h - b.bottom, b.top);
  const band = plotW(b) / slots;
  const x = (slot: number) => b.left + band * (slot + 0.5);
  const svg = svgRoot("position-bias", b, "Normalized throughput of every run by its slot");
  yGrid(svg, b, y, ticks(lo, hi, 6), (v) => F.group(v, 2));
  axisTitle(svg, "run \u00f7 target mean", 16, b.top + plotH(b) / 2, true);
  axisTitle(svg, "slot in round", b.left + plotW(b) / 2, b.h - 4);
  for (let k = 0; k < slots; k++) svg.appendChild(s("text", { x: round(x(k)), y: b.h - b.bottom + 20, "text-anchor": "middle", class: "tick strong" }, `${k + 1}`));
  svg.appendChild(s("line", { x1: b.left, x2: b.w - b.right, y1: round(y(1)), y2: round(y(1)), class: "ref" }));

  // the least-squares fit of normalized throughput on slot, as stats stored it
  const fit = m.slot_fit;
  if (fit) {
    const f = (sl: number) => fit.intercept + fit.slope * sl;
    svg.appendChild(s("line", { x1: round(x(0)), x2: round(x(slots - 1)), y1: round(y(f(0))), y2: round(y(f(slots - 1))), class: "fit", "data-slope": fit.slope }));
  }
  // jitter deterministically within the slot so runs of one slot do not overlap
  const seen: Record<number, number> = {};
  const perSlot: Record<number, number> = {};
  for (const p of pts) perSlot[p.run.slot] = (perSlot[p.run.slot] ?? 0) + 1;
  for (const p of pts) {
    const k = (seen[p.run.slot] = (seen[p.run.slot] ?? 0) + 1) - 1;
    const nIn = perSlot[p.run.slot];
    const spread = Math.min(band * 0.6, nIn * 9);
    const dx = nIn > 1 ? -spread / 2 + (spread * k) / (nIn - 1) : 0;
    svg.appendChild(
      s("circle", { cx: round(x(p.run.slot) + dx), cy: round(y(p.v)), r: 5.5, fill: color(p.run.target), class: "dot-m", "data-target": p.run.target, "data-slot": p.run.slot, "data-value": Number(p.v.toFixed(5)) }, s("title", null, `${p.run.target}, slot ${p.run.slot + 1}: ${F.rps(p.run.rps)} responses/s (${F.group(p.v, 3)} of its mean)`)),
    );
  }
  svg.appendChild(s("text", { x: b.w - b.right, y: 18, "text-anchor": "end", class: "corr", "data-testid": "slot-correlation", "data-value": F.finite(r) ? r : "" }, `r = ${F.corr(r)}`));
  const g = s("g", { class: "legend" });
  let lx = b.left;
  for (const t of targets) {
    g.appendChild(s("circle", { cx: lx + 6, cy: 18, r: 5.5, fill: color(t) }));
    g.appendChild(s("text", { x: lx + 18, y: 18, "dominant-baseline": "middle" }, t));
    lx += 18 + 7.3 * t.length + 24;
  }
  svg.appendChild(g);
  return svg;
}

function ordersSection(m: Matrix, runs: Run[], targets: string[]): HTMLElement {
  const orders = m.orders ?? [];
  const per = orders[0]?.length || targets.length || 1;
  return section(
    "rounds",
    `All ${runs.length} runs, no selection.`,
    h("p", { class: "note" }, `Rounds in the order they ran; each round\u2019s order was shuffled from seed ${m.seed ?? 0}.`),
    h(
      "table",
      { class: "metrics rounds", "data-testid": "rounds" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Round"), Array.from({ length: per }, (_, k) => h("th", { scope: "col", class: "num" }, `slot ${k + 1}`)))),
      h(
        "tbody",
        null,
        orders.map((o, ri) =>
          h(
            "tr",
            { "data-round": ri + 1 },
            h("th", { scope: "row" }, `${ri + 1}`),
            o.map((t, k) => {
              const run = runs[ri * per + k];
              const ok = run && run.target === t;
              return h("td", { class: "num" }, h("span", { class: "cell-target" }, t), h("br"), ok ? (run.error ? h("span", { class: "bad" }, "failed") : F.rps(run.rps)) : "\u2014");
            }),
          ),
        ),
      ),
    ),
  );
}
