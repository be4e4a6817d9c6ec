// Path and query parameters. They are parsed by hand rather than by Ajv's
// type coercion, which would accept " 42", "0x10" and "1e3" as integers where
// the contract wants plain decimal digits.

// int32Max is the largest id PostgreSQL's int (serial) column holds.
export const int32Max = 2147483647

// int64Max is the largest page: the offset (page-1)*limit is a bigint.
const int64Max = 9223372036854775807n

const digits = /^[0-9]+$/

// decimalIn parses a decimal digit string whose value lies in [min, max];
// anything else (signs, spaces, fractions) is undefined.
export function decimalIn(s, min, max) {
  if (typeof s !== 'string' || !digits.test(s)) return undefined
  const n = Number(s)
  return n >= min && n <= max ? n : undefined
}

// queryValue is a query parameter as text: its first value when repeated,
// and '' when absent (an empty value counts as absent).
function queryValue(v) {
  return (Array.isArray(v) ? v[0] : v) ?? ''
}

// pageOf parses a page number (1 to 2^63-1): a Number up to 2^53, a BigInt
// beyond, where no table has rows and the answer is an empty page.
function pageOf(s) {
  if (!digits.test(s)) return undefined
  const big = BigInt(s)
  if (big < 1n || big > int64Max) return undefined
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big
}

// paging reads ?page=&limit= with the contract's defaults (1 and 20).
export function paging(query) {
  const pageText = queryValue(query.page)
  const limitText = queryValue(query.limit)
  const page = pageText === '' ? 1 : pageOf(pageText)
  const limit = limitText === '' ? 20 : decimalIn(limitText, 1, 100)
  if (page === undefined || limit === undefined) {
    return { error: 'page must be an integer of at least 1 and limit an integer from 1 to 100' }
  }
  return { page, limit }
}

// cpuRounds reads the required ?n= (1 to 1,000,000).
export function cpuRounds(query) {
  const n = decimalIn(queryValue(query.n), 1, 1_000_000)
  return n === undefined ? { error: 'n must be an integer from 1 to 1000000' } : { n }
}
