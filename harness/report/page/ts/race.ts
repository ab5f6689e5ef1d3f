// The race page: a release page for one candidate against the pinned upstream.

import { h, s, section, Child } from "./dom";
import * as F from "./format";
import { Box, linear, log10, logTicks, niceDomain, plotH, plotW, round, svgRoot, ticks, yGrid, axisTitle, legend } from "./chart";
import { environment, footer, masthead, reproduce, shapeChips, upstreamOf, warnings } from "./common";
import { mergedLatency } from "./merged";
import type { Check, Data, Pair, Run, Summary } from "./types";
import { dbSection } from "./db";
import { designSection } from "./design";
import { kernelSection } from "./kernel";
import { attributionSection } from "./attribution";

const VERDICT_TEXT: Record<string, string> = {
  PASS: "Regression threshold passed",
  FAIL: "Regression threshold failed",
  INCONCLUSIVE: "Regression threshold inconclusive",
  INCOMPLETE: "Session incomplete",
};

export function renderRace(d: Data, root: HTMLElement): void {
  const sm = d.summary as Summary;
  const pairs = sm.pairs ?? [];
  const shape = sm.shape ?? {};
  const upstream = upstreamOf(d.manifest, sm.b);
  const scenario = sm.scenario || shape.scenario || "";

  root.appendChild(
    masthead(
      "race report",
      [h("span", { class: "side-a" }, sm.a), h("span", { class: "vs" }, " vs "), h("span", { class: "side-b" }, sm.b)],
      [
        scenario ? ["scenario ", h("b", null, scenario)] : null,
        shape.profile ? [" \u00b7 profile ", h("b", null, shape.profile)] : null,
        F.when(sm.started) ? [" \u00b7 ", F.when(sm.started)] : null,
      ],
    ),
  );
  root.appendChild(verdictBanner(sm));
  root.appendChild(headline(sm, pairs, upstream));
  root.appendChild(shapeChips(shape, { connections: sm.connections, pipelining: sm.pipelining }, "race"));

  const w = warnings(sm.warnings, sm.incomplete, d.raw?.runs);
  if (w) root.appendChild(w);

  root.appendChild(pairsSection(sm, pairs));
  const dbs = dbSection(sm, pairs);
  if (dbs) root.appendChild(dbs);
  root.appendChild(latencySection(sm, pairs));
  root.appendChild(metricsSection(sm));
  root.appendChild(checksSection(sm));
  const ds = designSection(sm);
  if (ds) root.appendChild(ds);
  root.appendChild(countersSection(sm));
  const ks = kernelSection(sm);
  if (ks) root.appendChild(ks);
  const at = attributionSection(sm);
  if (at) root.appendChild(at);
  root.appendChild(statsSection(sm, pairs));
  root.appendChild(reproduce(shape.command));
  root.appendChild(environment(d.manifest, sm.started, sm.finished));
  root.appendChild(footer(d.raw));
}

/** "@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0" -> "uWebSockets.js 20.30.0". */
// unitOf names what throughput counts: HTTP responses, or WebSocket messages for ws-echo.
function unitOf(sm: Summary): string {
  return sm.unit || "responses/s";
}

function prettyUpstream(u: string): string {
  const m = /(uws|uwebsockets)[^@\s]*@v?(\d+\.\d+\.\d+)/i.exec(u);
  if (m) return `uWebSockets.js ${m[2]}`;
  return u.length > 40 ? u.slice(0, 39) + "\u2026" : u;
}

function verdictBanner(sm: Summary): HTMLElement {
  const v = (sm.verdict || "INCOMPLETE").toUpperCase();
  const cls = v === "PASS" ? "pass" : v === "FAIL" ? "fail" : v === "INCONCLUSIVE" ? "inconclusive" : "incomplete";
  const reasons = sm.reasons ?? [];
  return h(
    "section",
    { class: `verdict ${cls}`, "data-testid": "verdict", "data-verdict": v, role: "status" },
    h("div", { class: "badge", "data-testid": "verdict-badge" }, v),
    h(
      "div",
      { class: "verdict-body" },
      h("p", { class: "verdict-title", "data-testid": "verdict-text" }, VERDICT_TEXT[v] ?? v),
      sm.headline ? h("p", { class: "verdict-headline" }, sm.headline) : null,
      reasons.length ? h("ul", { class: "reasons", "data-testid": "reasons" }, reasons.map((r) => h("li", null, r))) : null,
    ),
  );
}

// fig is side's figure of the runtime table stats stored in summary.json (NaN: not reported);
// the page computes no statistic of its own.
function fig(sm: Summary, key: string, side: "a" | "b"): number {
  return sm.runtime?.[key]?.[side] ?? NaN;
}

// decidedFigure is the throughput figure the verdict rests on (summary.json's decide_on): its
// paired median delta and interval, as gate.Headline words it.
function decidedFigure(sm: Summary): { metric: string; label: string; delta: number; ci?: [number, number] | null; coverage?: number } {
  if (sm.decide_on === "rps_per_cpu_second") {
    const p = sm.paired?.rps_per_cpu_second;
    return { metric: "rps_per_cpu_second", label: "median throughput per server CPU-second of ", delta: p?.median_pct ?? NaN, ci: p?.ci_pct, coverage: p?.confidence };
  }
  return { metric: "rps", label: "median throughput of ", delta: sm.median_delta_pct ?? NaN, ci: sm.ci_pct, coverage: sm.ci_confidence };
}

function headline(sm: Summary, pairs: Pair[], upstream: string): HTMLElement {
  const unit = unitOf(sm);
  const dec = decidedFigure(sm);
  const delta = dec.delta;
  const rpsA = fig(sm, "rps", "a");
  const rpsB = fig(sm, "rps", "b");
  const p95A = fig(sm, "p95_ms", "a");
  const p99A = fig(sm, "p99_ms", "a");
  const p95B = fig(sm, "p95_ms", "b");
  const p99B = fig(sm, "p99_ms", "b");
  const p95d = sm.paired?.p95_ms?.median_pct;
  const p99d = sm.paired?.p99_ms?.median_pct;
  // A closed loop runs both servers saturated: its tails are the queue over the throughput.
  const tails = sm.rate ? "" : " (saturation, context)";
  const pinned = upstream ? prettyUpstream(upstream) : sm.b === "uws" ? "uWebSockets.js" : "";
  const kpi = (id: string, label: string, value: string, note: Child, cls = "") =>
    h("div", { class: `kpi ${cls}`, "data-testid": id }, h("div", { class: "kpi-label" }, label), h("div", { class: "kpi-value" }, value), h("div", { class: "kpi-note" }, note));
  const raw = dec.metric === "rps" ? null : [h("span", { "data-testid": "headline-raw" }, `raw throughput ${F.pctDelta(sm.median_delta_pct)}`), ": "];

  return h(
    "section",
    { class: "headline-wrap" },
    h(
      "div",
      { class: "headline", "data-testid": "headline", "data-value": F.finite(delta) ? delta : "", "data-metric": dec.metric },
      h("div", { class: `headline-delta ${F.tone(delta, true, 0)}`, "data-testid": "headline-delta" }, F.pctDelta(delta)),
      h(
        "p",
        { class: "headline-text", "data-testid": "headline-text" },
        dec.label,
        h("b", { class: "side-a" }, sm.a),
        " vs ",
        h("b", { class: "side-b" }, sm.b),
        pinned ? [", the pinned ", h("b", { title: upstream || null }, pinned)] : null,
        ` \u00b7 ${pairs.length} pair${pairs.length === 1 ? "" : "s"}`,
      ),
      h("p", { class: "headline-rps" }, raw, h("span", { class: "num side-a" }, F.rps(rpsA)), " vs ", h("span", { class: "num side-b" }, F.rps(rpsB)), " " + unit),
    ),
    h(
      "div",
      { class: "kpis" },
      kpi("kpi-p95", `p95 latency \u00b7 ${sm.a}${tails}`, F.ms(p95A), [h("span", { class: F.tone(p95d, false) }, F.pctDelta(p95d)), ` vs ${sm.b} (${F.ms(p95B)})`]),
      kpi("kpi-p99", `p99 latency \u00b7 ${sm.a}${tails}`, F.ms(p99A), [h("span", { class: F.tone(p99d, false) }, F.pctDelta(p99d)), ` vs ${sm.b} (${F.ms(p99B)})`]),
      kpi(
        "kpi-ci",
        `${F.level(sm.ci_level)} interval of the median delta`,
        dec.ci ? F.interval(dec.ci, 1) : "too few pairs",
        `real coverage ${F.level(dec.coverage)} \u00b7 threshold ${F.pctDelta(sm.thresholds?.min_median_delta_pct, 1)}`,
      ),
      kpi("kpi-wins", "Pairs won", `${sm.wins ?? pairs.filter((p) => p.delta_pct > 0).length} of ${pairs.length}`, `by ${sm.a} on ${dec.metric === "rps" ? "" : "raw "}throughput`),
    ),
  );
}

// ---- pairs -------------------------------------------------------------------------------------

function pairsSection(sm: Summary, pairs: Pair[]): HTMLElement {
  const n = pairs.length;
  const title = n === 0 ? "No pairs completed" : `All ${n} pairs, no selection.`;
  const t = sm.thresholds?.min_median_delta_pct;
  return section(
    "pairs",
    title,
    h(
      "p",
      { class: "note" },
      `Each pair is two fresh server processes measured back to back; the order alternates (AB, BA, \u2026) so warm caches and thermal drift favour neither side. `,
      F.finite(t) ? `The dashed line marks ${sm.b}\u2019s throughput \u00d7 (1 ${t < 0 ? "\u2212" : "+"} ${F.group(Math.abs(t), 1)}%): the least ${sm.a} may serve to pass the threshold.` : "",
    ),
    n ? h("figure", { class: "figure" }, pairsChart(sm, pairs)) : null,
    h("div", { class: "pair-grid", "data-testid": "pair-cards" }, pairs.map((p, i) => pairCard(sm, p, i))),
  );
}

function pairsChart(sm: Summary, pairs: Pair[]): SVGElement {
  const unit = unitOf(sm);
  const b: Box = { w: 1040, h: 340, top: 56, right: 16, bottom: 46, left: 72 };
  const t = sm.thresholds?.min_median_delta_pct;
  const thr = (p: Pair) => (F.finite(t) ? p.b.rps * (1 + t / 100) : NaN);
  const vals: number[] = [];
  for (const p of pairs) vals.push(p.a.rps, p.b.rps, thr(p));
  const fin = vals.filter((v) => F.finite(v) && v > 0);
  let lo = Math.min(...fin), hi = Math.max(...fin);
  const pad = (hi - lo) * 0.12 || hi * 0.05 || 1;
  [lo, hi] = niceDomain(Math.max(0, lo - pad), hi + pad, 5);
  const y = linear(lo, hi, b.h - b.bottom, b.top);
  const svg = svgRoot("pairs", b, `Throughput of ${sm.a} and ${sm.b} in each of ${pairs.length} pairs`);
  yGrid(svg, b, y, ticks(lo, hi, 5));
  axisTitle(svg, unit, 16, b.top + plotH(b) / 2, true);

  const band = plotW(b) / pairs.length;
  const labelEvery = Math.max(1, Math.ceil(24 / band));
  const thrPath: string[] = [];
  const gPairs = s("g", { class: "pairs" });
  pairs.forEach((p, i) => {
    const cx = round(b.left + band * (i + 0.5));
    const ya = round(y(p.a.rps)), yb = round(y(p.b.rps));
    const win = p.delta_pct >= 0;
    const g = s("g", { class: "pair-mark", "data-pair": i + 1 });
    if (i % 2 === 1) svg.insertBefore(s("rect", { x: round(b.left + band * i), y: b.top, width: round(band), height: plotH(b), class: "band" }), svg.firstChild);
    if (F.finite(thr(p))) {
      const yt = round(y(thr(p)));
      const half = Math.min(band * 0.36, 34);
      thrPath.push(`M${round(cx - half)},${yt}H${round(cx + half)}`);
    }
    const okA = p.a.rps > 0, okB = p.b.rps > 0; // a run that failed has no throughput to plot
    const r = band < 20 ? 4 : 7;
    if (okA && okB) g.appendChild(s("line", { x1: cx, x2: cx, y1: ya, y2: yb, class: win ? "stem win" : "stem lose" }));
    if (okB) g.appendChild(s("circle", { cx, cy: yb, r, class: "dot-b", "data-side": "b", "data-pair": i + 1, "data-value": p.b.rps }, s("title", null, `pair ${i + 1} ${sm.b}: ${F.rps(p.b.rps)} ${unit}`)));
    if (okA) g.appendChild(s("circle", { cx, cy: ya, r, class: "dot-a", "data-side": "a", "data-pair": i + 1, "data-value": p.a.rps }, s("title", null, `pair ${i + 1} ${sm.a}: ${F.rps(p.a.rps)} ${unit}`)));
    if (band >= 44) g.appendChild(s("text", { x: cx, y: b.top - 10, "text-anchor": "middle", class: `delta-label ${F.tone(p.delta_pct, true, 0)}` }, F.pctDelta(p.delta_pct, 1)));
    if (i % labelEvery === 0) {
      g.appendChild(s("text", { x: cx, y: b.h - b.bottom + 18, "text-anchor": "middle", class: "tick" }, `${i + 1}`));
      if (band >= 24) g.appendChild(s("text", { x: cx, y: b.h - b.bottom + 33, "text-anchor": "middle", class: "tick order" }, p.order));
    }
    gPairs.appendChild(g);
  });
  if (thrPath.length) svg.appendChild(s("path", { d: thrPath.join(""), class: "threshold", "data-threshold": t ?? "" }));
  svg.appendChild(gPairs);
  legend(svg, b.left, 14, [
    { label: sm.a, cls: "dot-a" },
    { label: sm.b, cls: "dot-b" },
    ...(F.finite(t) ? [{ label: `threshold: ${sm.b} \u00d7 (1 ${t < 0 ? "\u2212" : "+"} ${F.group(Math.abs(t), 1)}%)`, cls: "threshold", shape: "dash" as const }] : []),
  ]);
  return svg;
}

function pairCard(sm: Summary, p: Pair, i: number): HTMLElement {
  const first = p.order === "BA" ? sm.b : sm.a;
  const row = (side: "a" | "b", r: Run) =>
    h(
      "div",
      { class: `pc-row side-${side}` },
      h("span", { class: "pc-name", title: side === "a" ? sm.a : sm.b }, side === "a" ? sm.a : sm.b),
      h("span", { class: "pc-rps num", "data-testid": `rps-${side}` }, F.rps(r.rps)),
    );
  const errs = (p.a.errors ?? 0) + (p.b.errors ?? 0);
  return h(
    "article",
    {
      class: "pair-card",
      "data-testid": "pair",
      "data-index": i + 1,
      "data-order": p.order,
      "data-rps-a": p.a.rps,
      "data-rps-b": p.b.rps,
      "data-delta": p.delta_pct,
      "data-p99-a": p.a.p99_ms ?? "",
      "data-p99-b": p.b.p99_ms ?? "",
    },
    h(
      "div",
      { class: "pc-head" },
      h("span", { class: "pc-index" }, `Pair ${i + 1}`),
      h("span", { class: "pc-order", title: `${first} ran first` }, p.order),
      h("span", { class: `pc-delta ${F.tone(p.delta_pct, true, 0)}`, "data-testid": "pair-delta" }, F.pctDelta(p.delta_pct)),
    ),
    row("a", p.a),
    row("b", p.b),
    h(
      "div",
      { class: "pc-p99" },
      "p99 ",
      h("span", { class: "num side-a", "data-testid": "p99-a" }, F.ms(p.a.p99_ms)),
      " \u00b7 ",
      h("span", { class: "num side-b", "data-testid": "p99-b" }, F.ms(p.b.p99_ms)),
    ),
    errs || p.a.error || p.b.error
      ? h("div", { class: "pc-err" }, [errs ? `${F.group(errs)} errors` : "", p.a.error ? ` ${sm.a}: ${p.a.error}` : "", p.b.error ? ` ${sm.b}: ${p.b.error}` : ""].join(" ").trim())
      : null,
    p.a.client_bound || p.b.client_bound ? h("div", { class: "pc-flag" }, "client-bound") : null,
  );
}

// ---- latency -----------------------------------------------------------------------------------

const PCTS: { key: keyof Run; label: string }[] = [
  { key: "p50_ms", label: "p50" },
  { key: "p95_ms", label: "p95" },
  { key: "p99_ms", label: "p99" },
  { key: "p999_ms", label: "p99.9" },
];

function latencySection(sm: Summary, pairs: Pair[]): HTMLElement {
  return section(
    "latency",
    "Latency percentiles",
    h("p", { class: "note" }, `Median over the ${pairs.length} pairs of each run\u2019s percentile; latency is the arrival of a response minus the write of its pipelined batch. Lower is better.`),
    pairs.length ? h("figure", { class: "figure" }, latencyChart(sm)) : null,
    mergedLatency(sm),
  );
}

function latencyChart(sm: Summary): SVGElement {
  const b: Box = { w: 1040, h: 300, top: 52, right: 40, bottom: 40, left: 72 };
  const series = (["a", "b"] as const).map((side) => ({
    side,
    vals: PCTS.map((p) => fig(sm, p.key, side)),
  }));
  const all = series.flatMap((x) => x.vals).filter((v) => F.finite(v) && v > 0);
  const lo0 = Math.min(...all), hi0 = Math.max(...all);
  const useLog = hi0 / lo0 > 12;
  let y, tv: number[];
  if (useLog) {
    const lo = Math.pow(10, Math.floor(Math.log10(lo0))), hi = Math.pow(10, Math.ceil(Math.log10(hi0 * 1.05)));
    y = log10(lo, hi, b.h - b.bottom, b.top);
    tv = logTicks(lo, hi);
  } else {
    const [lo, hi] = niceDomain(0, hi0 * 1.12, 5);
    y = linear(lo, hi, b.h - b.bottom, b.top);
    tv = ticks(lo, hi, 5);
  }
  const svg = svgRoot("latency", b, `Latency percentiles of ${sm.a} and ${sm.b}`);
  svg.setAttribute("data-scale", useLog ? "log" : "linear");
  yGrid(svg, b, y, tv, (v) => F.short(v));
  axisTitle(svg, useLog ? "ms (log scale)" : "ms", 16, b.top + plotH(b) / 2, true);
  const step = plotW(b) / PCTS.length;
  const x = (i: number) => round(b.left + step * (i + 0.5));
  PCTS.forEach((p, i) => svg.appendChild(s("text", { x: x(i), y: b.h - b.bottom + 22, "text-anchor": "middle", class: "tick strong" }, p.label)));
  for (const ser of series) {
    const pts = ser.vals.map((v, i) => (F.finite(v) ? [x(i), round(y(v))] : null)).filter((q): q is number[] => q !== null);
    if (pts.length > 1) svg.appendChild(s("path", { d: "M" + pts.map((q) => q.join(",")).join("L"), class: `line-${ser.side}` }));
  }
  for (const ser of series) {
    const other = series.find((o) => o.side !== ser.side)!;
    ser.vals.forEach((v, i) => {
      if (!F.finite(v)) return;
      const cy = round(y(v));
      const above = ser.side === "a" ? v >= other.vals[i] : v > other.vals[i];
      svg.appendChild(
        s("circle", { cx: x(i), cy, r: 6, class: `dot-${ser.side}`, "data-side": ser.side, "data-pct": PCTS[i].label, "data-value": v }, s("title", null, `${ser.side === "a" ? sm.a : sm.b} ${PCTS[i].label}: ${F.ms(v)}`)),
      );
      svg.appendChild(
        s("text", { x: x(i), y: cy + (above ? -13 : 23), "text-anchor": "middle", class: `value-label side-${ser.side}` }, F.ms(v)),
      );
    });
  }
  legend(svg, b.left, 14, [
    { label: sm.a, cls: "dot-a" },
    { label: sm.b, cls: "dot-b" },
  ]);
  return svg;
}

// ---- the metrics table -------------------------------------------------------------------------

interface Metric {
  id: string; // the key of its figure in summary.json's runtime (errors: stats_a/b.errors)
  label: string;
  fmt: (v: number) => string;
  higher: boolean;
  context?: boolean; // neither higher nor lower is better: its delta is not toned
}

// optional groups are shown only when a side reported one of their figures (the live system
// calls exist only in a race that counted them).
const GROUPS: { title: string; rows: Metric[]; optional?: boolean }[] = [
  {
    title: "Throughput",
    rows: [
      { id: "rps", label: "Throughput", fmt: F.rps, higher: true },
      { id: "rps_per_cpu_second", label: "Responses per server CPU-second", fmt: F.rps, higher: true },
      { id: "errors", label: "Errors (all pairs)", fmt: (v) => F.group(v), higher: false },
    ],
  },
  {
    title: "Tails",
    rows: [
      { id: "p50_ms", label: "Latency p50", fmt: F.ms, higher: false },
      { id: "p95_ms", label: "Latency p95", fmt: F.ms, higher: false },
      { id: "p99_ms", label: "Latency p99", fmt: F.ms, higher: false },
      { id: "p999_ms", label: "Latency p99.9", fmt: F.ms, higher: false },
    ],
  },
  {
    title: "Runtime",
    rows: [
      { id: "server_cpu_pct", label: "Server CPU (% of one core)", fmt: (v) => F.pct(v), higher: false },
      { id: "rss_mib", label: "RSS after warm-up", fmt: F.mib, higher: false },
      { id: "peak_rss_mib", label: "Peak RSS", fmt: F.mib, higher: false },
      { id: "heap_mib", label: "Heap (Go or V8)", fmt: F.mib, higher: false },
      { id: "startup_ms", label: "Startup (spawn to first response)", fmt: F.ms, higher: false },
      { id: "artifact_bytes", label: "Artefact size", fmt: F.bytes, higher: false },
    ],
  },
  {
    title: "Kernel (live load)",
    optional: true,
    rows: [
      { id: "syscalls_per_response", label: "System calls per response", fmt: F.count, higher: false },
      { id: "context_switches_per_response", label: "Context switches per response", fmt: F.count, higher: false },
    ],
  },
  {
    title: "Sampled CPU time (perf cpu-clock)",
    optional: true,
    rows: [
      { id: "sampled_ns_per_response", label: "CPU time per response (ns)", fmt: F.count, higher: false },
      { id: "sampled_kernel_ns_per_response", label: "of which in the kernel (ns)", fmt: F.count, higher: false },
    ],
  },
];

// readingsGroup is every reading's row of the runtime table (the rows that name themselves), by
// label: a new reading of the rig shows here without a change to the page.
function readingsGroup(sm: Summary): { title: string; rows: Metric[]; optional?: boolean } {
  const rows = Object.entries(sm.runtime ?? {})
    .filter(([, f]) => f.label)
    .map(([id, f]) => ({ id, label: f.label ?? id, fmt: F.count, higher: !f.lower_is_better, context: f.context }))
    .sort((x, y) => x.label.localeCompare(y.label));
  return { title: "Readings", rows, optional: true };
}

// notReported is what a side's cell says without a value: why, when its runs said (a reading
// of a runtime the side does not run on, or one that failed).
function notReported(sm: Summary, key: string, side: "a" | "b"): string {
  const why = sm.runtime?.[key]?.[side === "a" ? "not_read_a" : "not_read_b"];
  return why ? `not reported (${why})` : "not reported";
}

function metricsSection(sm: Summary): HTMLElement {
  const head = h(
    "thead",
    null,
    h("tr", null, h("th", { scope: "col" }, "Median over pairs"), h("th", { scope: "col", class: "num side-a" }, sm.a), h("th", { scope: "col", class: "num side-b" }, sm.b), h("th", { scope: "col", class: "num" }, "\u0394"), h("th", { scope: "col" }, "")),
  );
  const shown = [...GROUPS, readingsGroup(sm)].filter((g) => !g.optional || g.rows.some((m) => F.finite(fig(sm, m.id, "a")) || F.finite(fig(sm, m.id, "b"))));
  const bodies = shown.map((g) =>
    h(
      "tbody",
      null,
      h("tr", { class: "group" }, h("th", { colspan: 5, scope: "rowgroup" }, g.title)),
      g.rows.map((m) => {
        const errors = m.id === "errors";
        const a = errors ? sm.stats_a?.errors ?? NaN : fig(sm, m.id, "a");
        const b = errors ? sm.stats_b?.errors ?? NaN : fig(sm, m.id, "b");
        const d = errors ? (a === b ? 0 : NaN) : sm.runtime?.[m.id]?.delta_pct ?? NaN;
        return h(
          "tr",
          { "data-testid": "metric", "data-metric": m.id, "data-a": F.finite(a) ? a : "", "data-b": F.finite(b) ? b : "", "data-delta": F.finite(d) ? round(d * 10) / 10 : "" },
          h("th", { scope: "row" }, m.id === "rps" ? `${m.label} (${unitOf(sm)})` : m.label),
          h("td", { class: "num" }, F.finite(a) ? m.fmt(a) : h("span", { class: "muted" }, notReported(sm, m.id, "a"))),
          h("td", { class: "num" }, F.finite(b) ? m.fmt(b) : h("span", { class: "muted" }, notReported(sm, m.id, "b"))),
          h("td", { class: `num delta ${m.context ? "flat" : F.tone(d, m.higher)}` }, errors && a === b ? "same" : F.finite(d) ? F.pctDelta(d, 1) : "\u2014"),
          h("td", { class: "better" }, m.context ? "context" : m.higher ? "higher is better" : "lower is better"),
        );
      }),
    ),
  );
  return section(
    "runtime",
    "Throughput, tails and runtime",
    h("p", { class: "note" }, `\u0394 is ${sm.a} relative to ${sm.b}. Green means better for ${sm.a}, red worse; changes under 0.5% are left grey.`),
    h("table", { class: "metrics", "data-testid": "metrics" }, head, ...bodies),
  );
}

// ---- counters ----------------------------------------------------------------------------------

const COUNTER_ORDER = ["instructions", "cycles", "ipc", "branches", "branch-misses", "cache-references", "cache-misses", "task-clock", "task-clock-ns", "context-switches", "page-faults"];

function counterRank(n: string): number {
  const i = COUNTER_ORDER.indexOf(n.toLowerCase());
  return i < 0 ? COUNTER_ORDER.length : i;
}

function countersSection(sm: Summary): HTMLElement {
  const ca = sm.counters?.a ?? {}, cb = sm.counters?.b ?? {};
  const un = sm.counters_unsupported ?? {};
  const names = Array.from(new Set([...Object.keys(ca), ...Object.keys(cb)])).filter((n) => !(n in un) || n in ca || n in cb);
  names.sort((p, q) => counterRank(p) - counterRank(q) || p.localeCompare(q));
  const unsupported = Object.keys(un).filter((n) => !(n in ca) && !(n in cb)).sort((p, q) => counterRank(p) - counterRank(q) || p.localeCompare(q));
  const mode = sm.counters_mode ? ` (${sm.counters_mode})` : "";
  const rows: Child[] = names.map((n) => {
    const a = ca[n], b = cb[n];
    const d = sm.counter_delta_pct?.[n] ?? NaN;
    const higher = n.toLowerCase() === "ipc";
    return h(
      "tr",
      { "data-testid": "counter-row", "data-counter": n, "data-a": F.finite(a) ? a : "", "data-b": F.finite(b) ? b : "" },
      h("th", { scope: "row" }, n),
      h("td", { class: "num" }, F.finite(a) ? F.count(a) : h("span", { class: "muted" }, "\u2014")),
      h("td", { class: "num" }, F.finite(b) ? F.count(b) : h("span", { class: "muted" }, "\u2014")),
      h("td", { class: `num delta ${F.tone(d, higher)}` }, F.finite(d) ? F.pctDelta(d, 1) : "\u2014"),
      h("td", { class: "better" }, higher ? "higher is better" : "lower is better"),
    );
  });
  for (const n of unsupported) {
    rows.push(
      h(
        "tr",
        { "data-testid": "counter-row", "data-counter": n, "data-unsupported": "true", class: "unsupported" },
        h("th", { scope: "row" }, n),
        h("td", { colspan: 4 }, h("span", { class: "tag" }, "not supported"), " ", un[n]),
      ),
    );
  }
  return section(
    "counters",
    "CPU counters per response",
    h("p", { class: "note" }, `Counted on the server during the measured window only and divided by the responses in that window${mode}. A counter the host cannot read says why instead of showing a zero.`),
    rows.length === 0
      ? h("p", { class: "note" }, "No counters were recorded for this session.")
      : h(
          "table",
          { class: "metrics counters", "data-testid": "counters" },
          h("thead", null, h("tr", null, h("th", { scope: "col" }, "Per response"), h("th", { scope: "col", class: "num side-a" }, sm.a), h("th", { scope: "col", class: "num side-b" }, sm.b), h("th", { scope: "col", class: "num" }, "\u0394"), h("th", { scope: "col" }, ""))),
          h("tbody", null, rows),
        ),
  );
}

// ---- checks ------------------------------------------------------------------------------------

function checksSection(sm: Summary): HTMLElement {
  const checks = [...(sm.checks ?? []), ...(sm.context ?? [])];
  const pctOr = (c: Check, x: number | null) => (x === null || !F.finite(x) ? "\u2014" : c.metric === "errors" ? F.group(x) : F.pctDelta(x, 2));
  const rows = checks.map((c) =>
    h(
      "tr",
      { "data-testid": "check-row", "data-metric": c.metric, "data-verdict": c.verdict, title: c.reason },
      h("th", { scope: "row" }, c.metric),
      h("td", null, h("span", { class: `tag ${c.verdict.toLowerCase()}` }, c.verdict)),
      h("td", { class: "num" }, pctOr(c, c.delta)),
      h("td", { class: "num" }, c.interval ? F.interval(c.interval) : "\u2014"),
      h("td", { class: "num" }, c.confidence === null ? "deterministic" : F.level(c.confidence)),
      h("td", { class: "num" }, c.verdict === "context" ? "none (context)" : (c.bound === "min" ? "\u2265 " : "\u2264 ") + (c.metric === "errors" ? F.group(c.limit) : F.pctDelta(c.limit, 2))),
    ),
  );
  return section(
    "checks",
    "Checks",
    h("p", { class: "note" }, `What the verdict rests on, one row per limit (summary.json's checks). Intervals are at ${F.level(sm.ci_level)} each; the real coverage of an order-statistic interval is at least that. Rows marked context (summary.json's context) are shown and gate nothing: a saturated closed loop's percentiles are its queue over its throughput.`),
    rows.length === 0
      ? h("p", { class: "note" }, "No checks recorded in this session.")
      : h(
          "table",
          { class: "metrics checks", "data-testid": "checks" },
          h("thead", null, h("tr", null, ["Check", "Verdict", "Median \u0394", "Interval", "Real coverage", "Limit"].map((x) => h("th", { scope: "col" }, x)))),
          h("tbody", null, rows),
        ),
  );
}

// ---- statistics --------------------------------------------------------------------------------

function statsSection(sm: Summary, pairs: Pair[]): HTMLElement {
  const th = sm.thresholds ?? {};
  const item = (id: string, label: string, value: Child, note?: Child) =>
    h("div", { class: "stat", "data-testid": `stat-${id}` }, h("dt", null, label), h("dd", null, h("span", { class: "stat-value" }, value), note ? h("span", { class: "stat-note" }, note) : null));
  const ab = pairs.filter((p) => p.order === "AB").length;
  return section(
    "statistics",
    "Statistics",
    h(
      "dl",
      { class: "stats" },
      item("median", "Median delta", F.pctDelta(sm.median_delta_pct), `${sm.a} vs ${sm.b}, throughput`),
      item("ci", `${F.level(sm.ci_level)} interval`, sm.ci_pct ? F.interval(sm.ci_pct) : "too few pairs", `of the median delta; order statistics, real coverage ${F.level(sm.ci_confidence)}`),
      item("range", "Min / max delta", `${F.pctDelta(sm.min_delta_pct)} / ${F.pctDelta(sm.max_delta_pct)}`),
      item("wins", "Wins", `${sm.wins ?? 0} of ${pairs.length}`, `pairs ${sm.a} won`),
      item("cv-a", `CV \u00b7 ${sm.a}`, F.pct(sm.stats_a?.cv_pct, 2), "run-to-run spread of throughput"),
      item("cv-b", `CV \u00b7 ${sm.b}`, F.pct(sm.stats_b?.cv_pct, 2), "run-to-run spread of throughput"),
      item("order", "Order effect", F.pctDelta(sm.order_effect_pct), `mean delta of ${ab} AB pairs minus ${pairs.length - ab} BA pairs`),
      item("p99", "p99 delta", F.pctDelta(sm.paired?.p99_ms?.median_pct), `median of the per-pair p99 deltas, interval ${F.interval(sm.paired?.p99_ms?.ci_pct)}; limit ${F.pctDelta(th.max_p99_delta_pct, 1)}`),
    ),
    h(
      "p",
      { class: "note thresholds", "data-testid": "thresholds" },
      "Gate: median throughput delta at least ",
      h("b", null, F.pctDelta(th.min_median_delta_pct, 1)),
      ", p99 delta at most ",
      h("b", null, F.pctDelta(th.max_p99_delta_pct, 1)),
      ", at most ",
      h("b", null, F.group(th.max_errors ?? 0)),
      " errors",
      th.counter_max_growth_pct && Object.keys(th.counter_max_growth_pct).length
        ? [", counters growing at most ", Object.entries(th.counter_max_growth_pct).map(([k, v]) => `${k} ${F.pctDelta(v, 1)}`).join(", "), " vs the baseline"]
        : null,
      `. Each check's ${F.level(sm.ci_level)} interval must clear its limit: ${sm.fallible_checks ?? 2} statistical checks share a ${F.level(sm.family_confidence)} family confidence, so a build raced against itself fails at most ${F.level(1 - (sm.family_confidence ?? 0.95))} of the time. INCONCLUSIVE when an interval straddles its limit or there are too few pairs for one.`,
    ),
  );
}
