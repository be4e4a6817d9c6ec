FROM node:20-slim
COPY ./ ./
RUN npm ci
ENV MODE orm
CMD ["node", "app.js"]
