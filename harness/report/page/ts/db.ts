// The database scenarios' section: the data set, and per run the reset before it and the CPU
// and memory of the server, PostgreSQL and the load generator, with the bottleneck.

import { h, section } from "./dom";
import * as F from "./format";
import type { Pair, Summary } from "./types";

export function dbSection(sm: Summary, pairs: Pair[]): HTMLElement | null {
  const db = sm.database;
  if (!db) return null;
  const where = db.external
    ? "an external PostgreSQL (the db_url setting): its resources were not sampled"
    : `a private PostgreSQL ${db.version ?? ""} the harness started`;
  const rows: HTMLElement[] = [];
  for (const p of pairs) {
    for (const r of [p.a, p.b]) {
      const x = r.db;
      if (!x) continue;
      const pg = x.external ? "external" : `${F.group(x.pg_cpu_pct)}% \u00b7 ${F.group(x.pg_pss_mib)} MiB PSS (${x.pg_processes})`;
      rows.push(
        h("tr", null,
          h("td", null, `${String(p.index ?? 0).padStart(2, "0")} ${p.order}`),
          h("td", null, r.target),
          h("td", { class: "num" }, `${F.group(x.reset_ms)} ms`),
          h("td", { class: "num" }, `${F.group(r.server_cpu_pct ?? 0)}% \u00b7 ${F.group(r.rss_mib ?? 0)} MiB`),
          h("td", { class: "num" }, pg),
          h("td", { class: "num" }, `${F.group(x.client_cpu_pct)}% \u00b7 ${F.group(x.client_rss_mib)} MiB`),
          h("td", null, x.bottleneck),
        ),
      );
    }
  }
  return section(
    "database",
    "PostgreSQL, reset and the three parties",
    h("p", { class: "note" },
      `Data set at scale ${db.scale} (${F.group(db.users)} users, ${F.group(db.orders)} orders), ids drawn ${db.keys}, pool of ${db.pool} connections per target, on ${where}. ` +
      "The trial database was cloned afresh from the seeded template before every run. CPU is in % of one core over the measured window; " +
      "the bottleneck is the party at 90% or more of its CPU allotment, else none."),
    (db.notes ?? []).map((n) => h("p", { class: "note" }, n)),
    h("table", { class: "table", "data-testid": "database-runs" },
      h("thead", null, h("tr", null, ...["pair", "target", "reset", "server CPU \u00b7 RSS", "PostgreSQL CPU \u00b7 memory", "load generator CPU \u00b7 RSS", "bottleneck"].map((c) => h("th", null, c)))),
      h("tbody", null, rows),
    ),
  );
}
