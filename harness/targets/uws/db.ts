// The database scenarios on the uws target (harness/db): the same SQL text, run as prepared
// statements (the extended protocol) on the npm `postgres` client pinned in package.json, a pool
// of BINDRACE_DB_POOL connections shared out over the app threads, and the validation rules of
// harness/db (ParseID, ParseCreateOrder), which are JavaScript's reading of the body. Without
// BINDRACE_DB_URL the routes answer 503.
//
// Every column of the scenario statements is an int4 or text, which the client returns as a
// JavaScript number or string, and the statements name their columns in the response's key
// order, so a row serialised as it comes is the response object.

import postgres from 'postgres';

declare const BINDRACE_DB_SQL: { get_user: string; list_orders: string; order_total: string; create_order: string };
declare const BINDRACE_DB_LIMITS: { items: number; sku: number; qty: number; price: number };
declare const BINDRACE_DB_ERROR_PREFIX: string;
declare const BINDRACE_DB_ENV: { url: string; pool: string };
declare const process: any;
declare const Buffer: any;

interface Res {
  writeStatus(status: string): Res;
  writeHeader(key: string, value: string): Res;
  end(body?: string): Res;
  onAborted(handler: () => void): Res;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): Res;
  cork(cb: () => void): Res;
}
interface Req {
  getParameter(index: number): string;
}
interface DBApp {
  get(pattern: string, h: (res: Res, req: Req) => void): unknown;
  post(pattern: string, h: (res: Res, req: Req) => void): unknown;
}

const MAX_INT32 = 2147483647;
const STATUS: Record<number, string> = { 200: '200 OK', 201: '201 Created', 400: '400 Bad Request', 404: '404 Not Found', 500: '500 Internal Server Error', 503: '503 Service Unavailable' };

class BadInput extends Error {}
class NotFound extends Error {}

/** ParseID: 1 to 10 ASCII digits, value 1..2^31-1. */
function parseID(s: string): number {
  if (!/^[0-9]{1,10}$/.test(s)) throw new BadInput(`an id is 1 to ${MAX_INT32} in decimal digits`);
  const n = Number(s);
  if (n < 1 || n > MAX_INT32) throw new BadInput(`an id is 1 to ${MAX_INT32} in decimal digits`);
  return n;
}

/** A whole number read as harness/db's jsonInt does (any JSON number with a whole value). */
function int(o: any, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > 2 ** 53) throw new BadInput(`${key} must be an integer`);
  return v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** ParseCreateOrder's rules: user_id, 1..items objects of sku, qty, price_cents. */
function parseCreateOrder(body: string): { user: number; skus: string[]; qtys: number[]; prices: number[] } {
  let o: unknown;
  try {
    o = JSON.parse(body);
  } catch (e) {
    throw new BadInput('body: ' + (e as Error).message);
  }
  if (!isObject(o)) throw new BadInput('body must be a JSON object');
  const user = int(o, 'user_id');
  if (user < 1 || user > MAX_INT32) throw new BadInput(`user_id must be 1..${MAX_INT32}`);
  const items = o.items;
  if (!Array.isArray(items) || !items.every(isObject)) throw new BadInput('items must be an array of objects');
  const L = BINDRACE_DB_LIMITS;
  if (items.length < 1 || items.length > L.items) throw new BadInput(`items must hold 1..${L.items} items`);
  const skus: string[] = [], qtys: number[] = [], prices: number[] = [];
  items.forEach((it: Record<string, unknown>, i: number) => {
    const sku = it.sku;
    if (typeof sku !== 'string') throw new BadInput(`items[${i}].sku must be a string`);
    const qty = int(it, 'qty'), price = int(it, 'price_cents');
    const len = Buffer.byteLength(sku, 'utf8');
    if (len < 1 || len > L.sku) throw new BadInput(`items[${i}].sku must be 1..${L.sku} bytes`);
    if (/[\u0000-\u001f\u007f]/.test(sku)) throw new BadInput(`items[${i}].sku holds a control character`);
    if (qty < 1 || qty > L.qty) throw new BadInput(`items[${i}].qty must be 1..${L.qty}`);
    if (price < 1 || price > L.price) throw new BadInput(`items[${i}].price_cents must be 1..${L.price}`);
    skus.push(sku);
    qtys.push(qty);
    prices.push(price);
  });
  return { user, skus, qtys, prices };
}

/** Registers the four routes on app; threads share BINDRACE_DB_POOL connections out. */
export function addDBRoutes(app: DBApp, threads: number): void {
  const url = process.env[BINDRACE_DB_ENV.url] || '';
  const pool = Number(process.env[BINDRACE_DB_ENV.pool] || '10');
  const sql = url ? postgres(url, { max: Math.max(1, Math.round(pool / threads)), prepare: true, onnotice: () => {} }) : null;

  const answer = (res: Res, st: { aborted: boolean }, status: number, body: string) => {
    if (st.aborted) return;
    res.cork(() => {
      res.writeStatus(STATUS[status] ?? `${status} Error`)
        .writeHeader('content-type', status < 300 ? 'application/json' : 'text/plain')
        .end(status < 300 ? body : BINDRACE_DB_ERROR_PREFIX + body + '\n');
    });
  };
  const run = (res: Res, st: { aborted: boolean }, status: number, work: () => Promise<string>) => {
    if (!sql) return answer(res, st, 503, `no database: this server was started without ${BINDRACE_DB_ENV.url}`);
    let p: Promise<string>;
    try {
      p = work();
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (body) => answer(res, st, status, body),
      (e) => {
        const code = e instanceof BadInput ? 400 : e instanceof NotFound ? 404 : e && e.code === '23503' ? 400 : 500;
        answer(res, st, code, e instanceof NotFound ? 'not found' : code === 400 ? 'bad request: ' + e.message : String(e && e.message));
      },
    );
  };
  const read = (text: string, one: (rows: any[]) => string) => (res: Res, req: Req) => {
    const st = { aborted: false };
    res.onAborted(() => (st.aborted = true));
    const raw = req.getParameter(0);
    run(res, st, 200, async () => one(await sql!.unsafe(text, [parseID(raw)], { prepare: true })));
  };
  const single = (rows: any[]) => {
    if (rows.length === 0) throw new NotFound();
    return JSON.stringify(rows[0]);
  };
  app.get('/db/users/:id', read(BINDRACE_DB_SQL.get_user, single));
  app.get('/db/users/:id/orders', read(BINDRACE_DB_SQL.list_orders, (rows) => {
    if (rows.length === 0) throw new NotFound();
    return rows[0].id === null ? '[]' : JSON.stringify(Array.from(rows));
  }));
  app.get('/db/orders/:id/total', read(BINDRACE_DB_SQL.order_total, single));
  app.post('/db/orders', (res) => {
    const st = { aborted: false };
    res.onAborted(() => (st.aborted = true));
    const chunks: any[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(Buffer.from(chunk))); // the ArrayBuffer dies with the callback
      if (!isLast) return;
      const body = Buffer.concat(chunks).toString();
      run(res, st, 201, async () => {
        const o = parseCreateOrder(body);
        const rows = await sql!.unsafe(BINDRACE_DB_SQL.create_order, [o.user, o.skus, o.qtys, o.prices], { prepare: true });
        return JSON.stringify(rows[0]);
      });
    });
  });
}
