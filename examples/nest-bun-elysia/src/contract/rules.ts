// Input rules of the SaaS-slice contract, shared by every stack of this
// example (the same rules as examples/express-pg/rules.js). Each check
// returns the validated value, or { error } that the route answers with 400.

// int32Max is the largest id PostgreSQL's int (serial) column holds.
export const int32Max = 2147483647

// int64Max is the largest page: the offset (page-1)*limit is a bigint.
const int64Max = 9223372036854775807n

const digits = /^[0-9]+$/

// A pragmatic address check: at most 254 characters; a local part of at most
// 64; "@"; a host name of at least two dot-separated labels.
const emailPattern = /^(?=.{1,254}$)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/

const currencies = new Set(['USD', 'EUR', 'GBP'])

export type Checked<T> = { value: T; error?: undefined } | { error: string; value?: undefined }

// decimalIn parses a decimal digit string whose value lies in [min, max];
// anything else (signs, spaces, fractions) is undefined.
export function decimalIn(s: unknown, min: number, max: number): number | undefined {
  if (typeof s !== 'string' || !digits.test(s)) return undefined
  const n = Number(s)
  return n >= min && n <= max ? n : undefined
}

// queryValue is a query parameter as text: its first value when repeated,
// and '' when absent (an empty value counts as absent).
function queryValue(v: unknown): string {
  const first = Array.isArray(v) ? v[0] : v
  return typeof first === 'string' ? first : first === undefined || first === null ? '' : String(first)
}

// pageOf parses a page number (1 to 2^63-1): a Number up to 2^53, a BigInt
// beyond, where no table has rows and the answer is an empty page.
function pageOf(s: string): number | bigint | undefined {
  if (!digits.test(s)) return undefined
  const big = BigInt(s)
  if (big < 1n || big > int64Max) return undefined
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big
}

export type Paging = { page: number | bigint; limit: number }

// paging reads ?page=&limit= with the contract's defaults (1 and 20).
export function paging(query: Record<string, unknown>): Checked<Paging> {
  const pageText = queryValue(query.page)
  const limitText = queryValue(query.limit)
  const page = pageText === '' ? 1 : pageOf(pageText)
  const limit = limitText === '' ? 20 : decimalIn(limitText, 1, 100)
  if (page === undefined || limit === undefined) {
    return { error: 'page must be an integer of at least 1 and limit an integer from 1 to 100' }
  }
  return { value: { page, limit } }
}

// cpuRounds reads the required ?n= (1 to 1,000,000).
export function cpuRounds(query: Record<string, unknown>): Checked<number> {
  const n = decimalIn(queryValue(query.n), 1, 1_000_000)
  return n === undefined ? { error: 'n must be an integer from 1 to 1000000' } : { value: n }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

// codePoints counts characters, not UTF-16 units, so that an emoji is one.
function codePoints(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

export type Echo = { name: string; email: string; age: number; tags: string[] }

// echoBody validates POST /echo and keeps only the four known keys, in order.
export function echoBody(body: unknown): Checked<Echo> {
  if (!isObject(body)) return { error: 'body must be a JSON object' }
  const { name, email, age, tags } = body
  if (typeof name !== 'string' || name.length === 0 || (name.length > 100 && codePoints(name) > 100)) {
    return { error: 'name must be a string of 1 to 100 characters' }
  }
  if (typeof email !== 'string' || !emailPattern.test(email)) {
    return { error: 'email must be an email address' }
  }
  if (typeof age !== 'number' || !Number.isInteger(age) || age < 0 || age > 150) {
    return { error: 'age must be an integer from 0 to 150' }
  }
  if (!Array.isArray(tags) || tags.length > 10 || !tags.every((t) => typeof t === 'string')) {
    return { error: 'tags must be an array of at most 10 strings' }
  }
  return { value: { name, email, age, tags } }
}

export type Order = { userId: number; amount: number; currency: string }

// orderBody validates POST /orders.
export function orderBody(body: unknown): Checked<Order> {
  if (!isObject(body)) return { error: 'body must be a JSON object' }
  const { userId, amount, currency } = body
  if (typeof userId !== 'number' || !Number.isInteger(userId) || userId < 1) {
    return { error: 'userId must be an integer >= 1' }
  }
  if (typeof amount !== 'number' || !(amount >= 0 && amount < 1e10)) {
    return { error: 'amount must be a number >= 0 and < 10^10' }
  }
  if (typeof currency !== 'string' || !currencies.has(currency)) {
    return { error: 'currency must be one of USD, EUR, GBP' }
  }
  return { value: { userId, amount, currency } }
}
