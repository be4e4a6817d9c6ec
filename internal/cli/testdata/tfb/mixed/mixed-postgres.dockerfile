FROM oven/bun:1
COPY . .
RUN bun install
ENV NODE_ENV=production DB_POOL=8
CMD bun run src/index.ts
