// A race's latency read two ways, labelled apart: the median of the runs' percentiles (what the
// gate compares, pair by pair) and the percentiles of all requests of a side, merged.

import { h } from "./dom";
import * as F from "./format";
import type { Merged, Summary } from "./types";

const ROWS: { label: string; key: string; get: (m: Merged) => number }[] = [
  { label: "p50", key: "p50_ms", get: (m) => m.p50_ms },
  { label: "p90", key: "", get: (m) => m.p90_ms },
  { label: "p99", key: "p99_ms", get: (m) => m.p99_ms },
  { label: "p99.9", key: "p999_ms", get: (m) => m.p999_ms },
  { label: "max", key: "", get: (m) => m.max_ms },
];

/** The open loop's rate, and the merged-vs-median table; null for a session without either. */
export function mergedLatency(sm: Summary): HTMLElement | null {
  if (!sm.rate && !sm.merged_a && !sm.merged_b) return null;
  const med = (key: string, side: "a" | "b"): string => {
    const v = key ? sm.runtime?.[key]?.[side] : undefined;
    return v == null ? "\u2013" : F.ms(v);
  };
  const mer = (m: Merged | undefined, get: (m: Merged) => number): string => (m ? F.ms(get(m)) : "\u2013");
  const r = sm.rate;
  return h(
    "div",
    { class: "merged", "data-testid": "merged-latency" },
    r
      ? h("p", { class: "note", "data-testid": "rate" },
          `Open loop: both sides were offered ${F.rps(r.rps)} requests/s; throughput is fixed by the rate and not gated, the gate compares the paired per-run p50 and p99.` +
            (r.fraction ? ` The rate is ${F.pct(r.fraction * 100)} of the lower of the two closed-loop maxima (${sm.a} ${F.rps(r.max_a_rps)}, ${sm.b} ${F.rps(r.max_b_rps)}).` : ""))
      : null,
    h(
      "table",
      { class: "metrics matrix" },
      h("thead", null, h("tr", null, h("th", null, "percentile"), h("th", null, `${sm.a}, median of runs`), h("th", null, `${sm.a}, all requests, merged`),
        h("th", null, `${sm.b}, median of runs`), h("th", null, `${sm.b}, all requests, merged`))),
      h("tbody", null, ...ROWS.map((q) =>
        h("tr", null, h("td", null, q.label), h("td", null, med(q.key, "a")), h("td", null, mer(sm.merged_a, q.get)),
          h("td", null, med(q.key, "b")), h("td", null, mer(sm.merged_b, q.get))))),
    ),
    h("p", { class: "note" }, "\u201cMedian of runs\u201d: the median over the runs of each run\u2019s own percentile, what the gate compares pair by pair. \u201cAll requests, merged\u201d: the percentile of every request of the side at once, from the runs\u2019 histograms merged; for reading, not for the verdict."),
  );
}
