FROM node:20-slim
COPY ./ ./
RUN npm install
CMD ["node", "app.js"]
