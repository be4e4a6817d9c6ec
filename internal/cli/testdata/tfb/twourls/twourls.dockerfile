FROM node:20-slim
COPY ./ ./
RUN npm ci
CMD ["node", "app.js"]
