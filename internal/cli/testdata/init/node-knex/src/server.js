const Koa = require('koa')
const app = new Koa()
app.use(async (ctx) => { if (ctx.path === '/api/health') ctx.body = { ok: true } })
app.listen(Number(process.env.APP_PORT || 3000), '127.0.0.1')
