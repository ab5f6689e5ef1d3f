// Entry point: read the session embedded in the page and draw it.

import { h } from "./dom";
import { renderMatrix } from "./matrix";
import { renderRace } from "./race";
import { renderSweep } from "./sweep";
import { renderScale } from "./scale";
import type { Data } from "./types";

function main(): void {
  const root = document.getElementById("app");
  const el = document.getElementById("bindrace-data");
  if (!root || !el) return;
  root.textContent = "";
  try {
    const data = JSON.parse(el.textContent || "{}") as Data;
    if (!data.summary) throw new Error("summary.json is missing");
    if (data.summary.kind === "matrix") renderMatrix(data, root);
    else if (data.summary.kind === "sweep") renderSweep(data, root);
    else if (data.summary.kind === "scale") renderScale(data, root);
    else renderRace(data, root);
    document.body.setAttribute("data-rendered", "true");
  } catch (e) {
    root.appendChild(h("p", { class: "render-error", "data-testid": "render-error" }, `This report could not be drawn: ${e instanceof Error ? e.message : String(e)}`));
    document.body.setAttribute("data-rendered", "error");
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
else main();
