// Parts both page kinds share: the masthead, the shape chips, warnings, the command that
// reproduces the session, and the environment.

import { h, section, Child } from "./dom";
import { shellJoin, seconds, group, when } from "./format";
import type { Manifest, Run, Shape } from "./types";

export function masthead(kicker: string, title: Child[], sub: Child[]): HTMLElement {
  return h(
    "header",
    { class: "masthead", "data-testid": "masthead" },
    h("div", { class: "kicker" }, h("span", { class: "logo" }, "bindrace"), " ", kicker),
    h("h1", null, ...title),
    h("p", { class: "sub" }, ...sub),
  );
}

/** The masthead of a session over several targets (matrix, scale, sweep): its kind, the targets
 * in their colours, then the scenario, what the kind adds (details) and when it started. */
export function sessionMasthead(
  kind: string,
  sm: { targets?: string[]; scenario?: string; started?: string },
  color: (t: string) => string,
  details: Child[],
): HTMLElement {
  return masthead(`${kind} report`, targetTitle(sm.targets ?? [], color), [
    sm.scenario ? ["scenario ", h("b", null, sm.scenario)] : null,
    ...details,
    when(sm.started) ? [" \u00b7 ", when(sm.started)] : null,
  ]);
}

/** The run's shape as chips: "100 connections", "pipelining 10", "10 pairs × 10 s", … */
export function shapeChips(shape: Shape, extra: { connections?: number; pipelining?: number } = {}, kind: "race" | "matrix" = "race"): HTMLElement {
  const chips: [string, string][] = [];
  const conns = shape.connections || extra.connections;
  const pipe = shape.pipelining || extra.pipelining;
  if (conns) chips.push(["connections", `${group(conns)} connections`]);
  if (pipe) chips.push(["pipelining", pipe > 1 ? `pipelining ${pipe}` : "no pipelining"]);
  if (kind === "race" && shape.pairs) chips.push(["pairs", `${shape.pairs} pairs \u00d7 ${seconds(shape.duration_s)}`]);
  else if (kind === "matrix" && shape.rounds) chips.push(["rounds", `${shape.rounds} rounds \u00d7 ${seconds(shape.duration_s)}`]);
  else if (shape.duration_s) chips.push(["duration", `${seconds(shape.duration_s)} per run`]);
  if (shape.warmup_s !== undefined) chips.push(["warmup", `${seconds(shape.warmup_s)} warm-up`]);
  if (shape.cooldown_s) chips.push(["cooldown", `${seconds(shape.cooldown_s)} cool-down`]);
  if (shape.workers) chips.push(["workers", `${shape.workers} client worker${shape.workers === 1 ? "" : "s"}`]);
  if (shape.cpus_server || shape.cpus_client)
    chips.push(["cpus", `server CPU ${shape.cpus_server || "any"} \u00b7 client CPU ${shape.cpus_client || "any"}`]);
  if (kind === "matrix" && shape.seed !== undefined) chips.push(["seed", `seed ${shape.seed}`]);
  return h(
    "ul",
    { class: "chips", "data-testid": "shape" },
    chips.map(([k, t]) => h("li", { "data-shape": k }, t)),
  );
}

/** The pages of N targets (matrix, scale, sweep) colour each target by its place in the list. */
const PALETTE = ["#2563eb", "#e8590c", "#0f9d6e", "#9333ea", "#d6336c", "#0891b2", "#a16207", "#475569"];

export function targetColors(targets: string[]): (t: string) => string {
  return (t) => PALETTE[Math.max(0, targets.indexOf(t)) % PALETTE.length];
}

/** The title of a page of N targets: their names, each in its colour. */
export function targetTitle(targets: string[], color: (t: string) => string): Child[] {
  return targets.map((t, i) => [i ? h("span", { class: "vs" }, ", ") : null, h("span", { style: `color:${color(t)}` }, t)]);
}

/** The warnings section: why the session stopped early if it did, its warnings, then each of
 * runs that failed; null when there is nothing to say. */
export function warnings(list: string[] | undefined, incomplete?: string, runs: Run[] = []): HTMLElement | null {
  list = [...(list ?? [])];
  if (incomplete) list.unshift(`Incomplete: ${incomplete}`);
  for (const r of runs) if (r.error) list.push(`Run of ${r.target} (slot ${r.slot}) did not finish: ${r.error}`);
  if (list.length === 0) return null;
  return h(
    "section",
    { id: "warnings", class: "section warnings", "data-testid": "warnings", "data-count": list.length },
    h("h2", null, list.length === 1 ? "1 warning" : `${list.length} warnings`),
    h("ul", null, list.map((w) => h("li", { "data-testid": "warning" }, w))),
  );
}

export function reproduce(command: string[] | undefined): HTMLElement {
  const text = command && command.length ? shellJoin(command) : "";
  return section(
    "reproduce",
    "Reproduce",
    text
      ? [h("p", { class: "note" }, "The exact command that produced this session:"), h("pre", { class: "command", "data-testid": "command" }, h("code", null, text))]
      : h("p", { class: "note" }, "The command line was not recorded."),
  );
}

type Row = [string, string];

/** Flatten a manifest into dotted key/value rows. */
export function flatten(v: unknown, prefix: string, out: Row[]): Row[] {
  if (v === null || v === undefined) {
    if (prefix) out.push([prefix, "null"]);
  } else if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== "object")) out.push([prefix, v.map(String).join(" ")]);
    else v.forEach((x, i) => flatten(x, `${prefix}[${i}]`, out));
  } else if (typeof v === "object") {
    const keys = Object.keys(v as object);
    if (keys.length === 0 && prefix) out.push([prefix, "{}"]);
    for (const k of keys) flatten((v as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.push([prefix, String(v)]);
  }
  return out;
}

export function environment(manifest: Manifest | null, started?: string, finished?: string): HTMLElement {
  const rows = flatten(manifest ?? {}, "", []);
  const s = when(started), f = when(finished);
  if (s) rows.unshift(["session.started", s]);
  if (f) rows.splice(s ? 1 : 0, 0, ["session.finished", f]);
  return section(
    "environment",
    "Environment",
    rows.length === 0
      ? h("p", { class: "note" }, "No manifest.json was recorded.")
      : h(
          "table",
          { class: "env", "data-testid": "environment" },
          h("tbody", null, rows.map(([k, v]) => h("tr", { "data-key": k }, h("th", { scope: "row" }, k), h("td", null, v)))),
        ),
  );
}

/** The pinned upstream's name/version, if the manifest records it. */
export function upstreamOf(manifest: Manifest | null, b: string): string {
  const rows = flatten(manifest ?? {}, "", []);
  const hit =
    rows.find(([k, v]) => /upstream/i.test(k) && /\d/.test(v)) ||
    rows.find(([k, v]) => new RegExp(`(^|\\.)${b.replace(/[^A-Za-z0-9]/g, "\\$&")}(\\.|$)`, "i").test(k) && /version/i.test(k) && /\d/.test(v)) ||
    rows.find(([, v]) => /uws|uWebSockets/i.test(v) && /\d+\.\d+/.test(v));
  return hit ? hit[1] : "";
}

export function footer(raw: { runs?: unknown[]; trimmed?: boolean } | null): HTMLElement {
  const n = raw?.runs?.length ?? 0;
  return h(
    "footer",
    { class: "footer" },
    `Rendered by bindrace from summary.json${n ? `, raw.json (${n} runs${raw?.trimmed ? ", trimmed to the fields shown" : ""})` : ""} and manifest.json. `,
    "Self-contained: this page loads nothing from the network.",
  );
}
