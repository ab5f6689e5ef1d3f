// The shapes of summary.json, raw.json and manifest.json (harness/session), held to its Go types
// by ../types_test.go (a field renamed or removed there fails it). Every field may be missing in
// a session that was cut short, so readers guard with `?? default`.

export interface DBRun {
  reset_ms: number;
  pg_cpu_pct: number;
  pg_rss_mib: number;
  pg_pss_mib: number;
  pg_processes: number;
  external?: boolean;
  client_cpu_pct: number;
  client_rss_mib: number;
  bottleneck: string;
}

export interface DBInfo {
  scale: number;
  keys: string;
  pool: number;
  external: boolean;
  version?: string;
  seed_s: number;
  users: number;
  orders: number;
  pg_cpus?: string;
  shares_client_cpus?: boolean;
  notes?: string[];
}

export interface Run {
  db?: DBRun;
  target: string;
  scenario: string;
  slot: number;
  rps: number;
  responses?: number;
  duration_s?: number;
  p50_ms?: number;
  p95_ms?: number;
  p99_ms?: number;
  p999_ms?: number;
  max_ms?: number;
  errors?: number;
  errors_by_kind?: Record<string, number>;
  server_cpu_pct?: number;
  rps_per_cpu_second?: number;
  client_bound?: boolean;
  saturation_pct?: number;
  rss_mib?: number;
  peak_rss_mib?: number;
  heap_mib?: number;
  startup_ms?: number;
  artifact_bytes?: number;
  counters?: Record<string, number>;
  syscalls_per_response?: number;
  context_switches_per_response?: number;
  sample?: Sampled;
  readings?: Record<string, Reading> | null;
  error?: string;
}

export interface Pair {
  index?: number;
  order: string;
  delta_pct: number;
  a: Run;
  b: Run;
}

export interface Shape {
  profile?: string;
  scenario?: string;
  connections?: number;
  pipelining?: number;
  workers?: number;
  pairs?: number;
  rounds?: number;
  seed?: number;
  warmup_s?: number;
  duration_s?: number;
  cooldown_s?: number;
  cpus_server?: string;
  cpus_client?: string;
  command?: string[];
}

export interface SideStats {
  median_rps?: number;
  mean_rps?: number;
  stddev_rps?: number;
  cv_pct?: number;
  min_rps?: number;
  max_rps?: number;
  median_p95_ms?: number;
  median_p99_ms?: number;
  median_server_cpu_pct?: number;
  median_rss_mib?: number;
  median_heap_mib?: number;
  errors?: number;
}

// One row of a race's runtime table, as stats computed it (null: not reported / no delta); a
// reading's row names itself (label).
export interface Figure {
  a?: number | null;
  b?: number | null;
  delta_pct?: number | null;
  label?: string;
  lower_is_better?: boolean;
  context?: boolean;
  not_read_a?: string;
  not_read_b?: string;
}

// A figure a probe read over a run's windows, with how to name it (not_read: why it has no
// value).
export interface Reading {
  value: number;
  label: string;
  lower_is_better?: boolean;
  context?: boolean;
  not_read?: string;
  not_applicable?: boolean;
}

export interface Thresholds {
  min_median_delta_pct?: number;
  max_p99_delta_pct?: number;
  max_errors?: number;
  counter_max_growth_pct?: Record<string, number>;
  counter_max_delta_pct?: Record<string, number>;
  counter_max_excess?: Record<string, number>;
  syscall_max_delta_pct?: number;
  syscall_max_growth_pct?: number;
  live_syscall_max_delta_pct?: number;
}

/** One metric's per-pair deltas: median, order-statistic interval (null: too few pairs). */
export interface Paired {
  median_pct: number;
  ci_pct: [number, number] | null;
  confidence: number;
  n: number;
  min_pct: number;
  max_pct: number;
  looks?: Look[];
  bounded_runs?: number;
}

/** One look of a check at its deltas (schema 3). */
export interface Look {
  pairs: number;
  interval: [number, number] | null;
  decision?: string;
}

/** How a race planned its pairs (schema 3). */
export interface Design {
  kind: "fixed" | "sequential";
  min_pairs?: number;
  max_pairs: number;
  max_time_s?: number;
  alpha: number;
  spending?: string;
  looks: number[];
  bounds: number[];
  spent: number[];
}

/** Rounds of windows the steal rule set aside (schema 3). */
export interface SetAside {
  limit_pct: number;
  rounds: number;
  measured: number;
  by_a: number;
  by_b: number;
}

/** Why a race stopped measuring pairs (schema 3). */
export interface Stop {
  reason: string;
  pairs: number;
  elapsed_s: number;
}

/** One gated check, as summary.json's checks array has it. */
export interface Check {
  metric: string;
  verdict: string;
  delta: number | null;
  interval: [number, number] | null;
  confidence: number | null;
  limit: number;
  bound: "min" | "max";
  n?: number;
  reason: string;
  looks?: Look[];
  decided_at?: number;
  pairs_needed?: number;
}

export interface Side {
  target: string;
  threads: number;
  cpus: string;
  build?: Record<string, string>;
}

export interface Summary {
  database?: DBInfo;
  kind?: string;
  unit?: string;
  verdict?: string;
  headline?: string;
  reasons?: string[];
  a: string;
  b: string;
  scenario?: string;
  connections?: number;
  pipelining?: number;
  shape?: Shape;
  median_delta_pct?: number;
  min_delta_pct?: number;
  max_delta_pct?: number;
  ci_pct?: [number, number] | null;
  ci_confidence?: number;
  ci_level?: number;
  design?: Design;
  stop?: Stop;
  set_aside?: SetAside;
  family_confidence?: number;
  fallible_checks?: number;
  decide_on?: string;
  paired?: Record<string, Paired>;
  checks?: Check[];
  context?: Check[];
  side_a?: Side;
  side_b?: Side;
  unequal_threads?: boolean;
  wins?: number;
  order_effect_pct?: number;
  stats_a?: SideStats;
  stats_b?: SideStats;
  runtime?: Record<string, Figure>;
  counter_delta_pct?: Record<string, number>;
  pairs?: Pair[];
  counters?: Record<string, Record<string, number>>;
  counters_mode?: string;
  counters_unsupported?: Record<string, string>;
  breakdowns?: Record<string, Breakdowns>;
  attribution?: Attribution[];
  syscalls?: SyscallCounts;
  sampled?: Record<string, Sampled>;
  thresholds?: Thresholds;
  warnings?: string[];
  incomplete?: string;
  started?: string;
  finished?: string;
  rate?: Rate;
  merged_a?: Merged;
  merged_b?: Merged;
}

export interface Rate {
  rps: number;
  fraction?: number;
  max_a_rps?: number;
  max_b_rps?: number;
}

export interface Merged {
  runs: number;
  requests: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
}

export interface TargetStats extends SideStats {
  target: string;
  runs?: number;
  vs_best_pct?: number;
}

// A valid matrix run's throughput over its target's mean, by slot (stats computed it).
export interface SlotPoint {
  target: string;
  slot: number;
  rps: number;
  normalized: number;
}

export interface Matrix {
  kind: "matrix";
  targets?: string[];
  scenario?: string;
  shape?: Shape;
  seed?: number;
  orders?: string[][];
  runs?: Run[];
  per_target?: TargetStats[];
  slot_correlation?: number;
  normalized?: SlotPoint[];
  slot_fit?: { slope: number; intercept: number } | null;
  warnings?: string[];
  incomplete?: string;
  started?: string;
  finished?: string;
}

export interface SweepPoint {
  point: number;
  target: string;
  fraction?: number;
  rate: number;
  run: Run & { open_loop?: { rate: number; sent_rps: number; lag_p99_ms: number; generator_bound: boolean } };
}

export interface Sweep {
  kind: "sweep";
  targets?: string[];
  scenario?: string;
  shape?: Shape;
  rates?: number[];
  fractions?: number[];
  closed_loop_max_rps?: Record<string, number>;
  slo_ms?: number;
  points?: SweepPoint[];
  per_target?: { target: string; slo_rate: number | null; points: number; generator_bound: number }[];
}

export interface ScalePoint {
  target: string;
  threads: number;
  runs?: number;
  rps?: number;
  rps_per_cpu_second?: number;
  server_cpu_pct?: number;
  client_cpu_pct?: number;
  p99_ms?: number;
  speed_up?: number;
  efficiency_pct?: number;
  client_bound?: boolean;
  server_unsaturated?: boolean;
  shared_cpus?: boolean;
  cpus_server?: string;
  errors?: number;
}

export interface Scale {
  kind: "scale";
  targets?: string[];
  threads?: number[];
  scenario?: string;
  unit?: string;
  shape?: Shape;
  rounds?: number;
  base_threads?: number;
  points?: ScalePoint[];
  warnings?: string[];
  incomplete?: string;
  started?: string;
  finished?: string;
}

export interface Raw {
  runs?: Run[];
  trimmed?: boolean;
}

export type Manifest = Record<string, unknown>;

export interface Data {
  summary: Summary | Matrix | Sweep | Scale;
  raw: Raw | null;
  manifest: Manifest | null;
}

/** One side's cachegrind instructions per response by function or by source file. */
export interface Breakdown {
  rows: BreakdownRow[] | null;
  resolution: number;
  total_resolution: number;
  under_rows: number;
  under_sum: number;
  notes?: string[];
}

export interface BreakdownRow {
  name: string;
  instructions: number;
  no_symbol?: boolean;
}

export interface Breakdowns {
  functions: Breakdown | null;
  files?: Breakdown | null;
}

/** An instruction check's delta by function and by file (gate.Apply). */
export interface Attribution {
  check: string;
  counter: string;
  a: string;
  b: string;
  total_a: number;
  total_b: number;
  delta: number;
  delta_pct: number;
  unavailable?: string;
  functions?: AttributionView | null;
  files?: AttributionView | null;
}

export interface AttributionView {
  resolution: number;
  rows: AttributionRow[] | null;
  rest: AttributionRest;
  only_a?: AttributionRow[];
  only_b?: AttributionRow[];
  notes?: string[];
}

export interface AttributionRow {
  name: string;
  a: number | null;
  b: number | null;
  delta: number;
  share_pct: number | null;
  points_pct: number;
  only?: string;
  no_symbol?: boolean;
}

export interface AttributionRest {
  delta: number;
  share_pct: number | null;
  rows: number;
  under_rows: number;
  under_delta: number | null;
}

/** Both sides' paced system calls per response (the counts step). */
export interface SyscallCounts {
  kernel: string;
  n: number;
  pipelining: number;
  reps: number;
  per_response: Record<string, Record<string, number>> | null;
  samples: Record<string, number[] | null> | null;
  unsupported?: string;
}

/** Where a run's CPU time went, sampled by perf record -e cpu-clock -g. */
export interface Sampled {
  samples: number;
  period_ns: number;
  ns_per_response: number;
  user_ns_per_response: number;
  kernel_ns_per_response: number;
  kernel_pct: number;
  functions: SampledRow[] | null;
  syscalls: SampledRow[] | null;
  activities: SampledRow[] | null;
}

export interface SampledRow {
  name: string;
  kernel?: boolean;
  ns_per_response: number;
  share_pct: number;
}
