// The database side of the SaaS slice, over one of two drivers with the same
// tagged-template API: postgres.js (the `postgres` package) or Bun's built-in
// SQL client (Bun.SQL). Both keep a pool of 10 connections and prepare each
// statement once per connection. DB_DRIVER picks one: "postgres" (default on
// Node) or "bun" (default on Bun).
import postgres from 'postgres'

// Sql is the tagged-template query function both drivers offer.
type Sql = {
  (strings: TemplateStringsArray, ...values: unknown[]): Promise<Row[]>
  end(): Promise<unknown>
  close?(): Promise<unknown>
}
type Row = Record<string, any>

export type User = { id: number; name: string; email: string; age: number; createdAt: string }
export type OrderRow = { id: number; userId: number; amount: string; currency: string; createdAt: string }

const bun = (globalThis as any).Bun

// driverName is the driver DB_DRIVER asks for, or the runtime's own.
export function driverName(): 'postgres' | 'bun' {
  const asked = process.env.DB_DRIVER
  if (asked === 'postgres' || asked === 'bun') return asked
  if (asked) throw new Error(`DB_DRIVER=${asked}: write postgres (postgres.js) or bun (Bun.SQL)`)
  return bun ? 'bun' : 'postgres'
}

// Db runs the contract's three queries.
export class Db {
  private readonly sql: Sql

  constructor(url: string, driver = driverName()) {
    if (driver === 'bun') {
      if (!bun) throw new Error('DB_DRIVER=bun needs the Bun runtime')
      this.sql = new bun.SQL({ url, max: 10, prepare: true }) as Sql
    } else {
      // numeric stays the string PostgreSQL sends; timestamptz becomes a Date.
      this.sql = postgres(url, { max: 10, prepare: true, onnotice: () => {} }) as unknown as Sql
    }
  }

  async userById(id: number): Promise<User | undefined> {
    const rows = await this.sql`SELECT id, name, email, age, created_at FROM users WHERE id = ${id}`
    return rows.length === 0 ? undefined : toUser(rows[0])
  }

  async usersPage(limit: number, offset: number): Promise<User[]> {
    // The offset goes as text: past 2^31 a driver would send a JavaScript
    // number as float8, which OFFSET refuses.
    const rows = await this.sql`SELECT id, name, email, age, created_at FROM users ORDER BY id LIMIT ${limit} OFFSET ${String(offset)}::bigint`
    return rows.map(toUser)
  }

  // insertOrder answers the new order, or undefined when the user does not
  // exist; an amount that rounds to 10^10 throws AmountOverflow.
  async insertOrder(userId: number, amount: number, currency: string): Promise<OrderRow | undefined> {
    try {
      const rows = await this.sql`INSERT INTO orders (user_id, amount, currency) VALUES (${userId}, ${String(amount)}::numeric, ${currency}) RETURNING id, user_id, amount, currency, created_at`
      return toOrder(rows[0])
    } catch (err) {
      const state = sqlState(err)
      if (state === foreignKeyViolation) return undefined
      if (state === numericOverflow) throw new AmountOverflow()
      throw err
    }
  }

  async close(): Promise<void> {
    await this.sql.end()
  }
}

// AmountOverflow is an amount that PostgreSQL rounds to 10^10 or more.
export class AmountOverflow extends Error {
  constructor() {
    super('amount rounds to 10^10 or more')
  }
}

const foreignKeyViolation = '23503'
const numericOverflow = '22003'

// sqlState is the error's SQLSTATE: postgres.js puts it in code, Bun.SQL in
// errno (its code is ERR_POSTGRES_SERVER_ERROR).
function sqlState(err: any): string | undefined {
  if (typeof err?.errno === 'string') return err.errno
  return typeof err?.code === 'string' ? err.code : undefined
}

// toUser maps a users row to the contract's user object, keys in contract order.
function toUser(row: Row): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    age: row.age,
    createdAt: row.created_at.toISOString(),
  }
}

// toOrder maps an orders row to the contract's order object, keys in contract order.
function toOrder(row: Row): OrderRow {
  return {
    id: row.id,
    userId: row.user_id,
    amount: String(row.amount),
    currency: row.currency,
    createdAt: row.created_at.toISOString(),
  }
}
