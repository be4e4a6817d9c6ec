FROM node:20-slim
WORKDIR /node-pg
COPY package.json package-lock.json server.js ./
RUN npm ci --omit=dev
EXPOSE 8080
CMD ["node", "server.js"]
