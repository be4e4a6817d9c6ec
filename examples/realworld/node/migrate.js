// migrate.js applies migrations/*.sql in name order, each once, recording
// it in schema_migrations: the app's own migration tool, which stackbench
// runs as the stack's database.migrate (never inside start).
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'

const dir = path.join(path.dirname(new URL(import.meta.url).pathname), 'migrations')
const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
await client.connect()
try {
  await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())')
  const done = new Set((await client.query('SELECT name FROM schema_migrations')).rows.map((r) => r.name))
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
    if (done.has(name)) continue
    await client.query('BEGIN')
    await client.query(fs.readFileSync(path.join(dir, name), 'utf8'))
    await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name])
    await client.query('COMMIT')
    console.log('applied', name)
  }
} finally {
  await client.end()
}
