// Where an instruction check's delta went: the gate's ranked per-function (and per-file) deltas
// from summary.json's attribution, as a diverging bar chart and a table. The page ranks and sums
// nothing itself: the rows, "everything else" and their shares are the gate's.

import { h, s, section, Child } from "./dom";
import * as F from "./format";
import { Box, linear, niceDomain, round, svgRoot, ticks, xGrid } from "./chart";
import type { Attribution, AttributionRow, AttributionView, Summary } from "./types";

export function attributionSection(sm: Summary): HTMLElement | null {
  const ats = sm.attribution ?? [];
  if (!ats.length) return null;
  return section(
    "attribution",
    "Where the instructions went",
    h(
      "p",
      { class: "note" },
      "Each instruction check's delta per response by function (cachegrind's per-function N/2N slopes, the median of each side's repetitions), ranked by size. A delta under the resolution is noise and never a bar: it is part of everything else, which makes the rows add up to the check's delta.",
    ),
    ats.map(attributionBlock),
  );
}

function attributionBlock(at: Attribution): HTMLElement {
  const head = h("h3", null, `${at.a} \u2212 ${at.b}`);
  const total = h(
    "p",
    { class: "note", "data-testid": "attribution-total" },
    `check ${at.check}: ${F.count(at.total_a)} vs ${F.count(at.total_b)} instructions per response, ${F.signed(at.delta, 1)} (${F.pctDelta(at.delta_pct)})`,
  );
  const attrs = { class: "attribution", "data-testid": "attribution", "data-check": at.check, "data-delta": at.delta };
  if (at.unavailable || !at.functions) {
    return h("div", { ...attrs, "data-unavailable": "true" }, head, total, h("p", { class: "note" }, "No table: " + (at.unavailable || "no per-function counts") + ". The totals above are the check's."));
  }
  return h(
    "div",
    attrs,
    head,
    total,
    viewBlock(at, at.functions, "function"),
    at.files ? [h("h4", null, "By source file"), viewBlock(at, at.files, "file")] : null,
  );
}

function viewBlock(at: Attribution, v: AttributionView, what: "function" | "file"): HTMLElement {
  const rows = v.rows ?? [];
  const only = ([["a", v.only_a], ["b", v.only_b]] as const).filter(([, r]) => r && r.length);
  return h(
    "div",
    { class: "attribution-view", "data-view": what },
    h("p", { class: "note" }, `A ${what}'s delta under \u00b1${F.count(v.resolution)} (the two sides' row resolutions added) is not told from noise.`),
    rows.length ? h("figure", { class: "figure" }, divergingChart(at, v, what)) : h("p", { class: "note" }, `No ${what}'s delta reaches the resolution.`),
    table(at, v, what),
    only.map(([side, r]) =>
      h("p", { class: "note", "data-testid": `only-${side}` }, `Only ${side === "a" ? at.a : at.b} has, past the table: `, (r ?? []).map((x) => `${x.name} ${F.signed(x.delta, 1)}`).join(", ")),
    ),
    (v.notes ?? []).length ? h("ul", { class: "notes" }, (v.notes ?? []).map((n) => h("li", null, n))) : null,
  );
}

// divergingChart draws one horizontal bar per ranked row and one for everything else, from a
// zero line: more instructions in A to the right (worse), fewer to the left.
function divergingChart(at: Attribution, v: AttributionView, what: string): SVGElement {
  const bars: { name: string; delta: number; rest: boolean; share: number | null }[] = (v.rows ?? []).map((r) => ({ name: label(at, r), delta: r.delta, rest: false, share: r.share_pct }));
  bars.push({ name: "everything else", delta: v.rest.delta, rest: true, share: v.rest.share_pct });
  const rowH = 24;
  const b: Box = { w: 1040, h: 40 + rowH * bars.length + 30, top: 16, right: 110, bottom: 30, left: 340 };
  const lo0 = Math.min(0, ...bars.map((x) => x.delta)), hi0 = Math.max(0, ...bars.map((x) => x.delta));
  const [lo, hi] = niceDomain(lo0, hi0, 5);
  const x = linear(lo, hi, b.left, b.w - b.right);
  const svg = svgRoot(`attribution-${what}`, b, `${at.a} minus ${at.b}: instructions per response by ${what}`);
  svg.setAttribute("data-check", at.check);
  xGrid(svg, b, x, ticks(lo, hi, 5), (t) => F.signed(t, 0));
  const x0 = round(x(0));
  bars.forEach((bar, i) => {
    const y = b.top + 8 + i * rowH;
    const xa = round(x(Math.min(0, bar.delta))), xb = round(x(Math.max(0, bar.delta)));
    const cls = bar.rest ? "bar-rest" : bar.delta > 0 ? "bar-worse" : "bar-better";
    const g = s("g", { class: "attr-row" });
    g.appendChild(s("text", { x: b.left - 10, y: y + rowH / 2 - 3, "text-anchor": "end", "dominant-baseline": "middle", class: "tick attr-name" }, clip(bar.name, 46)));
    g.appendChild(
      s(
        "rect",
        { x: xa, y, width: Math.max(1, round(xb - xa)), height: rowH - 8, rx: 2, class: cls, "data-value": bar.delta, "data-name": bar.name, "data-rest": bar.rest ? "true" : null },
        s("title", null, `${bar.name}: ${F.signed(bar.delta, 1)} instructions per response${bar.share === null ? "" : `, ${F.group(bar.share, 1)}% of the delta`}`),
      ),
    );
    const tx = bar.delta >= 0 ? xb + 6 : xa - 6;
    g.appendChild(
      s("text", { x: tx, y: y + rowH / 2 - 3, "text-anchor": bar.delta >= 0 ? "start" : "end", "dominant-baseline": "middle", class: "value-label" }, bar.share === null ? F.signed(bar.delta, 1) : `${F.group(bar.share, 1)}%`),
    );
    svg.appendChild(g);
  });
  svg.appendChild(s("line", { x1: x0, x2: x0, y1: b.top, y2: b.h - b.bottom, class: "zero", "data-x": x0 }));
  return svg;
}

function table(at: Attribution, v: AttributionView, what: string): HTMLElement[] {
  const cell = (x: number | null) => (x === null ? h("span", { class: "muted" }, "\u00b7") : F.count(x));
  const share = (x: number | null) => (x === null ? "\u00b7" : `${F.group(x, 1)}%`);
  const row = (attrs: Record<string, string | number>, name: string, delta: number, sh: number | null, points: string, a: Child, b: Child) =>
    h(
      "tr",
      attrs,
      h("th", { scope: "row", class: "attr-name" }, name),
      h("td", { class: `num delta ${delta > 0 ? "bad" : "good"}` }, F.signed(delta, 1)),
      h("td", { class: "num" }, share(sh)),
      h("td", { class: "num" }, points),
      h("td", { class: "num" }, a),
      h("td", { class: "num" }, b),
    );
  const rest = v.rest;
  const restText =
    `Everything else: ${rest.rows} more ${what}s above the resolution and ${rest.under_rows} with deltas each under it` +
    (rest.under_delta === null ? "; those and the rows under the resolution on both sides add up to less than the resolution of a sum." : `; those and the rows under the resolution on both sides add up to ${F.signed(rest.under_delta, 1)}.`);
  return [
    h(
      "table",
      { class: "metrics attribution-table", "data-testid": `attribution-table-${what}` },
      h("thead", null, h("tr", null, [what, "\u0394 per response", "share of \u0394", `points of ${F.pctDelta(at.delta_pct)}`, at.a, at.b].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        null,
        (v.rows ?? []).map((r) =>
          row({ "data-testid": "attribution-row", "data-name": r.name, "data-delta": r.delta, "data-share": r.share_pct ?? "" }, label(at, r), r.delta, r.share_pct, F.pctDelta(r.points_pct), cell(r.a), cell(r.b)),
        ),
        row({ "data-testid": "attribution-rest", "data-delta": rest.delta }, "everything else", rest.delta, rest.share_pct, "", "", ""),
        row({ class: "total" }, "total", at.delta, null, F.pctDelta(at.delta_pct), F.count(at.total_a), F.count(at.total_b)),
      ),
    ),
    h("p", { class: "note" }, restText),
  ];
}

// label names a row, and the side it is listed on only.
function label(at: Attribution, r: AttributionRow): string {
  return r.only === "a" ? `${r.name} (only ${at.a})` : r.only === "b" ? `${r.name} (only ${at.b})` : r.name;
}

function clip(t: string, n: number): string {
  return t.length > n ? t.slice(0, n - 1) + "\u2026" : t;
}
