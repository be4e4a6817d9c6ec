module.exports = { client: 'pg', connection: process.env.DB_CONNECTION_URL, migrations: { directory: './migrations' } }
