// A TechEmpower-style entry on Node.js: the http module and node-postgres
// (pg). It listens on $PORT (8080 when unset) and connects with pg's
// defaults, which are the libpq variables (PGHOST, PGPORT, PGDATABASE,
// PGUSER, PGPASSWORD) stackbench sets for the tfb workload: no host name
// is written here. Reads are one statement per row, sent concurrently on
// the pool; updates write one row per statement.
'use strict';
const http = require('node:http');
const { Pool } = require('pg');

const pool = new Pool({ max: 10 });
const WORLD_ROWS = 10000;
const randomId = () => 1 + Math.floor(Math.random() * WORLD_ROWS);

function count(url, name) {
  const n = Number.parseInt(new URL(url, 'http://x').searchParams.get(name), 10);
  if (!Number.isFinite(n) || n < 1) return 1;
  return Math.min(n, 500);
}

function send(res, type, body) {
  res.writeHead(200, { Server: 'node-pg', 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const json = (res, value) => send(res, 'application/json', JSON.stringify(value));

async function readWorld(id) {
  const r = await pool.query({ name: 'world', text: 'SELECT id, randomnumber FROM world WHERE id = $1', values: [id] });
  return { id: r.rows[0].id, randomNumber: r.rows[0].randomnumber };
}

const readWorlds = (n) => Promise.all(Array.from({ length: n }, () => readWorld(randomId())));

const escapes = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s) => s.replace(/[&<>"']/g, (c) => escapes[c]);

async function fortunes() {
  const r = await pool.query({ name: 'fortunes', text: 'SELECT id, message FROM fortune' });
  const rows = r.rows.concat({ id: 0, message: 'Additional fortune added at request time.' });
  rows.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  return '<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>' +
    rows.map((f) => `<tr><td>${f.id}</td><td>${escape(f.message)}</td></tr>`).join('') +
    '</table></body></html>';
}

async function updates(n) {
  const worlds = await readWorlds(n);
  for (const w of worlds) w.randomNumber = randomId();
  await Promise.all(worlds.map((w) => pool.query({
    name: 'update', text: 'UPDATE world SET randomnumber = $1 WHERE id = $2', values: [w.randomNumber, w.id],
  })));
  return worlds;
}

async function route(req, res) {
  const path = req.url.split('?')[0];
  switch (path) {
    case '/json': return json(res, { message: 'Hello, World!' });
    case '/plaintext': return send(res, 'text/plain', 'Hello, World!');
    case '/db': return json(res, await readWorld(randomId()));
    case '/queries': return json(res, await readWorlds(count(req.url, 'queries')));
    case '/updates': return json(res, await updates(count(req.url, 'queries')));
    case '/fortunes': return send(res, 'text/html; charset=utf-8', await fortunes());
  }
  res.writeHead(404, { Server: 'node-pg', 'Content-Length': 0 });
  res.end();
}

const server = http.createServer((req, res) => {
  route(req, res).catch((err) => {
    res.writeHead(500, { Server: 'node-pg', 'Content-Type': 'text/plain' });
    res.end(String(err && err.message));
  });
});
server.keepAliveTimeout = 65000;
server.listen(Number(process.env.PORT || 8080), process.env.HOST || '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
