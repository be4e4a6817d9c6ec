FROM node:20-slim
COPY ./ ./
RUN npm install
ENV DATABASE postgres
CMD ["node", "app.js"]
