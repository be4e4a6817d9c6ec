// The seven SaaS-slice routes as one Nest controller. Errors are Nest's
// HttpException with the contract's {"error": ...} body.
import { Body, Controller, Get, Headers, HttpCode, HttpException, Inject, Param, Post, Query, Res } from '@nestjs/common'
import { verifier } from '../contract/auth.js'
import { hashChain } from '../contract/cpu.js'
import { AmountOverflow, Db, type OrderRow, type User } from '../contract/db.js'
import * as rules from '../contract/rules.js'

// JWT_SECRET and DB are the injection tokens of the secret and the database.
export const JWT_SECRET = 'JWT_SECRET'

const notFound = () => new HttpException({ error: 'not found' }, 404)
const badRequest = (error: string) => new HttpException({ error }, 400)

@Controller()
export class SaasController {
  private readonly userIdOf: (header: unknown) => Promise<number | undefined>

  constructor(@Inject(Db) private readonly db: Db, @Inject(JWT_SECRET) secret: string) {
    this.userIdOf = verifier(secret)
  }

  @Get('health')
  health() {
    return { status: 'ok' }
  }

  @Post('echo')
  @HttpCode(200)
  echo(@Body() body: unknown) {
    const echo = rules.echoBody(body)
    if (echo.error !== undefined) throw badRequest(echo.error)
    return echo.value
  }

  @Get('me')
  async me(@Headers('authorization') authorization: string | undefined): Promise<User> {
    const id = await this.userIdOf(authorization)
    if (id === undefined) throw new HttpException({ error: 'unauthorized' }, 401)
    return this.user(id)
  }

  @Get('users/:id')
  async userById(@Param('id') idText: string): Promise<User> {
    const id = rules.decimalIn(idText, 1, rules.int32Max)
    if (id === undefined) throw badRequest('id must be an integer from 1 to 2147483647')
    return this.user(id)
  }

  @Get('users')
  async list(@Query() query: Record<string, unknown>, @Res({ passthrough: true }) reply: { type(t: string): unknown }) {
    const p = rules.paging(query)
    if (p.error !== undefined) throw badRequest(p.error)
    const { page, limit } = p.value
    if (typeof page === 'bigint') {
      // Past 2^53 the page is far beyond any table, and JSON.stringify cannot write a BigInt.
      reply.type('application/json; charset=utf-8')
      return `{"page":${page},"limit":${limit},"items":[]}`
    }
    return { page, limit, items: await this.db.usersPage(limit, (page - 1) * limit) }
  }

  @Post('orders')
  @HttpCode(201)
  async order(@Body() body: unknown): Promise<OrderRow> {
    const o = rules.orderBody(body)
    if (o.error !== undefined) throw badRequest(o.error)
    const { userId, amount, currency } = o.value
    if (userId > rules.int32Max) throw notFound()
    let order
    try {
      order = await this.db.insertOrder(userId, amount, currency)
    } catch (err) {
      if (err instanceof AmountOverflow) throw badRequest(err.message)
      throw err
    }
    if (order === undefined) throw notFound()
    return order
  }

  @Get('cpu')
  cpu(@Query() query: Record<string, unknown>) {
    const n = rules.cpuRounds(query)
    if (n.error !== undefined) throw badRequest(n.error)
    return { n: n.value, hash: hashChain(n.value) }
  }

  private async user(id: number): Promise<User> {
    const user = await this.db.userById(id)
    if (user === undefined) throw notFound()
    return user
  }
}
