// The kernel's share of each side: the paced system calls per response of the counts step
// (summary.json's syscalls) and where each side's CPU time went, sampled (summary.json's sampled:
// the run of median CPU time per response). The page shows what the session stored; it sums
// nothing itself.

import { h, section } from "./dom";
import * as F from "./format";
import type { Sampled, Summary } from "./types";

export function kernelSection(sm: Summary): HTMLElement | null {
  const parts = [pacedSyscalls(sm), ...sampledSides(sm)].filter((x): x is HTMLElement => x !== null);
  if (!parts.length) return null;
  return section("kernel", "System calls and sampled CPU time", ...parts);
}

// pacedSyscalls is both sides' paced system calls per response, every call either side made.
function pacedSyscalls(sm: Summary): HTMLElement | null {
  const sy = sm.syscalls;
  if (!sy) return null;
  const head = h("h3", null, "System calls per response (paced)");
  if (sy.unsupported) return h("div", { "data-testid": "syscalls" }, head, h("p", { class: "note" }, "Not counted: " + sy.unsupported + "."));
  const a = sy.per_response?.a ?? {};
  const b = sy.per_response?.b ?? {};
  const calls = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => k.startsWith("syscall:"))
    .sort((x, y) => (b[y] ?? 0) + (a[y] ?? 0) - (a[x] ?? 0) - (b[x] ?? 0));
  const row = (label: string, key: string) => {
    const va = a[key] ?? NaN;
    const vb = b[key] ?? NaN;
    const d = vb > 0 ? ((va - vb) / vb) * 100 : NaN;
    return h(
      "tr",
      { "data-testid": "syscall", "data-call": key },
      h("th", { scope: "row" }, label),
      h("td", { class: "num" }, F.count(va)),
      h("td", { class: "num" }, F.count(vb)),
      h("td", { class: `num delta ${F.tone(d, false)}` }, F.finite(d) ? F.pctDelta(d, 1) : "\u2014"),
    );
  };
  return h(
    "div",
    { "data-testid": "syscalls" },
    head,
    h("p", { class: "note" }, `${F.group(sy.n)} requests on one connection in batches of ${sy.pipelining}, each meeting an idle server; median of ${sy.reps} fresh servers per side, kernel ${sy.kernel}, counted by tracepoints.`),
    h(
      "table",
      { class: "metrics" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "per response"), h("th", { scope: "col", class: "num side-a" }, sm.a), h("th", { scope: "col", class: "num side-b" }, sm.b), h("th", { scope: "col", class: "num" }, "\u0394"))),
      h("tbody", null, row("system calls", "syscalls"), row("context switches", "context-switches"), calls.map((k) => row(k.slice("syscall:".length), k))),
    ),
  );
}

// sampledSides is one block per side that was sampled: its totals and top rows.
function sampledSides(sm: Summary): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const [key, name] of [["a", sm.a], ["b", sm.b]] as const) {
    const s = sm.sampled?.[key];
    if (s) out.push(sampledBlock(name ?? key, s));
  }
  return out;
}

function sampledBlock(name: string, s: Sampled): HTMLElement {
  const rows = [
    ...(s.functions ?? []).map((r) => ({ label: r.name, where: r.kernel ? "kernel" : "user", r })),
    ...(s.syscalls ?? []).map((r) => ({ label: "in " + r.name, where: "kernel, system call", r })),
  ];
  return h(
    "div",
    { "data-testid": "sampled", "data-side": name, "data-ns": s.ns_per_response },
    h("h3", null, `${name}: where the CPU time went (sampled)`),
    h(
      "p",
      { class: "note" },
      `${F.count(s.ns_per_response)} ns per response: user ${F.count(s.user_ns_per_response)}, kernel ${F.count(s.kernel_ns_per_response)} (${F.pct(s.kernel_pct)}); ${F.group(s.samples)} cpu-clock samples, one per ${F.count(s.period_ns / 1000)} \u00b5s of a thread's CPU time.`,
    ),
    s.activities?.length
      ? h("p", { class: "note", "data-testid": "sampled-activities" }, "By activity: " + s.activities.map((r) => `${r.name} ${F.pct(r.share_pct)}`).join(", ") + ".")
      : null,
    h(
      "table",
      { class: "metrics" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "function"), h("th", { scope: "col" }, "where"), h("th", { scope: "col", class: "num" }, "ns per response"), h("th", { scope: "col", class: "num" }, "share"))),
      h(
        "tbody",
        null,
        rows.map((x) => h("tr", { "data-testid": "sampled-row" }, h("th", { scope: "row" }, h("code", null, x.label)), h("td", null, x.where), h("td", { class: "num" }, F.count(x.r.ns_per_response)), h("td", { class: "num" }, F.pct(x.r.share_pct)))),
      ),
    ),
  );
}
