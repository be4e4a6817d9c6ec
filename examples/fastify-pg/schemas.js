// JSON schemas: request bodies are validated by Fastify's Ajv (no type
// coercion, see server options) and responses are serialised by
// fast-json-stringify, which writes exactly the listed keys in this order.
// That is what drops unknown keys from the echo.

const str = { type: 'string' }
const int = { type: 'integer' }

// A pragmatic address check: at most 254 characters; a local part of at most
// 64; "@"; a host name of at least two dot-separated labels.
const emailPattern = "^(?=.{1,254}$)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"

const echoProperties = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  email: { type: 'string', pattern: emailPattern },
  age: { type: 'integer', minimum: 0, maximum: 150 },
  tags: { type: 'array', maxItems: 10, items: str },
}

const user = {
  type: 'object',
  required: ['id', 'name', 'email', 'age', 'createdAt'],
  properties: { id: int, name: str, email: str, age: int, createdAt: str },
}

// health is GET /health.
export const health = {
  response: { 200: { type: 'object', properties: { status: str } } },
}

// echo is POST /echo.
export const echo = {
  body: { type: 'object', required: ['name', 'email', 'age', 'tags'], properties: echoProperties },
  response: { 200: { type: 'object', required: ['name', 'email', 'age', 'tags'], properties: echoProperties } },
}

// oneUser is GET /me and GET /users/:id.
export const oneUser = { response: { 200: user } }

// userList is GET /users.
export const userList = {
  response: {
    200: {
      type: 'object',
      required: ['page', 'limit', 'items'],
      properties: { page: int, limit: int, items: { type: 'array', items: user } },
    },
  },
}

// order is POST /orders.
export const order = {
  body: {
    type: 'object',
    required: ['userId', 'amount', 'currency'],
    properties: {
      userId: { type: 'integer', minimum: 1 },
      amount: { type: 'number', minimum: 0, exclusiveMaximum: 1e10 },
      currency: { type: 'string', enum: ['USD', 'EUR', 'GBP'] },
    },
  },
  response: {
    201: {
      type: 'object',
      required: ['id', 'userId', 'amount', 'currency', 'createdAt'],
      properties: { id: int, userId: int, amount: str, currency: str, createdAt: str },
    },
  },
}

// cpu is GET /cpu.
export const cpu = {
  response: { 200: { type: 'object', required: ['n', 'hash'], properties: { n: int, hash: str } } },
}

// microUser is the micro workload's GET /users/:id.
export const microUser = {
  response: {
    200: {
      type: 'object',
      required: ['id', 'name', 'email', 'roles'],
      properties: { id: str, name: str, email: str, roles: { type: 'array', items: str } },
    },
  },
}
