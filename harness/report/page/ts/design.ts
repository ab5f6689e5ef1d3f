// How a race was decided: its design, how its pairs ended, and every look of every statistical
// check — the intervals narrowing towards the limit until one clears it.

import { h, s, section } from "./dom";
import * as F from "./format";
import { Box, axisTitle, linear, niceDomain, plotH, plotW, round, svgRoot, ticks, yGrid } from "./chart";
import type { Check, Design, SetAside, Summary } from "./types";

const STOP_TEXT: Record<string, string> = {
  decided: "decided after",
  max_pairs: "undecided after",
  max_time: "undecided after",
  session_fail: "stopped after",
  interrupted: "interrupted after",
};

/** "decided after 8 of at most 30 pairs in 1m52s" (gate.StopText's words). */
export function stopText(sm: Summary): string {
  const st = sm.stop, d = sm.design;
  if (!st || !d) return "";
  const secs = Math.round(st.elapsed_s * 10) / 10;
  const took = secs >= 60 ? `${Math.floor(secs / 60)}m${Math.round((secs % 60) * 10) / 10}s` : `${secs}s`;
  if (d.kind === "fixed") return `all ${st.pairs} pairs of a fixed design in ${took}`;
  let t = `${STOP_TEXT[st.reason] ?? "stopped after"} ${st.pairs} of at most ${d.max_pairs} pairs in ${took}`;
  if (st.reason === "max_pairs") t += " (its last look)";
  if (st.reason === "max_time") t += " (the session's time ran out)";
  return t;
}

export function designSection(sm: Summary): HTMLElement | null {
  const d = sm.design;
  if (!d) return null;
  const stat = (sm.checks ?? []).filter((c) => (c.looks ?? []).length > 0);
  const plan =
    d.kind === "sequential"
      ? `Sequential design: a look after every even pair count from ${d.min_pairs} to at most ${d.max_pairs} pairs${d.max_time_s ? `, within ${F.seconds(d.max_time_s)} for the whole session` : ""}; ${F.level(d.alpha)} per check and direction, spent over the looks (Lan-DeMets Pocock-type), so stopping at any look keeps the false-FAIL budget.`
      : `Fixed design: one look after all ${d.max_pairs} pairs, ${F.level(d.alpha)} per check and direction.`;
  const main = stat.find((c) => c.metric === "rps" || c.metric === "rps_per_cpu_second") ?? stat[0];
  return section(
    "design",
    "How it was decided",
    h("p", { class: "note" }, plan),
    h("p", { class: "stop", "data-testid": "stop", "data-reason": sm.stop?.reason ?? "" }, stopText(sm)),
    sm.set_aside ? h("p", { class: "note", "data-testid": "set-aside", "data-rounds": sm.set_aside.rounds }, setAsideText(sm.set_aside)) : null,
    main ? h("figure", { class: "figure" }, looksChart(main, d)) : null,
    stat.length ? looksTable(stat, d) : null,
    ...stat
      .filter((c) => c.verdict === "INCONCLUSIVE" && !c.decided_at)
      .map((c) =>
        h("p", { class: "note", "data-testid": "needed", "data-metric": c.metric }, c.pairs_needed ? `${c.metric} is undecided: about ${c.pairs_needed} pairs would decide it at this spread.` : `${c.metric} is undecided: its deltas lean to neither side of its limit.`),
      ),
  );
}

/** One bar per look: the check's interval at that look, the limit as a dashed line. */
function looksChart(c: Check, d: Design): SVGElement {
  const b: Box = { w: 1040, h: 260, top: 24, right: 40, bottom: 44, left: 72 };
  const looks = c.looks ?? [];
  const ends = looks.flatMap((l) => (l.interval ? l.interval : [])).concat([c.limit]);
  const [lo, hi] = niceDomain(Math.min(...ends), Math.max(...ends), 5);
  const y = linear(lo, hi, b.h - b.bottom, b.top);
  const last = d.looks[d.looks.length - 1] ?? 1;
  const x = linear(0, last + 2, b.left, b.w - b.right);
  const svg = svgRoot("looks", b, `The ${c.metric} interval at every look`);
  yGrid(svg, b, y, ticks(lo, hi, 5), (v) => F.pctDelta(v, 0));
  axisTitle(svg, `${c.metric} delta`, 16, b.top + plotH(b) / 2, true);
  axisTitle(svg, "pairs", b.left + plotW(b) / 2, b.h - 6);
  svg.appendChild(s("line", { x1: b.left, x2: b.w - b.right, y1: round(y(c.limit)), y2: round(y(c.limit)), class: "threshold", "data-threshold": c.limit }));
  for (const l of looks) {
    const xx = round(x(l.pairs));
    svg.appendChild(s("text", { x: xx, y: b.h - b.bottom + 18, "text-anchor": "middle", class: "tick" }, String(l.pairs)));
    if (!l.interval) continue;
    const [y0, y1] = [round(y(l.interval[1])), round(y(l.interval[0]))];
    svg.appendChild(
      s(
        "rect",
        { x: xx - 6, y: y0, width: 12, height: Math.max(y1 - y0, 1), rx: 2, class: `look ${(l.decision ?? "open").toLowerCase()}`, "data-pairs": l.pairs, "data-value": `${l.interval[0]},${l.interval[1]}`, "data-decision": l.decision ?? "" },
        s("title", null, `${l.pairs} pairs: ${F.interval(l.interval)}${l.decision ? " " + l.decision : ""}`),
      ),
    );
  }
  return svg;
}

function looksTable(stat: Check[], d: Design): HTMLElement {
  const reached = new Set(stat.flatMap((c) => (c.looks ?? []).map((l) => l.pairs)));
  const rows = d.looks
    .map((n, i) => [n, d.bounds[i]] as const)
    .filter(([n]) => reached.has(n))
    .map(([n, bound]) =>
      h(
        "tr",
        { "data-testid": "look-row", "data-pairs": n },
        h("th", { scope: "row" }, String(n)),
        h("td", { class: "num" }, bound > n ? "none yet" : `${bound} of ${n}`),
        stat.map((c) => {
          const l = (c.looks ?? []).find((x) => x.pairs === n);
          return h("td", { class: "num" }, !l ? "" : l.interval ? F.interval(l.interval) + (l.decision ? ` ${l.decision}` : "") : "no interval yet");
        }),
      ),
    );
  return h(
    "table",
    { class: "metrics looks", "data-testid": "looks" },
    h("thead", null, h("tr", null, ["Pairs", "Bound (deltas on one side)", ...stat.map((c) => c.metric)].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", null, rows),
  );
}

/** How many rounds the steal rule set aside, and whose windows were spoiled. */
function setAsideText(sa: SetAside): string {
  if (sa.rounds === 0) return `No round of windows lost more than ${sa.limit_pct}% of the CPUs\u2019 time to the hypervisor (${sa.measured} rounds measured).`;
  return `${sa.rounds} of ${sa.measured} rounds of windows were set aside and measured again: the hypervisor stole more than ${sa.limit_pct}% of the CPUs\u2019 time during A\u2019s window in ${sa.by_a} of them, during B\u2019s in ${sa.by_b}.`;
}
