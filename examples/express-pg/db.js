// The database side of the SaaS slice: one pg Pool of 10 connections and
// named (hence per-connection prepared) statements for every query.
import pg from 'pg'

// openPool connects lazily to url with the contract's pool size.
export function openPool(url) {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  // An idle client that loses its connection emits 'error' on the pool; without
  // a listener Node would crash the process.
  pool.on('error', (err) => console.error(`pg pool: idle connection failed: ${err.message}`))
  return pool
}

const userColumns = 'id, name, email, age, created_at'

// Named queries are prepared once per connection and reused afterwards.
export const userById = {
  name: 'user_by_id',
  text: `SELECT ${userColumns} FROM users WHERE id = $1`,
}

export const usersPage = {
  name: 'users_page',
  text: `SELECT ${userColumns} FROM users ORDER BY id LIMIT $1 OFFSET $2`,
}

// numeric comes back from pg as a string ("19.99"), which is what the contract
// wants; it is never turned into a JavaScript number.
export const insertOrder = {
  name: 'insert_order',
  text: 'INSERT INTO orders (user_id, amount, currency) VALUES ($1, $2, $3) ' +
    'RETURNING id, user_id, amount, currency, created_at',
}

// foreignKeyViolation is PostgreSQL's SQLSTATE for an order whose user does not exist.
export const foreignKeyViolation = '23503'

// numericOverflow is PostgreSQL's SQLSTATE for an amount that rounds to 10^10.
export const numericOverflow = '22003'

// toUser maps a users row to the contract's user object, keys in contract order.
export function toUser(row) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    age: row.age,
    createdAt: row.created_at.toISOString(),
  }
}

// toOrder maps an orders row to the contract's order object, keys in contract order.
export function toOrder(row) {
  return {
    id: row.id,
    userId: row.user_id,
    amount: row.amount,
    currency: row.currency,
    createdAt: row.created_at.toISOString(),
  }
}
